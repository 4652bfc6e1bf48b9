/**
 * `interceptors.cache()`: an RFC 9111 HTTP cache in front of any dispatcher. This file decides,
 * per request, whether the cache takes part and which path it takes; the handlers beside it
 * store responses, revalidate them and play them back.
 * @module
 */

import type { CacheKey, GetResult } from '../../src/contracts/cache-store.js'
import type { Dispatch, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../../src/handler.js'
import { failDispatch } from '../../src/handler.js'
import { normalizeHeaders } from '../../src/handlers/request-headers.js'
import { CacheHandler } from './cache-handler.js'
import { makeCacheKey, originAllowed } from './cache-key.js'
import { CacheRevalidationHandler } from './cache-revalidation-handler.js'
import type { CacheStatus } from './cache-status.js'
import { withCacheStatus } from './cache-status.js'
import { ForwardingController } from '../../src/handlers/forwarding-controller.js'
import { InvalidationHandler } from './invalidation-handler.js'
import { describeKey, log } from './log.js'
import type { CacheInterceptorOptions } from './options.js'
import { SAFE_METHODS, readCacheMode, resolveCacheOptions } from './options.js'
import type { RequestPolicy } from './request-policy.js'
import { requestPolicy } from './request-policy.js'
import type { Reuse } from './reuse-decision.js'
import { decideReuse, timing } from './reuse-decision.js'
import { serveCached } from './serve-cached.js'
import { lookup } from './store-calls.js'

export type { CacheInterceptorOptions, CacheMode } from './options.js'
export { parseCacheControl } from './parse-cache-control.js'

/** Request headers that make a request conditional; the origin, not the cache, answers those. */
const CONDITIONAL_HEADERS = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range']

/** Everything one request carries through the interceptor. */
interface Request {
  opts: DispatchOptions
  handler: DispatchHandler
  key: CacheKey
  headers: IncomingHeaders
  policy: RequestPolicy
}

function failWith (handler: DispatchHandler, err: Error): void {
  try {
    failDispatch(handler, err)
  } catch (thrown) {
    log('handler threw in onResponseError: %s', (thrown as Error).message)
  }
}

/** Calls the next dispatch from an asynchronous path, where a synchronous throw must become onResponseError. */
function dispatchLater (dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler): void {
  try {
    dispatch(opts, handler)
  } catch (err) {
    failWith(handler, err as Error)
  }
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
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
  // One background revalidation per stored URL and method at a time.
  const refreshing = new Set<string>()

  return (dispatch: Dispatch): Dispatch => {
    const forward = (request: Request, fwd: NonNullable<CacheStatus['fwd']>): void => {
      dispatchLater(dispatch, request.opts, new CacheHandler({
        store: config.store,
        key: request.key,
        shared: config.shared,
        cacheByDefault: config.cacheByDefault,
        cacheStatus: config.cacheStatus,
        fwd,
        requestTime: Date.now()
      }, request.handler))
    }

    const revalidate = (request: Request, stored: GetResult, fwd: 'stale' | 'request', staleIfErrorUntil: number | undefined, handler: DispatchHandler, background: boolean): void => {
      const lastModified = single(stored.headers['last-modified'])
      const controller = new ForwardingController()
      const attempt = (conditional: boolean, started: boolean): void => {
        const headers: IncomingHeaders = { ...request.headers }
        if (conditional && stored.etag !== undefined) headers['if-none-match'] = stored.etag
        if (conditional && lastModified !== undefined) headers['if-modified-since'] = lastModified
        const revalidation = new CacheRevalidationHandler({
          store: config.store,
          key: request.key,
          stored,
          conditional,
          started,
          retryUnconditionally: () => attempt(false, true),
          shared: config.shared,
          cacheByDefault: config.cacheByDefault,
          cacheStatus: config.cacheStatus && !background,
          requestTime: Date.now(),
          fwd,
          staleIfErrorUntil,
          controller,
          signal: background ? undefined : request.opts.signal
        }, handler)
        const opts: DispatchOptions = { ...request.opts, headers }
        if (background) opts.signal = undefined
        dispatchLater(dispatch, opts, revalidation)
      }
      attempt(stored.etag !== undefined || lastModified !== undefined, false)
    }

    const refreshInBackground = (request: Request, stored: GetResult): void => {
      const id = describeKey(request.key)
      if (refreshing.has(id)) return
      refreshing.add(id)
      log('revalidating %s in the background (stale-while-revalidate)', id)
      const done = (): void => { refreshing.delete(id) }
      const sink: DispatchHandler = {
        onResponseEnd: done,
        onResponseError: (_controller, err) => {
          log('background revalidation of %s failed: %s', id, err.message)
          done()
        }
      }
      revalidate(request, stored, 'stale', undefined, sink, true)
    }

    const serveStored = (request: Request, stored: GetResult, status: CacheStatus): void => {
      const now = Date.now()
      const { age, ttl } = timing(stored, now)
      let headers: IncomingHeaders = { ...stored.headers, age: String(Math.floor(age)) }
      if (config.cacheStatus) headers = withCacheStatus(headers, { ...status, ttl })
      serveCached(request.handler, { statusCode: stored.statusCode, statusMessage: stored.statusMessage, headers, body: stored.body }, {
        signal: request.opts.signal,
        method: request.key.method
      })
    }

    const gatewayTimeout = (request: Request): void => {
      let headers: IncomingHeaders = { 'content-length': '0' }
      if (config.cacheStatus) headers = withCacheStatus(headers, { detail: 'only-if-cached' })
      serveCached(request.handler, { statusCode: 504, statusMessage: 'Gateway Timeout', headers, body: null }, {
        signal: request.opts.signal,
        method: request.key.method
      })
    }

    const answer = (request: Request, stored: GetResult | undefined): void => {
      const id = describeKey(request.key)
      if (stored === undefined) {
        if (request.policy.onlyIfCached) {
          log('miss for %s with only-if-cached: 504', id)
          gatewayTimeout(request)
        } else {
          log('miss for %s', id)
          forward(request, 'miss')
        }
        return
      }
      const reuse: Reuse = decideReuse(stored, request.policy, config.shared, Date.now())
      switch (reuse.action) {
        case 'hit':
          log('hit for %s: %s', id, reuse.reason)
          serveStored(request, stored, { hit: true })
          return
        case 'stale-while-revalidate':
          log('serving stale %s: %s', id, reuse.reason)
          serveStored(request, stored, { hit: true, detail: 'stale-while-revalidate' })
          refreshInBackground(request, stored)
          return
        case 'gateway-timeout':
          log('cannot serve %s: %s; 504', id, reuse.reason)
          gatewayTimeout(request)
          return
        case 'revalidate':
          log('revalidating %s: %s', id, reuse.reason)
          revalidate(request, stored, reuse.fwd, reuse.staleIfErrorUntil, request.handler, false)
      }
    }

    return function cachedDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
      const mode = readCacheMode(opts.cacheMode)
      // A composed Client or Pool fills in its own origin; a request with none has no key to cache under.
      if (opts.upgrade != null || opts.origin == null || !originAllowed(config.origins, opts.origin)) return dispatch(opts, handler)
      const method = opts.method
      if (!SAFE_METHODS.has(method)) {
        return dispatch(opts, new InvalidationHandler(config.store, makeCacheKey(opts, {}), handler))
      }
      if (!config.methods.has(method)) return dispatch(opts, handler)
      const headers = normalizeHeaders(opts.headers)
      const key = makeCacheKey(opts, headers)
      if (headers.range !== undefined) {
        log('bypassing the cache for %s: ranged requests are neither served nor stored', describeKey(key))
        return dispatch(opts, handler)
      }
      const policy = requestPolicy(headers, mode)
      if (policy.bypass) {
        log('bypassing the cache for %s: no-store', describeKey(key))
        return dispatch(opts, handler)
      }
      const request: Request = { opts, handler, key, headers, policy }
      if (policy.reload || CONDITIONAL_HEADERS.some((name) => headers[name] !== undefined)) {
        log('not reading the cache for %s: %s', describeKey(key), policy.reload ? 'cacheMode reload' : 'the request is conditional')
        forward(request, 'request')
        return true
      }
      lookup(config.store, key).then(async ({ result, failed }) => {
        if (failed) {
          dispatchLater(dispatch, opts, handler)
          return
        }
        if (result === undefined && method === 'HEAD' && config.methods.has('GET')) {
          // RFC 9110 §9.3.2: a HEAD answer carries a GET answer's fields, so a usable stored GET
          // response answers a HEAD (without its body).
          const viaGet = await lookup(config.store, { ...key, method: 'GET' })
          if (viaGet.result !== undefined && decideReuse(viaGet.result, policy, config.shared, Date.now()).action === 'hit') {
            log('hit for %s from the stored GET response', describeKey(key))
            serveStored(request, viaGet.result, { hit: true })
            return
          }
        }
        answer(request, result)
      }).catch((err: Error) => {
        log('cache failure for %s: %s', describeKey(key), err.message)
        failWith(handler, err)
      })
      return true
    }
  }
}
