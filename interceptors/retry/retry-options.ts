/**
 * Retry options: the public types, the defaults (one place), and their validation.
 * @module
 */

import { describeValueWithItems, failOption, fromUndiciCode, MAX_TIMER_MS } from '../../src/handler.js'
import type { DispatchHandler, DispatchOptions, Dispatch, InvalidArgumentError, OptionFailure } from '../../src/handler.js'
import { RETRY_BUDGET_DEFAULTS } from './retry-budget.js'
import type { ResolvedRetryBudget, RetryBudgetOptions } from './retry-budget.js'
import { randomIdempotencyKey } from './idempotency-key.js'
import type { IdempotencyKeyFactory } from './idempotency-key.js'

/** State of the retry loop handed to a `retry` callback. */
export interface RetryState {
  /** The retry about to be decided: `1` for the first retry, then one more per retry. */
  counter: number
}

/** Second argument of a `retry` callback: the loop state and the request it is about. */
export interface RetryContext {
  /** Loop state. */
  state: RetryState
  /** The dispatch options of the request, with the resolved `retryOptions`. */
  opts: DispatchOptions & {
    /** The options in force for this request, defaults filled in. */
    retryOptions: ResolvedRetryOptions
  }
}

/**
 * Decides whether to retry. Call `callback(err)` to stop (the error is what the caller receives),
 * `callback()` or `callback(null)` to retry at once; wait before calling back to delay the retry.
 */
export type RetryCallback = (err: Error, context: RetryContext, callback: (err?: Error | null) => void) => void

/** Passed to `onRetry` each time a retry is scheduled. */
export interface RetryEvent {
  /** The retry being scheduled, from `1`. */
  counter: number
  /** Milliseconds until the retry is sent (for a custom `retry` callback: the time it took to call back). */
  delayMs: number
}

/** Options of the retry interceptor, {@link RetryHandler} (as `retryOptions`) and `RetryAgent`. */
export interface RetryOptions {
  /**
   * When true, a failure left after the last retry reaches the inner handler as an error and the
   * connection of that attempt is destroyed; when false, the failing response is passed through.
   * @defaultValue `true`
   */
  throwOnError?: boolean | undefined
  /**
   * Replaces the built-in strategy (status, method, error code and counter checks with exponential backoff).
   * @defaultValue the built-in strategy
   */
  retry?: RetryCallback | undefined
  /**
   * Maximum number of retries (attempts are one more).
   * @defaultValue `5`
   */
  maxRetries?: number | undefined
  /**
   * Upper bound of any wait between attempts, `Retry-After` included, in milliseconds.
   * @defaultValue `30000`
   */
  maxTimeout?: number | undefined
  /**
   * Wait before the first retry, in milliseconds.
   * @defaultValue `500`
   */
  minTimeout?: number | undefined
  /**
   * Multiplier applied to the wait after each retry.
   * @defaultValue `2`
   */
  timeoutFactor?: number | undefined
  /**
   * When true, a `Retry-After` response header (seconds or HTTP date) sets the wait.
   * @defaultValue `true`
   */
  retryAfter?: boolean | undefined
  /**
   * Request methods that may be retried.
   * @defaultValue `['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']`
   */
  methods?: readonly string[] | undefined
  /**
   * Response statuses that trigger a retry.
   * @defaultValue `[500, 502, 503, 504, 429]`
   */
  statusCodes?: readonly number[] | undefined
  /**
   * Error codes (system or `LIB_ERR_*`) that trigger a retry. undici's spelling of a code
   * (`UND_ERR_SOCKET`) is read as conduit's (`LIB_ERR_SOCKET`).
   * @defaultValue `['ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'ENETDOWN', 'ENETUNREACH', 'EHOSTDOWN', 'EHOSTUNREACH', 'EPIPE', 'LIB_ERR_SOCKET']`
   */
  errorCodes?: readonly string[] | undefined
  /**
   * Full jitter: each computed backoff becomes a random wait between 0 and itself, so many clients
   * that failed together do not retry together. `Retry-After` waits are never jittered.
   * @defaultValue `false`
   */
  jitter?: boolean | undefined
  /**
   * Called each time a retry is scheduled, e.g. to count or log retries.
   * @defaultValue none
   */
  onRetry?: ((err: Error, event: RetryEvent) => void) | undefined
  /**
   * Total budget in milliseconds, from the first dispatch: no retry is scheduled whose attempt
   * would start after it. An attempt already in flight is not cut short.
   * @defaultValue none (no budget)
   */
  deadlineMs?: number | undefined
  /**
   * A retry budget shared by every request through the interceptor: over a rolling window, at
   * most `minRetries` plus `ratio` times the requests made are retried, so a failing upstream
   * meets that many extra requests at most instead of a retry storm. `true` takes the defaults
   * (`{ ratio: 0.2, minRetries: 10, windowMs: 10000 }`). The window follows the caller's clock.
   * Set on the interceptor (or `RetryAgent`); a request's own `retryOptions` cannot change it.
   * @defaultValue none (no budget)
   */
  budget?: boolean | RetryBudgetOptions | undefined
  /**
   * Sends an `Idempotency-Key` header (IETF httpapi draft) with requests whose method is not in
   * `methods` (POST, PATCH...), the same key on every attempt, and lets them be retried: a server
   * that honours the header applies the request once. A request that already has the header keeps
   * it. `true` makes random UUIDs; a function `(opts) => string` makes keys of its own.
   * @defaultValue none (such methods are not retried)
   */
  idempotencyKey?: boolean | IdempotencyKeyFactory | undefined
}

