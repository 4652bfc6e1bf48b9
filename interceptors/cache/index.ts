/**
 * `interceptors.cache()`: an RFC 9111 HTTP cache in front of any dispatcher. This file decides,
 * per request, whether the cache takes part; a request it reads for then walks the steps in
 * `steps/`: lookup, decide, then reply, send to the origin, or revalidate.
 * @module
 */

import { normalizeHeaders, showRequest } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { originAllowed, requestCacheKey } from './cache-key.js'
import { SAFE_METHODS, overriddenHost } from '../request-identity.js'
import { InvalidationHandler } from './invalidation-handler.js'
import { describeKey, log } from './log.js'
import { MissCoalescer } from './miss-coalescer.js'
import type { CacheInterceptorOptions, CacheMode } from './options.js'
import { readCacheMode, resolveCacheOptions } from './options.js'
import { PostResponseHandler } from './post-response-handler.js'
import { requestPolicy } from './request-policy.js'
import { ORIGIN_PRECONDITIONS, hasCacheablePrecondition } from './stored-preconditions.js'
import type { CacheLayer, CacheableRequest } from './steps/cache-layer.js'
import { storageContext } from './steps/cache-layer.js'
import { lookUp } from './steps/lookup.js'
import { answerRangeRequest } from './steps/ranged.js'
import { sendToOrigin, withHeadFreshening } from './steps/to-origin.js'

export type { CacheInterceptorOptions, CacheMode } from './options.js'
export { parseCacheControl } from './parse-cache-control.js'

declare module '../../src/handler.js' {
  interface DispatchOptions {
    /** The request's cache mode, read by the cache interceptor (fetch sets it from `init.cache`). */
    cacheMode?: CacheMode | undefined
  }
}

/**
 * Creates the cache interceptor (RFC 9111): responses to `methods` are stored in `store` when
 * the origin allows it and served from there while fresh; stale ones are revalidated with
 * conditional requests. Each response gets a `cache-status` header (RFC 9211) unless
 * `cacheStatus: false`. Per request, the dispatch option `cacheMode` (see {@link CacheMode})
 * selects the Fetch cache modes. Decisions are logged with `NODE_DEBUG=conduit:cache`.
 * @example
 * import { Agent, interceptors, cacheStores } from 'conduit'
 * const agent = new Agent().compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore(), type: 'private' }))
 * const { headers } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
 * console.log(headers['cache-status']) // conduit; fwd=miss; fwd-status=200; stored
 */
export function cache (options?: CacheInterceptorOptions): Interceptor {
  const config = resolveCacheOptions(options)
  // Shared by every dispatch this interceptor is composed onto: one background revalidation per
  // stored URL and method at a time, and one request per URL on its way to fill a miss.
  const refreshing = new Set<string>()
  const coalescer = new MissCoalescer()

  return (dispatch: Dispatch): Dispatch => {
    const layer: CacheLayer = { config, dispatch, refreshing, coalescer }
    return (opts: DispatchOptions, handler: DispatchHandler): boolean => cachedDispatch(layer, opts, handler)
  }
}

/**
 * One request through the cache layer: decides whether the cache takes part, and starts the
 * walk of a request it reads for (lookup, decide, then reply, send to the origin or revalidate).
 */
function cachedDispatch (layer: CacheLayer, opts: DispatchOptions, handler: DispatchHandler): boolean {
  const { config, dispatch } = layer
  const mode = readCacheMode(opts.cacheMode)
  // A composed Client or Pool fills in its own origin; a request with none has no key to cache under.
  if (opts.upgrade != null || opts.origin == null || !originAllowed(config.origins, opts.origin)) return dispatch(opts, handler)
  // Ahead of every branch (safe, unsafe and HEAD): a request for another authority neither reads,
  // stores nor invalidates the origin's entries.
  const otherHost = overriddenHost(opts)
  if (otherHost !== undefined) {
    log('leaving %s alone: its Host header names %s, not the origin', showRequest(opts), otherHost)
    return dispatch(opts, handler)
  }
  const method = opts.method
  if (!SAFE_METHODS.has(method)) {
    const storesPost = config.cachePostResponses && method === 'POST'
    const key = requestCacheKey(config.cacheKey, opts, storesPost ? normalizeHeaders(opts.headers) : {})
    const inner = storesPost
      ? new PostResponseHandler({ ...storageContext(config, key, 'request'), key: { ...key, method: 'GET' } }, handler)
      : handler
    return dispatch(opts, new InvalidationHandler(config.store, key, inner))
  }
  if (!config.methods.has(method)) {
    if (method !== 'HEAD' || !config.methods.has('GET')) return dispatch(opts, handler)
    const headHeaders = normalizeHeaders(opts.headers)
    // A no-store request must leave the cache untouched, freshening included.
    if (requestPolicy(headHeaders, mode).bypass) return dispatch(opts, handler)
    return dispatch(opts, withHeadFreshening(config, requestCacheKey(config.cacheKey, opts, headHeaders), handler))
  }
  const headers = normalizeHeaders(opts.headers)
  const key = requestCacheKey(config.cacheKey, opts, headers)
  const policy = requestPolicy(headers, mode)
  if (policy.bypass) {
    log('bypassing the cache for %s: no-store', describeKey(key))
    return dispatch(opts, handler)
  }
  const conditional = (method === 'GET' || method === 'HEAD') && hasCacheablePrecondition(headers)
  const request: CacheableRequest = { opts, handler, key, headers, policy, conditional }
  if (headers.range !== undefined) {
    if (method !== 'GET') return dispatch(opts, handler)
    answerRangeRequest(layer, request)
    return true
  }
  if (policy.reload || ORIGIN_PRECONDITIONS.some((name) => headers[name] !== undefined)) {
    log('not reading the cache for %s: %s', describeKey(key), policy.reload ? 'cacheMode reload' : 'the request has a precondition only the origin can evaluate')
    sendToOrigin(layer, request, 'request')
    return true
  }
  lookUp(layer, request)
  return true
}
