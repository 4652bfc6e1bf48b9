/**
 * Evaluating a request's own `If-None-Match` / `If-Modified-Since` against a fresh stored
 * response (RFC 9111 §4.3.2), so the cache can answer `304 Not Modified` without the origin.
 * @module
 */

import type { CacheValue, IncomingHeaders } from '../../src/handler.js'
import { parseEntityTagList, weakMatch } from './entity-tags.js'
import { parseHttpDate } from './http-date.js'
import { firstHeaderValue } from './header-value.js'

/** Fields a 304 repeats from the full response (RFC 9110 §15.4.5). */
const NOT_MODIFIED_FIELDS = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary']

/** Preconditions the cache cannot evaluate itself: the origin answers those. */
export const ORIGIN_PRECONDITIONS = ['if-match', 'if-unmodified-since', 'if-range']

/** True when the request carries `If-None-Match` or `If-Modified-Since`. */
export function hasCacheablePrecondition (headers: IncomingHeaders): boolean {
  return headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined
}

/**
 * True when the stored response satisfies the request's condition "not modified": an
 * `If-None-Match` tag that weakly matches its `ETag` (or `*`), otherwise, only when there is no
 * `If-None-Match` at all, a valid `If-Modified-Since` no earlier than its `Last-Modified` (or its
 * `Date`, or when it was stored). Any other case means the full stored response is served.
 */
export function notModified (requestHeaders: IncomingHeaders, stored: CacheValue): boolean {
  if (requestHeaders['if-none-match'] !== undefined) {
    const tags = parseEntityTagList(requestHeaders['if-none-match'])
    if (tags === '*') return true
    const etag = stored.etag
    return etag !== undefined && tags.some((tag) => weakMatch(tag, etag))
  }
  const since = parseHttpDate(firstHeaderValue(requestHeaders['if-modified-since']))
  if (since === undefined) return false
  const modified = parseHttpDate(firstHeaderValue(stored.headers['last-modified'])) ?? parseHttpDate(firstHeaderValue(stored.headers.date)) ?? stored.cachedAt
  return modified <= since
}

/** The header fields of a 304 generated from a stored response. */
export function notModifiedHeaders (stored: CacheValue): IncomingHeaders {
  const out: IncomingHeaders = {}
  for (const name of NOT_MODIFIED_FIELDS) {
    const value = stored.headers[name]
    if (value !== undefined) out[name] = value
  }
  // Without an ETag, Last-Modified is what lets the client's own cache update its copy.
  if (out.etag === undefined && stored.headers['last-modified'] !== undefined) out['last-modified'] = stored.headers['last-modified']
  return out
}