/** {@link RetryOptions} with every default filled in, as a `retry` callback sees them (frozen). */
export interface ResolvedRetryOptions {
  /** See {@link RetryOptions.throwOnError}. */
  readonly throwOnError: boolean
  /** See {@link RetryOptions.retry}. */
  readonly retry: RetryCallback
  /** See {@link RetryOptions.maxRetries}. */
  readonly maxRetries: number
  /** See {@link RetryOptions.maxTimeout}. */
  readonly maxTimeout: number
  /** See {@link RetryOptions.minTimeout}. */
  readonly minTimeout: number
  /** See {@link RetryOptions.timeoutFactor}. */
  readonly timeoutFactor: number
  /** See {@link RetryOptions.retryAfter}. */
  readonly retryAfter: boolean
  /** See {@link RetryOptions.methods}. */
  readonly methods: readonly string[]
  /** See {@link RetryOptions.statusCodes}. */
  readonly statusCodes: readonly number[]
  /** See {@link RetryOptions.errorCodes}. */
  readonly errorCodes: readonly string[]
  /** See {@link RetryOptions.jitter}. */
  readonly jitter: boolean
  /** See {@link RetryOptions.onRetry}. */
  readonly onRetry: ((err: Error, event: RetryEvent) => void) | undefined
  /** See {@link RetryOptions.deadlineMs}. */
  readonly deadlineMs: number | undefined
  /** See {@link RetryOptions.budget}. */
  readonly budget: ResolvedRetryBudget | undefined
  /** See {@link RetryOptions.idempotencyKey}. */
  readonly idempotencyKey: IdempotencyKeyFactory | undefined
}

/** Second constructor argument of {@link RetryHandler}. */
export interface RetryHandlers {
  /** Issues each attempt. */
  dispatch: Dispatch
  /** The caller's handler: receives the one response (or error) the retries end with. */
  handler: DispatchHandler
}

/** The documented retry defaults; `retry` is filled in by the handler module. */
export const RETRY_DEFAULTS = Object.freeze({
  throwOnError: true,
  maxRetries: 5,
  maxTimeout: 30_000,
  minTimeout: 500,
  timeoutFactor: 2,
  retryAfter: true,
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']),
  statusCodes: Object.freeze([500, 502, 503, 504, 429]),
  errorCodes: Object.freeze([
    'ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'ENETDOWN', 'ENETUNREACH', 'EHOSTDOWN', 'EHOSTUNREACH', 'EPIPE', 'LIB_ERR_SOCKET'
  ]),
  jitter: false
})

