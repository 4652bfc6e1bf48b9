/**
 * The `Cache-Status` response header (RFC 9211): how this cache handled the request, appended
 * after any entries of caches closer to the origin.
 * @module
 */

import type { IncomingHeaders } from '../../src/handler.js'
import { CACHE_STATUS_NAME } from './options.js'

/** Why a request went to the origin: the `fwd` parameter of its `cache-status` entry. */
export type OriginReason = NonNullable<CacheStatus['fwd']>

/** One `cache-status` entry's parameters (RFC 9211 §2). */
export interface CacheStatus {
  /** Served from the cache without going to the origin. */
  hit?: boolean
  /** Why the request went to the origin. */
  fwd?: 'miss' | 'uri-miss' | 'vary-miss' | 'request' | 'stale' | 'bypass'
  /** Status of the origin's answer when forwarded. */
  fwdStatus?: number
  /** Remaining freshness in seconds (negative when stale). */
  ttl?: number
  /** The response was stored (or its stored headers were updated). */
  stored?: boolean
  /** Free-form extra detail, e.g. `stale-while-revalidate`. */
  detail?: string
}

/** Serializes one entry, e.g. `conduit; hit; ttl=42` or `conduit; fwd=miss; stored`; `ttl` overrides `status.ttl`. */
export function formatCacheStatus (status: CacheStatus, ttl: number | undefined = status.ttl): string {
  let text = CACHE_STATUS_NAME
  if (status.hit === true) text += '; hit'
  if (status.fwd !== undefined) text += `; fwd=${status.fwd}`
  if (status.fwdStatus !== undefined) text += `; fwd-status=${status.fwdStatus}`
  if (ttl !== undefined) text += `; ttl=${Math.floor(ttl)}`
  if (status.stored === true) text += '; stored'
  if (status.detail !== undefined) text += `; detail=${status.detail}`
  return text
}

/** The `cache-status` value with this cache's entry after the `existing` entries, if any; `ttl` overrides `status.ttl`. */
export function appendCacheStatus (existing: string | string[] | undefined, status: CacheStatus, ttl: number | undefined = status.ttl): string {
  const entry = formatCacheStatus(status, ttl)
  return existing === undefined ? entry : `${Array.isArray(existing) ? existing.join(', ') : existing}, ${entry}`
}

/** A copy of `headers` with this cache's entry appended to `cache-status`. */
export function withCacheStatus (headers: IncomingHeaders, status: CacheStatus): IncomingHeaders {
  return { ...headers, 'cache-status': appendCacheStatus(headers['cache-status'], status) }
}
