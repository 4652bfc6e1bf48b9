/**
 * The hedge budget: copies allowed over a rolling window as a share of the requests made in it,
 * plus a floor, so hedging adds a bounded share of load however slow the upstream gets (a slow
 * upstream would otherwise get every request twice just when it is struggling).
 * @module
 */

import { RequestShare } from '../request-share.js'
import type { ResolvedHedgeBudget } from './options.js'

/** The spending of one budget, shared by every request through one hedge interceptor. */
export class HedgeBudget extends RequestShare {
  constructor (settings: ResolvedHedgeBudget) {
    super('hedge', 'minHedges', settings.minHedges, settings.ratio, settings.windowMs)
  }
}
