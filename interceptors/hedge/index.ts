/**
 * `interceptors.hedge()`: cuts the slow tail of idempotent requests. A request still unanswered
 * after a delay (fixed, or a percentile of the latencies the interceptor observed for its origin)
 * is sent again; the first answer wins and the other attempts are aborted, their connections
 * closed rather than leaked. A budget caps the extra load. Decisions are logged with
 * `NODE_DEBUG=conduit:hedge`.
 * @module
 */

import { isBufferedBody } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { normalizeOrigin } from '../request-identity.js'
import { deadlineBudgetOf } from '../deadline/index.js'
import { HedgeBudget } from './hedge-budget.js'
import { HedgedRequest } from './hedged-request.js'
import { LatencyTracker } from './latency-tracker.js'
import { resolveHedgeOptions } from './options.js'
import type { HedgeOptions, ResolvedHedgeOptions } from './options.js'

export type { HedgeOptions, HedgeBudgetOptions } from './options.js'

/** Whether `opts` may be sent more than once: its method (or its own `idempotent`) allows it and its body can be sent again. */
function hedgeable (opts: DispatchOptions, options: ResolvedHedgeOptions): boolean {
  if (opts.upgrade != null || opts.method === 'CONNECT' || !isBufferedBody(opts.body)) return false
  return opts.idempotent ?? options.methods.has(opts.method ?? 'GET')
}

/**
 * The hedge interceptor. Compose it inside `retry()` and `deadline()` (before them in
 * `compose()`'s list) and outside `circuitBreaker()`: a retry is then hedged like the first
 * attempt, the deadline bounds every copy (none is sent that could not answer in time), and the
 * breaker counts each copy while an aborted loser counts neither way. Bad options throw an
 * `InvalidArgumentError` naming the value.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.hedge({ percentile: 95, delayMs: 50 }), interceptors.retry())
 */
export function hedge (options?: HedgeOptions): Interceptor {
  const resolved = resolveHedgeOptions(options)
  // Shared by every dispatcher this interceptor is composed onto, like the circuit breaker's circuits.
  const budget = new HedgeBudget(resolved.budget)
  const latencies = new LatencyTracker()
  const { percentile, minSamples, maxHedges } = resolved
  return (dispatch: Dispatch): Dispatch => function dispatchHedged (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null || !hedgeable(opts, resolved)) return dispatch(opts, handler)
    const key = opts.origin === undefined ? '' : normalizeOrigin(opts.origin)
    const delayMs = (percentile === undefined ? undefined : latencies.percentile(key, percentile, minSamples)) ?? resolved.delayMs
    budget.requested(Date.now())
    return new HedgedRequest({
      dispatch,
      opts,
      // Too few latencies seen yet for the percentile: this one is measured, not hedged.
      delayMs: delayMs ?? 0,
      maxHedges: delayMs === undefined ? 0 : maxHedges,
      budget,
      deadline: deadlineBudgetOf(opts),
      recordLatency: (ms) => latencies.record(key, ms)
    }, handler).start()
  }
}
