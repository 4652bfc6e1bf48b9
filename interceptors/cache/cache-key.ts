/**
 * The cache key of a dispatch: normalized origin, path with query, and lower-case request headers
 * (the request's identity itself is in `interceptors/request-identity.ts`, shared with deduplication).
 * @module
 */

import { InvalidArgumentError, describeValue } from '../../src/handler.js'
import type { CacheKey, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import { normalizeOrigin, pathWithQuery } from '../request-identity.js'

/** True when `origins` is unset or one of its entries matches `origin` (see the `origins` cache option). */
export function originAllowed (origins: ReadonlyArray<string | RegExp> | undefined, origin: string | URL): boolean {
  if (origins === undefined) return true
  const given = String(origin).toLowerCase()
  const normalized = normalizeOrigin(origin)
  return origins.some((allowed) => typeof allowed === 'string' ? allowed === given || allowed === normalized : allowed.test(given))
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