// Retry's messages show an array with its items: which status code or error code was wrong.
const SHOWN_WITH_ITEMS: OptionFailure = Object.freeze({ show: describeValueWithItems })

function pick<T> (value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value
}

function number (where: string, name: string, value: unknown, rule: string, ok: (n: number) => boolean): number {
  if (typeof value !== 'number' || !ok(value)) failOption(where, name, rule, value, SHOWN_WITH_ITEMS)
  return value
}

function boolean (where: string, name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') failOption(where, name, 'a boolean', value, SHOWN_WITH_ITEMS)
  return value
}

function list<T> (where: string, name: string, value: unknown, rule: string, ok: (item: unknown) => boolean): readonly T[] {
  if (!Array.isArray(value) || !value.every(ok)) failOption(where, name, rule, value, SHOWN_WITH_ITEMS)
  return Object.freeze([...value] as T[])
}

// Options already resolved (by a factory, once) pass through untouched on every request.
const RESOLVED = new WeakSet<object>()

/** A wait a timer can hold; a longer one would fire after 1 ms. */
const isTimerDelay = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= MAX_TIMER_MS
const TIMER_DELAY = `a non-negative number of milliseconds up to ${MAX_TIMER_MS}`

function resolveBudget (where: string, value: unknown): ResolvedRetryBudget | undefined {
  if (value === undefined || value === false) return undefined
  if (value === true) return RETRY_BUDGET_DEFAULTS
  if (typeof value !== 'object' || value === null || Array.isArray(value)) failOption(where, 'budget', 'a boolean or { ratio, minRetries, windowMs }', value, SHOWN_WITH_ITEMS)
  const b = value as RetryBudgetOptions
  return Object.freeze({
    ratio: number(where, 'budget.ratio', pick<unknown>(b.ratio, RETRY_BUDGET_DEFAULTS.ratio), 'a number from 0 to 1', (n) => n >= 0 && n <= 1),
    minRetries: number(where, 'budget.minRetries', pick<unknown>(b.minRetries, RETRY_BUDGET_DEFAULTS.minRetries), 'a non-negative integer', (n) => Number.isSafeInteger(n) && n >= 0),
    windowMs: number(where, 'budget.windowMs', pick<unknown>(b.windowMs, RETRY_BUDGET_DEFAULTS.windowMs), 'a positive number of milliseconds', (n) => Number.isFinite(n) && n > 0)
  })
}

function resolveIdempotencyKey (where: string, value: unknown): IdempotencyKeyFactory | undefined {
  if (value === undefined || value === false) return undefined
  if (value === true) return randomIdempotencyKey
  if (typeof value !== 'function') failOption(where, 'idempotencyKey', 'a boolean or a function (opts) => string', value, SHOWN_WITH_ITEMS)
  return value as IdempotencyKeyFactory
}

/**
 * Fills in the defaults and validates every option; `where` names the caller in error messages
 * (`retry()`, `RetryHandler`, `RetryAgent`). Throws {@link InvalidArgumentError} naming the bad value.
 */
