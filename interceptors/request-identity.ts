/**
 * What identifies the request an interceptor keys by: its normalized origin, the `Host` that
 * names another authority than that origin, its path with the query, and whether its method is
 * safe. Shared by the cache, deduplication, the circuit breaker and the rate limiter, so each
 * keys a request the same way.
 * @module
 */

import { InvalidArgumentError } from '../src/handler.js'
import type { DispatchOptions } from '../src/handler.js'

/** The safe methods (RFC 9110 §9.2.1): the only ones whose responses may be cached or shared. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

// Origins repeat endlessly; parsing each once keeps URL parsing off the hot path.
const originCache = new Map<string, string>()
const ORIGIN_CACHE_LIMIT = 1000

/**
 * `scheme://host[:port]` in lower case without a default port, as the URL Standard serializes
 * it. An origin that is not a URL (a Client is happy with `'localhost'`) is keyed as given, as undici does.
 */
export function normalizeOrigin (origin: string | URL | undefined): string {
  if (origin === undefined) throw new InvalidArgumentError('cache(): the request has no origin')
  if (typeof origin !== 'string') return origin.origin
  let normalized = originCache.get(origin)
  if (normalized === undefined) {
    try {
      normalized = new URL(origin).origin
    } catch {
      normalized = origin
    }
    // Schemes without an origin (URL gives 'null') would all share one key.
    if (normalized === 'null') normalized = origin
    if (originCache.size >= ORIGIN_CACHE_LIMIT) originCache.clear()
    originCache.set(origin, normalized)
  }
  return normalized
}

// The authority (`host[:port]`, default port dropped) of each origin seen with a Host header.
const authorityCache = new Map<string, string | null>()

function authorityOf (origin: string | URL): string | null {
  if (typeof origin !== 'string') return origin.host.toLowerCase()
  let authority = authorityCache.get(origin)
  if (authority === undefined) {
    try {
      authority = new URL(origin).host.toLowerCase()
    } catch {
      authority = null
    }
    if (authorityCache.size >= ORIGIN_CACHE_LIMIT) authorityCache.clear()
    authorityCache.set(origin, authority)
  }
  return authority === '' ? null : authority
}

/** The request's own `Host` header value(s), found without normalizing every header (this runs per request). */
function hostHeader (headers: DispatchOptions['headers']): unknown {
  if (headers == null || typeof headers !== 'object') return undefined
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as unknown[][]) if (String(pair[0]).toLowerCase() === 'host') return pair[1]
      return undefined
    }
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === 'host') return headers[i + 1]
    return undefined
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) if (String(name).toLowerCase() === 'host') return value
    return undefined
  }
  const record = headers as Record<string, unknown>
  if ('host' in record) return record.host
  for (const name of Object.keys(record)) if (name.toLowerCase() === 'host') return record[name]
  return undefined
}

const BARE_AUTHORITY = /^[^/?#@\\\s,]+$/

/**
 * The `Host` a request carries when it names another authority than its origin, else undefined.
 * Such a request's effective request URI (RFC 9110 §7.1) is not the origin's URI: the server
 * at the origin answered for another host. Keying it under the origin would serve that answer to
 * plain requests for the origin (cache poisoning), and keying it under the Host would serve it to
 * requests that reach the real host. So the cache and deduplication leave such requests alone
 * (docs/cache.md, "Requests with their own Host"). The comparison ignores case and a default port.
 */
export function overriddenHost (opts: DispatchOptions): string | undefined {
  const host = hostHeader(opts.headers)
  if (host === undefined || opts.origin == null) return undefined
  const text = Array.isArray(host) ? host.map(String).join(', ') : String(host)
  const origin = authorityOf(opts.origin)
  // Anything beyond a bare authority (a path, user information, a list) is another authority by definition.
  if (origin === null || !BARE_AUTHORITY.test(text)) return text
  const protocol = typeof opts.origin === 'string' ? opts.origin.slice(0, opts.origin.indexOf(':') + 1) : opts.origin.protocol
  let given: string
  try {
    given = new URL(`${protocol}//${text}`).host.toLowerCase()
  } catch {
    return text
  }
  return given === origin ? undefined : text
}

/** The path with the `query` dispatch option appended, as the transport would send it. */
export function pathWithQuery (opts: DispatchOptions): string {
  const query = opts.query
  if (query === undefined || query === null || Object.keys(query).length === 0) return opts.path
  const search = new URLSearchParams(query as Record<string, string>).toString()
  return `${opts.path}${opts.path.includes('?') ? '&' : '?'}${search}`
}
