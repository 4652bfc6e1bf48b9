/**
 * Rate limit options: the public type, the defaults (one place), and their validation.
 * @module
 */

import { failOption, MAX_TIMER_MS } from '../../src/handler.js'
import type { DispatchOptions } from '../../src/handler.js'

/** Options of `interceptors.rateLimit()`. */
export interface RateLimitOptions {
  /**
   * Requests per second per key (the token bucket's refill rate). Without it, only
   * `maxConcurrent` and what the server says limit the pace.
   * @defaultValue none
   */
  rate?: number | undefined
  /**
   * Requests that may go at once after a quiet spell (the token bucket's size).
   * @defaultValue `rate` rounded up, at least 1
   */
  burst?: number | undefined
  /**
   * Requests in flight per key at most.
   * @defaultValue no cap
   */
  maxConcurrent?: number | undefined
  /**
   * Requests a key may hold waiting; past it a request fails at once with `RateLimitQueueFullError`.
   * @defaultValue `1000`
   */
  maxQueued?: number | undefined
  /**
   * Follow what the server says: a `429` or `503` with `Retry-After` holds the key's requests until
   * then; `RateLimit` (requests left, seconds to reset) holds them once none are left;
   * `RateLimit-Policy` (quota per window) paces them when `rate` is not set.
   * @defaultValue `true`
   */
  adaptive?: boolean | undefined
  /**
   * The longest a server's answer may hold a key's requests, in milliseconds.
   * @defaultValue `60000`
   */
  maxPauseMs?: number | undefined
  /**
   * Which limiter a request belongs to.
   * @defaultValue the request's origin
   */
  key?: ((opts: DispatchOptions) => string) | undefined
}

/** {@link RateLimitOptions} with the defaults filled in. */
export interface ResolvedRateLimitOptions {
  /** See {@link RateLimitOptions.rate}. */
  readonly rate: number | undefined
  /** See {@link RateLimitOptions.burst}. */
  readonly burst: number
  /** See {@link RateLimitOptions.maxConcurrent}. */
  readonly maxConcurrent: number
  /** See {@link RateLimitOptions.maxQueued}. */
  readonly maxQueued: number
  /** See {@link RateLimitOptions.adaptive}. */
  readonly adaptive: boolean
  /** See {@link RateLimitOptions.maxPauseMs}. */
  readonly maxPauseMs: number
  /** See {@link RateLimitOptions.key}. */
  readonly key: ((opts: DispatchOptions) => string) | undefined
}

/** The documented rate limit defaults. */
export const RATE_LIMIT_DEFAULTS = Object.freeze({ maxQueued: 1000, adaptive: true, maxPauseMs: 60_000 })

const WHO = 'rateLimit()'

function positiveInteger (name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) failOption(WHO, name, 'a positive integer', value)
  return value
}

/** Fills in the defaults and validates every option; throws an `InvalidArgumentError` naming the bad value. */
export function resolveRateLimitOptions (options: RateLimitOptions | null | undefined): ResolvedRateLimitOptions {
  const o = options ?? {}
  if (typeof o !== 'object' || Array.isArray(o)) failOption(WHO, 'options', 'an object', o)
  const rate: unknown = o.rate
  if (rate !== undefined && (typeof rate !== 'number' || !(rate > 0) || !Number.isFinite(rate))) failOption(WHO, 'rate', 'a positive number of requests per second', rate)
  const adaptive: unknown = o.adaptive ?? RATE_LIMIT_DEFAULTS.adaptive
  if (typeof adaptive !== 'boolean') failOption(WHO, 'adaptive', 'a boolean', adaptive)
  const maxPauseMs: unknown = o.maxPauseMs ?? RATE_LIMIT_DEFAULTS.maxPauseMs
  if (typeof maxPauseMs !== 'number' || !(maxPauseMs > 0) || maxPauseMs > MAX_TIMER_MS) failOption(WHO, 'maxPauseMs', `a positive number of milliseconds up to ${MAX_TIMER_MS}`, maxPauseMs)
  const key: unknown = o.key
  if (key !== undefined && typeof key !== 'function') failOption(WHO, 'key', 'a function (opts) => string', key)
  return Object.freeze({
    rate: rate as number | undefined,
    burst: positiveInteger('burst', o.burst ?? Math.max(1, Math.ceil((rate as number | undefined) ?? 1))),
    maxConcurrent: o.maxConcurrent === undefined ? Infinity : positiveInteger('maxConcurrent', o.maxConcurrent),
    maxQueued: positiveInteger('maxQueued', o.maxQueued ?? RATE_LIMIT_DEFAULTS.maxQueued),
    adaptive,
    maxPauseMs,
    key: key as ResolvedRateLimitOptions['key']
  })
}
