/**
 * `interceptors.rateLimit()`: client-side limits per origin (or key): a token bucket (rate and
 * burst), a cap on requests in flight, and adaptive limits from the server's answers (`429`/`503`
 * with `Retry-After`, the IETF `RateLimit` and `RateLimit-Policy` fields), so a client slows down
 * before it is refused. Queued requests honour their abort signal and a deadline composed
 * outside. Waits are logged with `NODE_DEBUG=conduit:rate-limit`.
 * @module
 */

import { debuglog } from 'node:util'
import { InvalidReturnValueError, RateLimitQueueFullError, RequestAbortedError, describeValue, failDispatch, showRequest } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { normalizeOrigin } from '../request-identity.js'
import { deadlineBudgetOf } from '../deadline/index.js'
import { Limiter } from './limiter.js'
import type { Waiter } from './limiter.js'
import { resolveRateLimitOptions } from './options.js'
import type { RateLimitOptions, ResolvedRateLimitOptions } from './options.js'
import { RateLimitHandler } from './rate-limit-handler.js'

export type { RateLimitOptions } from './options.js'

const debug = debuglog('conduit:rate-limit')
// Limiters kept per interceptor before idle ones are forgotten, so unbounded keys cannot grow memory.
const MAX_LIMITERS = 1000
const log = (message: string): void => { if (debug.enabled) debug(message) }

function send (dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler, limiter: Limiter, options: ResolvedRateLimitOptions): boolean {
  const limited = new RateLimitHandler(handler, limiter, options.adaptive)
  try {
    return dispatch(opts, limited)
  } catch (err) {
    limited.release()
    throw err
  }
}

function queue (dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler, limiter: Limiter, options: ResolvedRateLimitOptions): boolean {
  if (limiter.queued >= options.maxQueued) {
    return failDispatch(handler, new RateLimitQueueFullError(`rateLimit(): ${limiter.queued} requests already wait for ${limiter.key} (maxQueued ${options.maxQueued}): ${showRequest(opts)} not sent`, limiter.key))
  }
  // A deadline composed outside would only run out in the queue: fail now, in the queue phase.
  const budget = deadlineBudgetOf(opts)
  const wait = limiter.waitMs(Date.now())
  if (budget !== undefined && wait >= budget.leftMs()) return failDispatch(handler, budget.exceeded('queue'))
  const signal = opts.signal
  let unlisten: (() => void) | undefined
  const waiter: Waiter = {
    run: () => {
      unlisten?.()
      try {
        send(dispatch, opts, handler, limiter, options)
      } catch (err) {
        failDispatch(handler, err instanceof Error ? err : new RequestAbortedError(String(err)))
      }
    }
  }
  if (signal != null) {
    if (signal.aborted) return failDispatch(handler, signal.reason instanceof Error ? signal.reason : new RequestAbortedError())
    const onAbort = (): void => {
      if (limiter.remove(waiter)) failDispatch(handler, signal.reason instanceof Error ? signal.reason : new RequestAbortedError())
    }
    signal.addEventListener('abort', onAbort, { once: true })
    unlisten = () => signal.removeEventListener('abort', onAbort)
  }
  limiter.enqueue(waiter)
  return true
}

/**
 * The rate limit interceptor. Compose it inside `retry()` (before it in `compose()`'s list), so
 * retries are paced too and a `429` it learns from holds the retry as well. Bad options throw an
 * `InvalidArgumentError` naming the value.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.rateLimit({ rate: 10, burst: 20, maxConcurrent: 4 }), interceptors.retry())
 */
export function rateLimit (options?: RateLimitOptions): Interceptor {
  const resolved = resolveRateLimitOptions(options)
  const limiters = new Map<string, Limiter>()
  const keyOf = resolved.key
  return (dispatch: Dispatch): Dispatch => function dispatchWithinLimits (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null || opts.method === 'CONNECT') return dispatch(opts, handler)
    const key: unknown = keyOf === undefined ? (opts.origin === undefined ? '' : normalizeOrigin(opts.origin)) : keyOf(opts)
    if (typeof key !== 'string') return failDispatch(handler, new InvalidReturnValueError(`rateLimit(): key must return a string, got ${describeValue(key)}`))
    let limiter = limiters.get(key)
    if (limiter === undefined) {
      // Idle limiters hold nothing the next request needs but their bucket: forgotten past a bound.
      if (limiters.size >= MAX_LIMITERS) for (const [k, l] of limiters) if (l.idle) limiters.delete(k)
      limiter = new Limiter(key, resolved, Date.now(), log)
      limiters.set(key, limiter)
    }
    return queue(dispatch, opts, handler, limiter, resolved)
  }
}
