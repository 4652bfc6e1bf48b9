/**
 * Options of the cache interceptor, their defaults and their validation.
 * @module
 */

import { InvalidArgumentError, describeValue, failOption } from '../../src/handler.js'
import type { CacheKey, CacheStore, DispatchOptions } from '../../src/handler.js'
import { MemoryCacheStore } from '../../stores/memory-cache-store.js'
import { SAFE_METHODS } from '../request-identity.js'

/** Default of {@link CacheInterceptorOptions.methods}. */
export const DEFAULT_CACHE_METHODS: readonly string[] = ['GET']

/** The identifier this cache writes into `cache-status` (RFC 9211 §2). */
export const CACHE_STATUS_NAME = 'conduit'

/**
 * Per-request cache mode, given as the dispatch option `cacheMode` (fetch maps `init.cache`
 * onto it). The values and their meaning are the Fetch Standard's:
 * - `'default'`: normal HTTP caching.
 * - `'no-store'`: the cache is not read and the response is not stored.
 * - `'reload'`: the cache is not read; the response is stored.
 * - `'no-cache'`: a stored response is always revalidated with the origin first.
 * - `'force-cache'`: any stored response is used, however stale; on a miss the request goes out.
 * - `'only-if-cached'`: any stored response is used, however stale; on a miss the answer is a 504.
 */
export type CacheMode = 'default' | 'no-store' | 'reload' | 'no-cache' | 'force-cache' | 'only-if-cached'

/** Every {@link CacheMode}, to validate the dispatch option. */
export const CACHE_MODES: ReadonlySet<string> = new Set(['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'])

/** Options of `interceptors.cache()`; all optional. */
export interface CacheInterceptorOptions {
  /**
   * Where responses are stored: any object with `get`, `createWriteStream` and `delete`, sync or async.
   * @defaultValue a new `MemoryCacheStore()` per interceptor
   */
  store?: CacheStore | undefined
  /**
   * Methods whose responses are cached; safe methods only (GET, HEAD, OPTIONS, TRACE).
   * @defaultValue ['GET']
   */
  methods?: string[] | undefined
  /**
   * `'shared'` caches follow the rules for caches serving many users (s-maxage, private,
   * Authorization, Set-Cookie); `'private'` is a single user's cache, like a browser's.
   * @defaultValue 'shared'
   */
  type?: 'shared' | 'private' | undefined
  /**
   * Freshness lifetime in seconds for responses that have neither an explicit one
   * (max-age, Expires...) nor a heuristic one (Last-Modified). Undefined: such responses are
   * stored only when they carry a validator.
   * @defaultValue undefined
   */
  cacheByDefault?: number | undefined
  /**
   * Adds a `cache-status` response header (RFC 9211) saying how the cache handled the request.
   * @defaultValue true
   */
  cacheStatus?: boolean | undefined
  /**
   * Only requests to these origins take part in caching: a string matches an origin exactly
   * (any case, as the request gives it, or in its `scheme://host[:port]` form), a RegExp is tested
   * against the lower-cased origin. Other requests pass through untouched.
   * @defaultValue undefined: every origin
   */
  origins?: ReadonlyArray<string | RegExp> | undefined
  /**
   * Computes, per request, the key responses are stored and looked up under, from the key the
   * cache made (origin, method, path with query, lower-case request headers) and the dispatch
   * options; for example to drop tracking parameters from the path. It must return an object
   * with string `origin`, `method` and `path`.
   * @defaultValue undefined (the key the cache made)
   */
  cacheKey?: ((key: CacheKey, opts: DispatchOptions) => CacheKey) | undefined
  /**
   * Stores the response to a POST for later GET requests of the same URL when it has explicit
   * freshness (`max-age`, `s-maxage` in a shared cache, `Expires`) and a `Content-Location`
   * equal to the request target, as RFC 9110 §9.3.3 allows. POST requests themselves are never
   * answered from the cache.
   * @defaultValue false
   */
  cachePostResponses?: boolean | undefined
}

