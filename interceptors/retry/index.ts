/**
 * `interceptors.retry()`: retries failed requests with exponential backoff, honours `Retry-After`,
 * and resumes partly delivered downloads with a `Range` request guarded by the original `ETag`.
 * The per-request state machine is {@link RetryHandler}; this factory only decides whether to act.
 * @module
 */

import { copyOptions, failDispatch, failOption } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { RetryHandler } from './retry-handler.js'
import { resolveRetryOptions } from './retry-options.js'
import type { ResolvedRetryOptions, RetryOptions } from './retry-options.js'
import { defaultRetry } from './retry-strategy.js'
import { RetryTracker } from './retry-tracker.js'
import { RetryBudget } from './retry-budget.js'
import { withIdempotencyKey } from './idempotency-key.js'

export { RetryHandler } from './retry-handler.js'
export type { RetryDispatchContext, RetryHandlerOptions } from './retry-options.js'
export { RETRY_DEFAULTS, resolveRetryOptions } from './retry-options.js'
export { defaultRetry } from './retry-strategy.js'
// The Retry-After reading the rate limiter shares.
export { retryAfterMs } from './retry-after.js'
export type { RetryBudget, RetryBudgetOptions, ResolvedRetryBudget } from './retry-budget.js'
export type { IdempotencyKeyFactory } from './idempotency-key.js'
export type {
  ResolvedRetryOptions,
  RetryCallback,
  RetryContext,
  RetryEvent,
  RetryHandlers,
  RetryOptions,
  RetryState
} from './retry-options.js'

declare module '../../src/handler.js' {
  interface DispatchOptions {
    /** The request's own retry options, merged over the retry interceptor's (RetryHandler reads them too). */
    retryOptions?: RetryOptions | undefined
  }
}

/**
 * Builds the dispatch function of the retry interceptor over `dispatch`. A request may override
 * options with its own `retryOptions`; upgrades and CONNECT tunnels are passed through untouched.
 * Every retried dispatch is tracked until it ends, and none starts once the tracker is closed.
 */
function retryDispatch (dispatch: Dispatch, options: ResolvedRetryOptions, tracker: RetryTracker, budget: RetryBudget | undefined): Dispatch {
  return function dispatchWithRetry (opts: DispatchOptions, handler: DispatchHandler): boolean {
    const refusal = tracker.refusal()
    if (refusal != null) {
      return failDispatch(handler, refusal)
    }
    // The dispatcher below reports malformed options itself. A protocol switch hands the
    // socket over, so an upgrade or a tunnel has no response to retry.
    if (typeof opts !== 'object' || opts === null || opts.upgrade != null || opts.method === 'CONNECT') return dispatch(opts, handler)
    let resolved = options
    const perRequest: unknown = opts.retryOptions
    if (perRequest !== undefined) {
      // Spread below, a string or number would silently become options with keys "0", "1"...
      if (perRequest !== null && (typeof perRequest !== 'object' || Array.isArray(perRequest))) {
        failOption('retry()', 'retryOptions', 'an object', perRequest)
      }
      resolved = resolveRetryOptions({ ...options, ...perRequest }, defaultRetry, 'retry()')
      opts = copyOptions(opts)
      opts.retryOptions = undefined
    }
    const keyFor = resolved.idempotencyKey
    const method = opts.method ?? 'GET'
    if (keyFor !== undefined && !resolved.methods.includes(method)) {
      // The key makes this request safe to repeat: its method joins the retried ones, for it alone.
      try {
        opts = withIdempotencyKey(opts, keyFor)
      } catch (err) {
        return failDispatch(handler, err as Error)
      }
      resolved = resolveRetryOptions({ ...resolved, methods: [...resolved.methods, method] }, defaultRetry, 'retry()')
    }
    budget?.requested(Date.now())
    const retryHandler: RetryHandler = new RetryHandler(opts, { dispatch, handler }, resolved, () => tracker.forget(retryHandler), budget)
    tracker.track(retryHandler)
    try {
      return dispatch(opts, retryHandler)
    } catch (err) {
      tracker.forget(retryHandler)
      throw err
    }
  }
}

/**
 * The retry interceptor. Options are validated once, here; invalid ones throw an
 * `InvalidArgumentError` naming the value.
 * @example
 * const agent = new Agent().compose(interceptors.retry({ maxRetries: 3, minTimeout: 200 }))
 * const { statusCode, body } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
 */
export function retry (options?: RetryOptions): Interceptor {
  return retryWithOptions(resolveRetryOptions(options, defaultRetry, 'retry()'))
}

/**
 * The retry interceptor over options already resolved (the `RetryAgent` preset resolves them
 * under its own name). It learns that its dispatcher closes through the dispatch lifecycle.
 */
export function retryWithOptions (resolved: ResolvedRetryOptions): Interceptor {
  return (dispatch) => {
    // One tracker per composed dispatcher: its close() waits for requests between attempts,
    // and its destroy() ends their backoff waits at once, so no timer outlives it.
    const tracker = new RetryTracker()
    const budget = resolved.budget === undefined ? undefined : new RetryBudget(resolved.budget)
    return Object.assign(retryDispatch(dispatch, resolved, tracker, budget), {
      onClose: () => tracker.close(),
      onDestroy: (reason: Error) => tracker.destroy(reason)
    })
  }
}
