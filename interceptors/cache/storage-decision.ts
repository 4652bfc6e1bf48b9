/**
 * Whether a response may be stored (RFC 9111 §3), and the CacheValue to store it as.
 * @module
 */

import type { CacheControlDirectives, CacheValue, IncomingHeaders } from '../../src/handler.js'
import { HEURISTICALLY_CACHEABLE, freshnessLifetime, initialAge } from './freshness.js'
import { parseCacheControl } from './parse-cache-control.js'
import { parseVary, varyValues } from './vary.js'
import { parseHttpDate } from './http-date.js'
import { firstHeaderValue } from './header-value.js'
import { trimOws } from '../../src/handler.js'

/**
 * How long a response is kept once stale (seconds) unless stale-while-revalidate or
 * stale-if-error ask for longer: it can still be revalidated, or served under max-stale or
 * `cacheMode: 'force-cache'`. Stores evict by `deleteAt`, and memory stores by size, anyway.
 */
export const STALE_RETENTION_SECONDS = 86_400

/** Status codes whose semantics this cache understands, for `must-understand` (RFC 9111 §5.2.2.3). */
const UNDERSTOOD_STATUS = new Set([200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501])

/** Hop-by-hop fields (RFC 9110 §7.6.1) and fields meant for one proxy only, never stored (RFC 9111 §3.1). */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authentication-info', 'proxy-authorization', 'trailer']

/** Directives that only make sense in requests, dropped from what is stored. */
const REQUEST_ONLY = ['max-stale', 'min-fresh', 'only-if-cached'] as const

/** Everything the storage decision looks at. */
export interface StorageInput {
  statusCode: number
  statusMessage: string
  headers: IncomingHeaders
  /** Normalized (lower-case) request headers. */
  requestHeaders: IncomingHeaders
  shared: boolean
  cacheByDefault: number | undefined
  /** When the request was sent and when the response head arrived (ms since the epoch). */
  requestTime: number
  responseTime: number
}

/** Either the value to store, with a line for the log, or why the response is not stored. */
export type StorageDecision =
  | { store: true, value: CacheValue, explanation: string }
  | { store: false, reason: string }

/** True when `private="..."` or `no-cache="..."` names the field, so a shared cache stores the response without it. */
function withholds (directives: CacheControlDirectives, name: string): boolean {
  const { private: privateFields, 'no-cache': noCacheFields } = directives
  return (Array.isArray(privateFields) && privateFields.includes(name)) || (Array.isArray(noCacheFields) && noCacheFields.includes(name))
}

/** Response headers as stored: hop-by-hop fields and fields the directives withhold removed. */
function storedHeaders (headers: IncomingHeaders, directives: CacheControlDirectives, shared: boolean, age: number): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  const drop = new Set(HOP_BY_HOP)
  const connection = headers.connection
  for (const value of Array.isArray(connection) ? connection : connection === undefined ? [] : [connection]) {
    for (const name of value.split(',')) drop.add(trimOws(name).toLowerCase())
  }
  // §5.2.2.4 / §5.2.2.7: the listed fields must not be reused without revalidation, or (private,
  // shared caches) must not be stored at all; leaving them out satisfies both.
  if (Array.isArray(directives['no-cache'])) for (const name of directives['no-cache']) drop.add(name)
  if (shared && Array.isArray(directives.private)) for (const name of directives.private) drop.add(name)
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (!drop.has(name) && value !== undefined) out[name] = Array.isArray(value) ? [...value] : value
  }
  // The age on arrival is kept as the Age field, so age = stored Age + time in cache (§4.2.3).
  delete out.age
  if (age >= 1) out.age = String(Math.floor(age))
  return out
}

