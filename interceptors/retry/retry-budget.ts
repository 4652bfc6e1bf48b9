/**
 * The retry budget: retries allowed over a rolling window as a share of the requests made in
 * it, plus a floor, so a failing upstream meets at most that many extra requests instead of a
 * retry storm. The window follows the caller's clock (`Date.now()`).
 * @module
 */

import { RequestShare } from '../request-share.js'

/** The budget's settings, as `retry({ budget })` takes them. */
export interface RetryBudgetOptions {
  /**
   * Retries allowed per request made in the window (0 to 1): `0.2` lets one request in five be retried once.
   * @defaultValue `0.2`
   */
  ratio?: number | undefined
  /**
   * Retries always allowed per window, whatever the traffic, so a quiet client can still retry.
   * @defaultValue `10`
   */
  minRetries?: number | undefined
  /**
   * Length of the rolling window, in milliseconds.
   * @defaultValue `10000`
   */
  windowMs?: number | undefined
}

/** {@link RetryBudgetOptions} with the defaults filled in. */
export interface ResolvedRetryBudget {
  /** See {@link RetryBudgetOptions.ratio}. */
  readonly ratio: number
  /** See {@link RetryBudgetOptions.minRetries}. */
  readonly minRetries: number
  /** See {@link RetryBudgetOptions.windowMs}. */
  readonly windowMs: number
}

/** The documented budget defaults. */
export const RETRY_BUDGET_DEFAULTS: ResolvedRetryBudget = Object.freeze({ ratio: 0.2, minRetries: 10, windowMs: 10_000 })

/** The spending of one budget, shared by every request through one retry interceptor. */
export class RetryBudget extends RequestShare {
  constructor (settings: ResolvedRetryBudget) {
    super('retry', 'minRetries', settings.minRetries, settings.ratio, settings.windowMs)
  }
}