export function resolveRetryOptions (
  options: RetryOptions | ResolvedRetryOptions | null | undefined,
  defaultRetry: RetryCallback,
  where: string
): ResolvedRetryOptions {
  if (options === undefined || options === null) options = {}
  if (RESOLVED.has(options)) return options as ResolvedRetryOptions
  if (typeof options !== 'object' || Array.isArray(options)) failOption(where, 'options', 'an object', options, SHOWN_WITH_ITEMS)
  const o = options as RetryOptions
  const retry = pick<unknown>(o.retry, defaultRetry)
  if (typeof retry !== 'function') failOption(where, 'retry', 'a function (err, context, callback)', retry, SHOWN_WITH_ITEMS)
  const onRetry: unknown = o.onRetry
  if (onRetry !== undefined && typeof onRetry !== 'function') failOption(where, 'onRetry', 'a function', onRetry, SHOWN_WITH_ITEMS)
  const deadlineMs: unknown = o.deadlineMs
  if (deadlineMs !== undefined) number(where, 'deadlineMs', deadlineMs, 'a positive number of milliseconds', (n) => n > 0 && !Number.isNaN(n))
  const resolved: ResolvedRetryOptions = Object.freeze({
    budget: resolveBudget(where, o.budget),
    idempotencyKey: resolveIdempotencyKey(where, o.idempotencyKey),
    throwOnError: boolean(where, 'throwOnError', pick<unknown>(o.throwOnError, RETRY_DEFAULTS.throwOnError)),
    retry: retry as RetryCallback,
    maxRetries: number(where, 'maxRetries', pick<unknown>(o.maxRetries, RETRY_DEFAULTS.maxRetries), 'a non-negative integer', (n) => Number.isInteger(n) && n >= 0),
    maxTimeout: number(where, 'maxTimeout', pick<unknown>(o.maxTimeout, RETRY_DEFAULTS.maxTimeout), TIMER_DELAY, isTimerDelay),
    minTimeout: number(where, 'minTimeout', pick<unknown>(o.minTimeout, RETRY_DEFAULTS.minTimeout), TIMER_DELAY, isTimerDelay),
    timeoutFactor: number(where, 'timeoutFactor', pick<unknown>(o.timeoutFactor, RETRY_DEFAULTS.timeoutFactor), 'a positive finite number', (n) => Number.isFinite(n) && n > 0),
    retryAfter: boolean(where, 'retryAfter', pick<unknown>(o.retryAfter, RETRY_DEFAULTS.retryAfter)),
    methods: list<string>(where, 'methods', pick<unknown>(o.methods, RETRY_DEFAULTS.methods), 'an array of method names',
      (m) => typeof m === 'string' && m.length > 0),
    statusCodes: list<number>(where, 'statusCodes', pick<unknown>(o.statusCodes, RETRY_DEFAULTS.statusCodes), 'an array of status codes (100-599)',
      (s) => Number.isInteger(s) && (s as number) >= 100 && (s as number) <= 599),
    // undici users write undici's codes (UND_ERR_SOCKET); they name the same errors as LIB_ERR_*.
    errorCodes: Object.freeze(list<string>(where, 'errorCodes', pick<unknown>(o.errorCodes, RETRY_DEFAULTS.errorCodes), 'an array of error code strings',
      (c) => typeof c === 'string' && c.length > 0).map(fromUndiciCode)),
    jitter: boolean(where, 'jitter', pick<unknown>(o.jitter, RETRY_DEFAULTS.jitter)),
    onRetry: onRetry as ResolvedRetryOptions['onRetry'],
    deadlineMs: deadlineMs as number | undefined
  })
  RESOLVED.add(resolved)
  return resolved
}

/** Checks the arguments of `new RetryHandler(opts, handlers)`; throws {@link InvalidArgumentError} naming the bad value. */
export function checkRetryHandlerArgs (opts: unknown, handlers: unknown): void {
  if (typeof opts !== 'object' || opts === null) failOption('RetryHandler', 'options', 'an object', opts, SHOWN_WITH_ITEMS)
  const dispatch = (handlers as Partial<RetryHandlers> | null)?.dispatch
  if (typeof dispatch !== 'function') failOption('RetryHandler', 'handlers.dispatch', 'a function', dispatch, SHOWN_WITH_ITEMS)
  const method = (opts as { method?: unknown }).method
  // Absent means GET, as undici's RetryHandler assumes.
  if (method !== undefined && (typeof method !== 'string' || method === '')) failOption('RetryHandler', 'options.method', 'a non-empty string', method, SHOWN_WITH_ITEMS)
}

/** Dispatch options of a retried request: the usual ones plus the retry options. */
export type RetryHandlerOptions = DispatchOptions & {
  /** Retry options of this request. */
  retryOptions?: RetryOptions | ResolvedRetryOptions | undefined
}

/** The context the caller's `onRequestStart` receives: the transport's, plus the retries made so far. */
export interface RetryDispatchContext {
  /** Retries made so far; kept up to date, so read it once the response has arrived. */
  retryCount: number
  [key: string]: unknown
}