/** Decides whether the response may be stored and builds its CacheValue (RFC 9111 §3, §3.5, §4.2). */
export function decideStorage (input: StorageInput): StorageDecision {
  const { statusCode, headers, shared } = input
  if (statusCode === 206) return { store: false, reason: 'partial content (206) is never stored' }
  if (statusCode === 304) return { store: false, reason: 'a 304 only updates a stored response' }
  if (statusCode < 200) return { store: false, reason: `status ${statusCode} is not final` }
  const directives = parseCacheControl(headers['cache-control'])
  if (directives['must-understand'] === true && !UNDERSTOOD_STATUS.has(statusCode)) {
    return { store: false, reason: `must-understand with status ${statusCode}, which this cache does not understand` }
  }
  if (directives['no-store'] === true && directives['must-understand'] !== true) return { store: false, reason: 'the response said no-store' }
  if (shared && directives.private === true) return { store: false, reason: 'the response is private and this cache is shared' }
  if (shared && input.requestHeaders.authorization !== undefined) {
    // §3.5. An s-maxage of 0 (or an invalid one, read as 0) grants nothing a shared cache could
    // reuse without asking; undici reads it the same way.
    if (directives.public !== true && directives['must-revalidate'] !== true && (directives['s-maxage'] ?? 0) === 0) {
      return { store: false, reason: 'the request carried Authorization and the response allows no shared caching (public, must-revalidate or s-maxage)' }
    }
    if (withholds(directives, 'authorization')) return { store: false, reason: 'the request carried Authorization and the response keeps it private' }
  }
  if (shared && headers['set-cookie'] !== undefined && !withholds(directives, 'set-cookie')) {
    return { store: false, reason: 'the response sets a cookie and this cache is shared' }
  }
  const vary = parseVary(headers.vary)
  if (vary === '*') return { store: false, reason: 'Vary: * matches no later request' }

  const lifetime = freshnessLifetime({ statusCode, headers, directives, shared, responseTime: input.responseTime, cacheByDefault: input.cacheByDefault })
  const explicit = lifetime.source === 's-maxage' || lifetime.source === 'max-age' || lifetime.source === 'expires'
  // §3: without explicit freshness a response is storable only when public, private in a
  // private cache, or of a status that is cacheable by heuristic.
  if (!explicit && directives.public !== true && !(!shared && directives.private !== undefined) && !HEURISTICALLY_CACHEABLE.has(statusCode)) {
    return { store: false, reason: `status ${statusCode} has no explicit freshness and is not cacheable by heuristic` }
  }

  const age = initialAge(headers, input.requestTime, input.responseTime)
  const etag = typeof headers.etag === 'string' ? headers.etag : undefined
  // A Date serves as the validator of last resort: revalidation sends it as If-Modified-Since.
  const hasValidator = etag !== undefined || headers['last-modified'] !== undefined || parseHttpDate(firstHeaderValue(headers.date)) !== undefined
  const freshFor = directives['no-cache'] === true ? 0 : Math.max(0, lifetime.seconds - age)
  const swr = directives['stale-while-revalidate'] ?? 0
  const sie = directives['stale-if-error'] ?? 0
  if (freshFor === 0 && !hasValidator && swr === 0 && sie === 0) {
    return { store: false, reason: `stale on arrival (${lifetime.source}, age ${Math.floor(age)}s) and without a validator or Date to revalidate it` }
  }

  const cachedAt = input.responseTime
  const staleAt = cachedAt + freshFor * 1000
  const deleteAt = staleAt + Math.max(swr, sie, STALE_RETENTION_SECONDS) * 1000
  const stored: CacheControlDirectives = { ...directives }
  for (const name of REQUEST_ONLY) delete stored[name]
  const value: CacheValue = {
    statusCode,
    statusMessage: input.statusMessage,
    headers: storedHeaders(headers, directives, shared, age),
    vary: varyValues(vary, input.requestHeaders),
    etag,
    cacheControlDirectives: Object.keys(stored).length === 0 ? undefined : stored,
    cachedAt,
    staleAt,
    deleteAt
  }
  return { store: true, value, explanation: `fresh for ${Math.round(freshFor)}s (${lifetime.source}${directives['no-cache'] === true ? ', no-cache: revalidated on every use' : ''})` }
}
