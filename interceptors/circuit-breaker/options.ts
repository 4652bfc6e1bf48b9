/**
 * Circuit breaker options: the public type, the defaults (one place), and their validation.
 * @module
 */

import { describeValueWithItems, failOption, fromUndiciCode, MAX_TIMER_MS } from '../../src/handler.js'
import type { DispatchOptions, OptionFailure } from '../../src/handler.js'

/** Options of `interceptors.circuitBreaker()`. */
export interface CircuitBreakerOptions {
  /**
   * Which circuit a request belongs to. Circuits live in the interceptor, so one composed over an
   * Agent serves every pool of it; a key shared by several origins trips them together.
   * @defaultValue the request's origin
   */
  key?: ((opts: DispatchOptions) => string) | undefined
  /**
   * Consecutive failures that open a closed circuit, whatever the window says; 0 turns the rule off.
   * @defaultValue `5`
   */
  consecutiveFailures?: number | undefined
  /**
   * Share of failed requests over {@link CircuitBreakerOptions.windowMs} that opens a closed
   * circuit (above 0, at most 1), once the window holds `minimumRequests`.
   * @defaultValue `0.5`
   */
  failureRate?: number | undefined
  /**
   * Requests the window must hold before its failure rate is judged.
   * @defaultValue `10`
   */
  minimumRequests?: number | undefined
  /**
   * Length of the rolling window the failure rate is measured over, in milliseconds.
   * @defaultValue `10000`
   */
  windowMs?: number | undefined
  /**
   * How long an open circuit fails requests fast before letting probes through, in milliseconds.
   * @defaultValue `30000`
   */
  openMs?: number | undefined
  /**
   * Probes a half-open circuit lets through at once; when all succeed it closes, when one fails it opens again.
   * @defaultValue `1`
   */
  halfOpenProbes?: number | undefined
  /**
   * Response statuses that count as failures.
   * @defaultValue `[500, 502, 503, 504]`
   */
  statusCodes?: readonly number[] | undefined
  /**
   * Error codes that count as failures (undici's spelling is read as conduit's). Without it every
   * error counts, except the caller's own abort.
   * @defaultValue every error
   */
  errorCodes?: readonly string[] | undefined
  /**
   * Whether timeouts (connect, headers, body, a deadline) count as failures, whatever `errorCodes` says.
   * @defaultValue `true`
   */
  timeouts?: boolean | undefined
  /**
   * Most circuits kept; past it the oldest closed one is forgotten, so an unbounded set of
   * origins cannot grow memory without end.
   * @defaultValue `1000`
   */
  maxCircuits?: number | undefined
}

/** {@link CircuitBreakerOptions} with every default filled in. */
export interface ResolvedCircuitBreakerOptions {
  readonly key: ((opts: DispatchOptions) => string) | undefined
  readonly consecutiveFailures: number
  readonly failureRate: number
  readonly minimumRequests: number
  readonly windowMs: number
  readonly openMs: number
  readonly halfOpenProbes: number
  readonly statusCodes: ReadonlySet<number>
  readonly errorCodes: ReadonlySet<string> | undefined
  readonly timeouts: boolean
  readonly maxCircuits: number
}

/** The documented circuit breaker defaults. */
export const CIRCUIT_BREAKER_DEFAULTS = Object.freeze({
  consecutiveFailures: 5,
  failureRate: 0.5,
  minimumRequests: 10,
  windowMs: 10_000,
  openMs: 30_000,
  halfOpenProbes: 1,
  statusCodes: Object.freeze([500, 502, 503, 504]),
  timeouts: true,
  maxCircuits: 1000
})

const WHO = 'circuitBreaker()'
const SHOWN_WITH_ITEMS: OptionFailure = Object.freeze({ show: describeValueWithItems })

function integer (name: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    failOption(WHO, name, min === 0 ? 'a non-negative integer' : 'a positive integer', value)
  }
  return value
}

function duration (name: string, value: unknown): number {
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_MS) {
    failOption(WHO, name, `a positive number of milliseconds up to ${MAX_TIMER_MS}`, value)
  }
  return value
}

/** Fills in the defaults and validates every option; throws an `InvalidArgumentError` naming the bad value. */
export function resolveCircuitBreakerOptions (options: CircuitBreakerOptions | null | undefined): ResolvedCircuitBreakerOptions {
  const o = options ?? {}
  if (typeof o !== 'object' || Array.isArray(o)) failOption(WHO, 'options', 'an object', o)
  const d = CIRCUIT_BREAKER_DEFAULTS
  const key: unknown = o.key
  if (key !== undefined && typeof key !== 'function') failOption(WHO, 'key', 'a function (opts) => string', key)
  const failureRate: unknown = o.failureRate ?? d.failureRate
  if (typeof failureRate !== 'number' || !(failureRate > 0 && failureRate <= 1)) failOption(WHO, 'failureRate', 'a number above 0 and at most 1', failureRate)
  const statusCodes: unknown = o.statusCodes ?? d.statusCodes
  if (!Array.isArray(statusCodes) || !statusCodes.every((s) => Number.isInteger(s) && s >= 100 && s <= 599)) {
    failOption(WHO, 'statusCodes', 'an array of status codes (100-599)', statusCodes, SHOWN_WITH_ITEMS)
  }
  const errorCodes: unknown = o.errorCodes
  if (errorCodes !== undefined && (!Array.isArray(errorCodes) || !errorCodes.every((c) => typeof c === 'string' && c.length > 0))) {
    failOption(WHO, 'errorCodes', 'an array of error code strings', errorCodes, SHOWN_WITH_ITEMS)
  }
  const timeouts: unknown = o.timeouts ?? d.timeouts
  if (typeof timeouts !== 'boolean') failOption(WHO, 'timeouts', 'a boolean', timeouts)
  return Object.freeze({
    key: key as ResolvedCircuitBreakerOptions['key'],
    consecutiveFailures: integer('consecutiveFailures', o.consecutiveFailures ?? d.consecutiveFailures, 0),
    failureRate,
    minimumRequests: integer('minimumRequests', o.minimumRequests ?? d.minimumRequests, 1),
    windowMs: duration('windowMs', o.windowMs ?? d.windowMs),
    openMs: duration('openMs', o.openMs ?? d.openMs),
    halfOpenProbes: integer('halfOpenProbes', o.halfOpenProbes ?? d.halfOpenProbes, 1),
    statusCodes: new Set(statusCodes as number[]),
    errorCodes: errorCodes === undefined ? undefined : new Set((errorCodes as string[]).map(fromUndiciCode)),
    timeouts,
    maxCircuits: integer('maxCircuits', o.maxCircuits ?? d.maxCircuits, 1)
  })
}
