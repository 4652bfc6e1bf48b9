/**
 * Freshness and age (RFC 9111 §4.2): how long a response stays fresh, how old it is on arrival,
 * and how old a stored response is now.
 * @module
 */

import type { CacheControlDirectives, CacheValue, IncomingHeaders } from '../../src/handler.js'
import { parseAge } from './delta-seconds.js'
import { parseHttpDate } from './http-date.js'
import { firstHeaderValue } from './header-value.js'

/** Status codes cacheable by heuristic freshness (RFC 9110 §15.1), less 206 which is never stored. */
export const HEURISTICALLY_CACHEABLE = new Set([200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])

/** RFC 9111 §4.2.2: a heuristic lifetime of 10% of the time since Last-Modified is typical. */
export const HEURISTIC_FRACTION = 0.1

/** Upper bound of a heuristic lifetime, so an ancient Last-Modified cannot pin a response for months. */
export const MAX_HEURISTIC_SECONDS = 86_400

/** Where a lifetime came from, for the debug log. */
export type FreshnessSource = 's-maxage' | 'max-age' | 'expires' | 'heuristic' | 'cacheByDefault' | 'none'

/** What {@link freshnessLifetime} needs to know about a response. */
export interface FreshnessInput {
  statusCode: number
  headers: IncomingHeaders
  directives: CacheControlDirectives
  shared: boolean
  /** When the response arrived (ms since the epoch). */
  responseTime: number
  /** Lifetime in seconds for responses with no explicit or heuristic one; undefined: none. */
  cacheByDefault: number | undefined
}

/** The freshness lifetime in seconds (RFC 9111 §4.2.1) and where it came from. */
export function freshnessLifetime (input: FreshnessInput): { seconds: number, source: FreshnessSource } {
  const { directives, headers, shared } = input
  if (shared && directives['s-maxage'] !== undefined) return { seconds: directives['s-maxage'], source: 's-maxage' }
  if (directives['max-age'] !== undefined) return { seconds: directives['max-age'], source: 'max-age' }
  if (headers.expires !== undefined) {
    // §5.3: an invalid Expires (such as "0") means already expired. Multiple values: use the first.
    const expires = parseHttpDate(firstHeaderValue(headers.expires))
    if (expires === undefined) return { seconds: 0, source: 'expires' }
    const date = parseHttpDate(firstHeaderValue(headers.date)) ?? input.responseTime
    return { seconds: Math.max(0, (expires - date) / 1000), source: 'expires' }
  }
  if (HEURISTICALLY_CACHEABLE.has(input.statusCode) || directives.public === true) {
    const lastModified = parseHttpDate(firstHeaderValue(headers['last-modified']))
    if (lastModified !== undefined) {
      const date = parseHttpDate(firstHeaderValue(headers.date)) ?? input.responseTime
      if (date > lastModified) {
        return { seconds: Math.min(MAX_HEURISTIC_SECONDS, Math.floor((date - lastModified) / 1000 * HEURISTIC_FRACTION)), source: 'heuristic' }
      }
    }
    if (input.cacheByDefault !== undefined) return { seconds: input.cacheByDefault, source: 'cacheByDefault' }
  }
  return { seconds: 0, source: 'none' }
}

/**
 * The corrected initial age in seconds (RFC 9111 §4.2.3): the larger of what the Date header
 * implies and the Age header plus the time the response took to arrive.
 */
export function initialAge (headers: IncomingHeaders, requestTime: number, responseTime: number): number {
  const date = parseHttpDate(firstHeaderValue(headers.date))
  const apparentAge = date === undefined ? 0 : Math.max(0, (responseTime - date) / 1000)
  const ageValue = parseAge(headers.age) ?? 0
  const responseDelay = Math.max(0, (responseTime - requestTime) / 1000)
  return Math.max(apparentAge, ageValue + responseDelay)
}

/**
 * The current age in seconds of a stored response: its age when stored (kept in its `age`
 * header) plus the time it has spent in the cache.
 */
export function currentAge (value: CacheValue, now: number): number {
  const stored = firstHeaderValue(value.headers.age)
  const initial = stored !== undefined && /^\d+$/.test(stored) ? Number(stored) : 0
  return initial + Math.max(0, (now - value.cachedAt) / 1000)
}
