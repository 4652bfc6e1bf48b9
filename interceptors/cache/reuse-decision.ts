/**
 * Whether a stored response may be served for a request (RFC 9111 §4, §4.2.4, RFC 5861,
 * RFC 8246), must be revalidated first, or cannot be used at all.
 * @module
 */

import type { CacheValue } from '../../src/handler.js'
import { currentAge } from './freshness.js'
import type { RequestPolicy } from './request-policy.js'

/** What to do with a stored response. */
export type Reuse =
  | { action: 'hit', reason: string }
  | { action: 'stale-while-revalidate', reason: string }
  | { action: 'revalidate', originReason: 'stale' | 'request', reason: string, staleIfErrorUntil: number | undefined, mustRevalidate?: MustRevalidate | undefined }
  | { action: 'gateway-timeout', reason: string }

/** The directive that forbids serving a stale response when the origin cannot be reached. */
export type MustRevalidate = 'must-revalidate' | 'proxy-revalidate' | 's-maxage' | 'no-cache'

/** Which directive, if any, makes a stale `value` unusable without the origin in this kind of cache. */
export function mustRevalidateReason (d: NonNullable<CacheValue['cacheControlDirectives']>, shared: boolean): MustRevalidate | undefined {
  if (d['no-cache'] === true) return 'no-cache'
  if (d['must-revalidate'] === true) return 'must-revalidate'
  if (shared && d['proxy-revalidate'] === true) return 'proxy-revalidate'
  if (shared && d['s-maxage'] !== undefined) return 's-maxage'
  return undefined
}

/** Age and remaining freshness of a stored response, in seconds. */
export interface Timing {
  age: number
  /** Seconds until stale; negative once stale. */
  ttl: number
}

/** The age and remaining freshness of `value` at `now`. */
export function timing (value: CacheValue, now: number): Timing {
  return { age: currentAge(value, now), ttl: (value.staleAt - now) / 1000 }
}

/** Decides how to use the stored `value` for a request with `policy` in a shared or private cache. */
export function decideReuse (value: CacheValue, policy: RequestPolicy, shared: boolean, now: number): Reuse {
  const d = value.cacheControlDirectives ?? {}
  const { age, ttl } = timing(value, now)
  if (policy.anyStale) return { action: 'hit', reason: 'cacheMode accepts any stored response' }

  const alwaysRevalidate = d['no-cache'] === true
  const fresh = ttl > 0 && !alwaysRevalidate
  // §5.2.2.2, §5.2.2.8, §5.2.2.10: once stale, these forbid reuse without successful validation.
  const mustRevalidate = mustRevalidateReason(d, shared)
  const strict = mustRevalidate !== undefined && mustRevalidate !== 'no-cache'
  let staleIfErrorUntil: number | undefined
  if (!strict && !alwaysRevalidate) {
    const window = Math.max(d['stale-if-error'] ?? -1, policy.staleIfError ?? -1)
    if (window >= 0) staleIfErrorUntil = value.staleAt + window * 1000
  }

  if (fresh) {
    // RFC 8246: an immutable response is not revalidated while fresh, even on a reload.
    const requestMayForce = !(d.immutable === true && (policy.noCacheFromHeaders || !policy.noCache))
    if (requestMayForce && policy.noCache) return { action: 'revalidate', originReason: 'request', reason: 'the request asked for no-cache', staleIfErrorUntil }
    // Ages are known to the second at best, so max-age=0 (what a reload sends) always revalidates.
    if (requestMayForce && policy.maxAge !== undefined && (policy.maxAge === 0 || age > policy.maxAge)) {
      return { action: 'revalidate', originReason: 'request', reason: `age ${Math.floor(age)}s exceeds the request's max-age=${policy.maxAge}`, staleIfErrorUntil }
    }
    if (policy.minFresh !== undefined && ttl < policy.minFresh) {
      return { action: 'revalidate', originReason: 'request', reason: `fresh for ${Math.floor(ttl)}s, less than the request's min-fresh=${policy.minFresh}`, staleIfErrorUntil }
    }
    return { action: 'hit', reason: `fresh for ${Math.floor(ttl)}s` }
  }

  if (!strict && !alwaysRevalidate && !policy.noCache) {
    const staleness = -ttl
    if (policy.maxStale !== undefined && staleness <= policy.maxStale && (policy.maxAge === undefined || age <= policy.maxAge)) {
      return { action: 'hit', reason: `stale by ${Math.ceil(staleness)}s, within the request's max-stale` }
    }
    const swr = d['stale-while-revalidate']
    if (swr !== undefined && staleness <= swr && !policy.onlyIfCached) {
      return { action: 'stale-while-revalidate', reason: `stale by ${Math.ceil(staleness)}s, within stale-while-revalidate=${swr}` }
    }
  }
  if (policy.onlyIfCached) return { action: 'gateway-timeout', reason: 'only-if-cached and the stored response cannot be used without the origin' }
  if (alwaysRevalidate) return { action: 'revalidate', originReason: 'stale', reason: 'the response said no-cache', staleIfErrorUntil, mustRevalidate }
  return { action: 'revalidate', originReason: 'stale', reason: `stale by ${Math.ceil(-ttl)}s${strict ? ' and must be revalidated' : ''}`, staleIfErrorUntil, mustRevalidate }
}
