/**
 * Vary selection shared by the stores: a stored response is selected for a request only when every
 * header named in its `vary` map has the same value in the request, and a `null` value means the
 * header was absent from the original request (so it must be absent now too).
 * @module
 */

import type { CacheKey, CacheValue } from '../src/contracts/cache-store.js'

function sameValue (stored: string | string[], current: string | string[]): boolean {
  if (Array.isArray(stored) || Array.isArray(current)) {
    const a = Array.isArray(stored) ? stored : [stored]
    const b = Array.isArray(current) ? current : [current]
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
    return true
  }
  return stored === current
}

/**
 * True when the request headers of `key` select a response stored with this `vary` map.
 * Header names in both are lower-case (the interceptor normalizes them before any store sees them).
 */
export function varyMatches (vary: CacheValue['vary'], headers: CacheKey['headers']): boolean {
  if (vary == null) return true
  for (const name of Object.keys(vary)) {
    const stored = vary[name]
    const current = headers?.[name]
    if (stored === null || stored === undefined) {
      if (current !== undefined) return false
    } else if (current === undefined || !sameValue(stored, current)) {
      return false
    }
  }
  return true
}

/** The store-level identity of a URL: origin plus path (with query). */
export function urlOf (key: CacheKey): string {
  return `${key.origin}${key.path}`
}