/** Options after defaults and validation. */
export interface ResolvedCacheOptions {
  store: CacheStore
  methods: ReadonlySet<string>
  shared: boolean
  cacheByDefault: number | undefined
  cacheStatus: boolean
  origins: ReadonlyArray<string | RegExp> | undefined
  cacheKey: ((key: CacheKey, opts: DispatchOptions) => CacheKey) | undefined
  cachePostResponses: boolean
}

/** Applies defaults and throws {@link InvalidArgumentError} naming the first bad option. */
export function resolveCacheOptions (options: CacheInterceptorOptions | undefined): ResolvedCacheOptions {
  if (options === undefined) options = {}
  if (typeof options !== 'object' || options === null) {
    failOption('cache()', 'options', 'an object', options)
  }
  const store = options.store ?? new MemoryCacheStore()
  for (const method of ['get', 'createWriteStream', 'delete'] as const) {
    if (typeof store !== 'object' || store === null || typeof (store as unknown as Record<string, unknown>)[method] !== 'function') {
      throw new InvalidArgumentError(`cache(): store must have a ${method}() method, got ${describeValue(store)}${typeof store === 'object' && store !== null ? ' without it' : ''}`)
    }
  }
  const methods = options.methods ?? DEFAULT_CACHE_METHODS
  if (!Array.isArray(methods)) failOption('cache()', 'methods', 'an array of method names', methods)
  for (const method of methods) {
    if (typeof method !== 'string' || !SAFE_METHODS.has(method)) {
      throw new InvalidArgumentError(`cache(): methods may only contain safe methods (GET, HEAD, OPTIONS, TRACE), got ${describeValue(method)}`)
    }
  }
  const type = options.type ?? 'shared'
  if (type !== 'shared' && type !== 'private') {
    failOption('cache()', 'type', `'shared' or 'private'`, type)
  }
  const cacheByDefault = options.cacheByDefault
  if (cacheByDefault !== undefined && (typeof cacheByDefault !== 'number' || !Number.isInteger(cacheByDefault) || cacheByDefault < 0)) {
    failOption('cache()', 'cacheByDefault', 'a non-negative integer (seconds)', cacheByDefault)
  }
  const cacheStatus = options.cacheStatus ?? true
  if (typeof cacheStatus !== 'boolean') {
    failOption('cache()', 'cacheStatus', 'a boolean', cacheStatus)
  }
  const origins = options.origins
  if (origins !== undefined) {
    if (!Array.isArray(origins)) failOption('cache()', 'origins', 'an array of strings and RegExps', origins)
    origins.forEach((origin: unknown, i: number) => {
      if (typeof origin !== 'string' && !(origin instanceof RegExp)) {
        failOption('cache()', `origins[${i}]`, 'a string or a RegExp', origin)
      }
    })
  }
  const cacheKey = options.cacheKey
  if (cacheKey !== undefined && typeof cacheKey !== 'function') {
    failOption('cache()', 'cacheKey', 'a function', cacheKey)
  }
  const cachePostResponses = options.cachePostResponses ?? false
  if (typeof cachePostResponses !== 'boolean') {
    failOption('cache()', 'cachePostResponses', 'a boolean', cachePostResponses)
  }
  return { store, methods: new Set(methods), shared: type === 'shared', cacheByDefault, cacheStatus, origins: origins?.map((o) => typeof o === 'string' ? o.toLowerCase() : o), cacheKey, cachePostResponses }
}

/** Reads and validates the `cacheMode` dispatch option; throws {@link InvalidArgumentError} on a bad value. */
export function readCacheMode (value: unknown): CacheMode {
  if (value === undefined || value === null) return 'default'
  if (typeof value !== 'string' || !CACHE_MODES.has(value)) {
    failOption('cache()', 'cacheMode', `one of ${[...CACHE_MODES].join(', ')}`, value)
  }
  return value as CacheMode
}
