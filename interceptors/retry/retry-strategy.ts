/**
 * The built-in retry strategy: which failures are retried, and after how long.
 * @module
 */

import { LIBRARY_ERROR_CODES, fromUndiciCode } from '../../src/handler.js'
import type { IncomingHeaders } from '../../src/handler.js'
import type { ResolvedRetryOptions, RetryCallback, RetryContext } from './retry-options.js'
import { retryAfterMs } from './retry-after.js'

/** Code of the error a retryable response status is reported with. */
export const STATUS_FAILURE_CODE = LIBRARY_ERROR_CODES.RequestRetryError

/** The decision of the built-in strategy, with a reason for the debug log. */
export type RetryPlan =
  | { retry: true, delayMs: number, reason: string }
  | { retry: false, reason: string }

interface FailureFields { code?: unknown, statusCode?: unknown, headers?: unknown }

/** A short description of a failure for log lines: `status 503` or `ECONNRESET`. */
export function describeFailure (err: Error): string {
  const { code, statusCode } = err as FailureFields
  if (typeof code === 'string' && fromUndiciCode(code) === STATUS_FAILURE_CODE && typeof statusCode === 'number' && statusCode > 0) return `status ${statusCode}`
  return typeof code === 'string' ? code : `${err.name}: ${err.message}`
}

/**
 * The built-in strategy: stop when the error code is not in `errorCodes`,
 * the method not in `methods`, the status not in `statusCodes`, or `counter` exceeds `maxRetries`;
 * otherwise wait `Retry-After` or `minTimeout * timeoutFactor ** (counter - 1)`, capped at `maxTimeout`.
 * With `jitter`, the computed backoff (never `Retry-After`) becomes a random wait below it.
 */
export function planRetry (
  err: Error,
  counter: number,
  method: string,
  options: ResolvedRetryOptions,
  now: number,
  random: () => number = Math.random
): RetryPlan {
  const { code, statusCode, headers } = err as FailureFields
  // Compared in conduit's spelling, whichever style the error was made in (or undici gave it).
  const known = typeof code === 'string' ? fromUndiciCode(code) : code
  if (known !== STATUS_FAILURE_CODE) {
    if (typeof known !== 'string') return { retry: false, reason: `${err.name} has no error code` }
    if (!options.errorCodes.includes(known)) return { retry: false, reason: `error code ${known} is not in errorCodes` }
  }
  if (!options.methods.includes(method)) return { retry: false, reason: `method ${method} is not in methods` }
  if (typeof statusCode === 'number' && statusCode > 0 && !options.statusCodes.includes(statusCode)) {
    return { retry: false, reason: `status ${statusCode} is not in statusCodes` }
  }
  if (counter > options.maxRetries) return { retry: false, reason: `maxRetries (${options.maxRetries}) reached` }

  const what = describeFailure(err)
  if (options.retryAfter && headers !== null && typeof headers === 'object') {
    const wait = retryAfterMs((headers as IncomingHeaders)['retry-after'], now)
    if (wait !== undefined) {
      const delayMs = Math.min(wait, options.maxTimeout)
      return { retry: true, delayMs, reason: `${what}, Retry-After asks for ${wait}ms` }
    }
  }
  const backoff = Math.min(options.minTimeout * options.timeoutFactor ** (counter - 1), options.maxTimeout)
  const delayMs = options.jitter ? Math.floor(random() * backoff) : backoff
  return { retry: true, delayMs, reason: options.jitter ? `${what}, jittered backoff of ${backoff}ms` : `${what}, backoff` }
}

/**
 * The built-in `retry` callback: the strategy of {@link planRetry} on a plain timer. `RetryHandler`
 * recognises it and runs the plan on its own abortable timer instead; custom callbacks may delegate to it.
 * @example
 * const retry: RetryCallback = (err, context, callback) =>
 *   (err as { code?: string }).code === 'LIB_ERR_DESTROYED' ? callback(err) : defaultRetry(err, context, callback)
 */
export const defaultRetry: RetryCallback = (err, context, callback) => {
  const plan = planRetry(err, context.state.counter, context.opts.method, context.opts.retryOptions, Date.now())
  if (!plan.retry) {
    callback(err)
    return
  }
  setTimeout(() => callback(null), plan.delayMs)
}

/**
 * Asks a `retry` callback once: `onAnswer(null)` to retry, `onAnswer(err)` to stop. Later calls of
 * the callback are ignored; a callback that throws before answering stops with what it threw.
 */
export function askRetry (
  retry: RetryCallback,
  err: Error,
  context: RetryContext,
  onAnswer: (stop: Error | null) => void
): void {
  let answered = false
  const callback = (result?: Error | null): void => {
    if (answered) return
    answered = true
    onAnswer(result == null ? null : result instanceof Error ? result : err)
  }
  try {
    retry(err, context, callback)
  } catch (thrown) {
    // Once answered, a throw comes from the attempt the answer started; it is not the callback's.
    if (answered) throw thrown
    callback(thrown instanceof Error ? thrown : new Error(`retry(): the retry callback threw ${String(thrown)}`))
  }
}

/** `METHOD origin/path` of a request, for messages and log lines, user information hidden. */
export { showRequest as describeRequest } from '../../src/handler.js'
