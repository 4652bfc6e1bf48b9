/**
 * What the request allows the cache to do: its `Cache-Control` directives (RFC 9111 §5.2.1),
 * `Pragma: no-cache` (§5.4) and the `cacheMode` dispatch option, folded into one policy.
 * @module
 */

import type { IncomingHeaders } from '../../src/handler.js'
import type { CacheMode } from './options.js'
import { parseCacheControl } from './parse-cache-control.js'
import { trimOws } from '../../src/handler.js'

/** The request's constraints on reusing and storing responses. */
export interface RequestPolicy {
  /** Neither read nor store (request `no-store`, mode `no-store`). */
  bypass: boolean
  /** Do not read; store the response (mode `reload`). */
  reload: boolean
  /** A stored response must be revalidated before use (request `no-cache`, mode `no-cache`). */
  noCache: boolean
  /** `noCache` came from the request headers (which `immutable` may override), not from the mode. */
  noCacheFromHeaders: boolean
  /** Largest acceptable age in seconds. */
  maxAge: number | undefined
  /** Acceptable staleness in seconds (`Infinity`: any). */
  maxStale: number | undefined
  /** Required remaining freshness in seconds. */
  minFresh: number | undefined
  /** Stale responses acceptable if the origin fails, in seconds (request stale-if-error). */
  staleIfError: number | undefined
  /** Answer from the cache or with a 504. */
  onlyIfCached: boolean
  /** Any stored response will do, however stale (modes `force-cache`, `only-if-cached`). */
  anyStale: boolean
}

function hasPragmaNoCache (pragma: string | string[] | undefined): boolean {
  if (pragma === undefined) return false
  const text = Array.isArray(pragma) ? pragma.join(',') : pragma
  return text.split(',').some((part) => trimOws(part).toLowerCase() === 'no-cache')
}

/** Builds the policy for one request from its normalized headers and cache mode. */
export function requestPolicy (headers: IncomingHeaders, mode: CacheMode): RequestPolicy {
  const cacheControl = headers['cache-control']
  const directives = parseCacheControl(cacheControl)
  // §5.4: Pragma counts only when the request has no Cache-Control at all.
  const pragmaNoCache = cacheControl === undefined && hasPragmaNoCache(headers.pragma)
  const headerNoCache = directives['no-cache'] !== undefined || pragmaNoCache
  return {
    bypass: mode === 'no-store' || directives['no-store'] === true,
    reload: mode === 'reload',
    noCache: headerNoCache || mode === 'no-cache',
    noCacheFromHeaders: headerNoCache && mode !== 'no-cache',
    maxAge: directives['max-age'],
    maxStale: directives['max-stale'],
    minFresh: directives['min-fresh'],
    staleIfError: directives['stale-if-error'],
    onlyIfCached: mode === 'only-if-cached' || directives['only-if-cached'] === true,
    anyStale: mode === 'force-cache' || mode === 'only-if-cached'
  }
}
