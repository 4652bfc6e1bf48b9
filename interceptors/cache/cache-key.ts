/**
 * The cache key of a dispatch: normalized origin, path with query, and lower-case request headers.
 * @module
 */

import { InvalidArgumentError, describeValue } from '../../src/handler.js'
import type { CacheKey, DispatchOptions, IncomingHeaders } from '../../src/handler.js'

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

/** True when `origins` is unset or one of its entries matches `origin` (see the `origins` cache option). */
export function originAllowed (origins: ReadonlyArray<string | RegExp> | undefined, origin: string | URL): boolean {
  if (origins === undefined) return true
  const given = String(origin).toLowerCase()
  const normalized = normalizeOrigin(origin)
  return origins.some((allowed) => typeof allowed === 'string' ? allowed === given || allowed === normalized : allowed.test(given))
}

/** The path with the `query` dispatch option appended, as the transport would send it. */
export function pathWithQuery (opts: DispatchOptions): string {
  const query = opts.query
  if (query === undefined || query === null || Object.keys(query).length === 0) return opts.path
  const search = new URLSearchParams(query as Record<string, string>).toString()
  return `${opts.path}${opts.path.includes('?') ? '&' : '?'}${search}`
}

/** The key stores see for a dispatch; `headers` must already be normalized. */
export function makeCacheKey (opts: DispatchOptions, headers: IncomingHeaders): CacheKey {
  return { origin: normalizeOrigin(opts.origin), method: opts.method, path: pathWithQuery(opts), headers }
}

/**
 * The key a request is stored under: the one the cache makes, passed through the `cacheKey`
 * option when set. Throws {@link InvalidArgumentError}
 * naming the value when the hook returns something that is not a key.
 */
export function requestCacheKey (hook: ((key: CacheKey, opts: DispatchOptions) => CacheKey) | undefined, opts: DispatchOptions, headers: IncomingHeaders): CacheKey {
  const key = makeCacheKey(opts, headers)
  if (hook === undefined) return key
  const custom: unknown = hook(key, opts)
  const fields = typeof custom === 'object' && custom !== null ? custom as Record<string, unknown> : undefined
  if (fields === undefined || typeof fields.origin !== 'string' || typeof fields.method !== 'string' || typeof fields.path !== 'string') {
    throw new InvalidArgumentError(`cache(): cacheKey must return an object with string origin, method and path, got ${describeValue(custom)}`)
  }
  return custom as CacheKey
}
