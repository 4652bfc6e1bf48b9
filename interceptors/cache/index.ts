/**
 * `interceptors.cache()`: an RFC 9111 HTTP cache in front of any dispatcher. This file decides,
 * per request, whether the cache takes part and which path it takes; the handlers beside it
 * store responses, revalidate them and play them back.
 * @module
 */

import { normalizeHeaders, ForwardingController, RequestAbortedError } from '../../src/handler.js'
import type { CacheKey, GetResult, Dispatch, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../../src/handler.js'
import { CacheHandler } from './cache-handler.js'
import type { CacheHandlerContext } from './cache-handler.js'
import { customizeKey, makeCacheKey, originAllowed } from './cache-key.js'
import { PostResponseHandler } from './post-response-handler.js'
import { CacheRevalidationHandler } from './cache-revalidation-handler.js'
import type { CacheStatus } from './cache-status.js'
import { MissCoalescer } from './miss-coalescer.js'
import type { LeaderOutcome } from './miss-coalescer.js'
import { HeadFresheningHandler } from './head-freshening-handler.js'
import { InvalidationHandler } from './invalidation-handler.js'
import { describeKey, log, logEnabled } from './log.js'
import type { CacheInterceptorOptions } from './options.js'
import { SAFE_METHODS, readCacheMode, resolveCacheOptions } from './options.js'
import type { RequestPolicy } from './request-policy.js'
import { requestPolicy } from './request-policy.js'
import type { MustRevalidate, Reuse } from './reuse-decision.js'
import { decideReuse } from './reuse-decision.js'
import { replyFromStored, replyGatewayTimeout, replyStored } from './cache-replies.js'
import type { ReplyTarget } from './cache-replies.js'
import { dispatchLater, failWith } from './dispatch-safely.js'
import { collectBody, lookup, whenFound } from './store-calls.js'
import type { Lookup } from './store-calls.js'
import { PartialContentHandler, partialKey } from './partial-content-handler.js'
import { answerFromPart, answerRange } from './range-response.js'
import { ORIGIN_PRECONDITIONS, hasCacheablePrecondition, notModified, notModifiedHeaders } from './stored-preconditions.js'

export type { CacheInterceptorOptions, CacheMode } from './options.js'
export { parseCacheControl } from './parse-cache-control.js'

/** Everything one request carries through the interceptor. */
interface Request {
  opts: DispatchOptions
  handler: DispatchHandler
  key: CacheKey
  headers: IncomingHeaders
  policy: RequestPolicy
  /** The request carries If-None-Match / If-Modified-Since, which a usable stored response can answer. */
  conditional: boolean
  /** Already waited for an identical request in flight: a miss now goes straight out. */
  coalesced?: boolean
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
  const coalescer = new MissCoalescer()

  return (dispatch: Dispatch): Dispatch => {
    /** Wraps the handler of a HEAD going to the origin so its answer freshens the stored GET (§4.3.5). */
    const freshening = (key: CacheKey, handler: DispatchHandler): DispatchHandler => {
      if (key.method !== 'HEAD' || !config.methods.has('GET')) return handler
      return new HeadFresheningHandler({
        store: config.store,
        getKey: { ...key, method: 'GET' },
        shared: config.shared,
        cacheByDefault: config.cacheByDefault,
        requestTime: Date.now()
      }, handler)
    }

    const keyFor = (opts: DispatchOptions, headers: IncomingHeaders): CacheKey => customizeKey(config.cacheKey, makeCacheKey(opts, headers), opts)

    const storingFor = (key: CacheKey, fwd: NonNullable<CacheStatus['fwd']>, onSettled?: (stored: boolean) => void): CacheHandlerContext => ({
      store: config.store,
      key,
      shared: config.shared,
      cacheByDefault: config.cacheByDefault,
      cacheStatus: config.cacheStatus,
      fwd,
      requestTime: Date.now(),
      onSettled
    })

    const storing = (request: Request, fwd: NonNullable<CacheStatus['fwd']>, onSettled?: (stored: boolean) => void): CacheHandlerContext =>
      storingFor(request.key, fwd, onSettled)

    const forward = (request: Request, fwd: NonNullable<CacheStatus['fwd']>, onSettled?: (stored: boolean) => void): void => {
      dispatchLater(dispatch, request.opts, new CacheHandler(storing(request, fwd, onSettled), freshening(request.key, request.handler)))
    }

    /** Sends a miss to the origin, unless an identical one is already out: then waits for its outcome. */
    const forwardMiss = (request: Request): void => {
      if (request.coalesced === true || request.opts.body != null) {
        forward(request, 'miss')
        return
      }
      const id = describeKey(request.key)
      const signal = request.opts.signal ?? undefined
      const onAbort = (): void => {
        if (coalescer.leave(id, waiter)) failWith(request.handler, signal?.reason instanceof Error ? signal.reason : new RequestAbortedError())
      }
      const waiter = (outcome: LeaderOutcome): void => {
        signal?.removeEventListener('abort', onAbort)
        request.coalesced = true
        if (outcome === 'not-stored') {
          log('the identical request in flight for %s was not stored; sending this one', id)
          forward(request, 'miss')
          return
        }
        log('the identical request in flight for %s was stored; reading it', id)
        // Asynchronously even from a synchronous store: the waiter is told from within the leader's handler.
        Promise.resolve(lookup(config.store, request.key)).then(({ result, failed }) => {
          if (failed) dispatchLater(dispatch, request.opts, request.handler)
          else answer(request, result)
        }, (err: Error) => failWith(request.handler, err))
      }
      const settle = coalescer.lead(id, waiter)
      if (settle === undefined) {
        log('miss for %s: waiting for the identical request in flight', id)
        signal?.addEventListener('abort', onAbort, { once: true })
        return
      }
      forward(request, 'miss', (stored) => settle(stored ? 'stored' : 'not-stored'))
    }

    const revalidate = (request: Request, stored: GetResult, fwd: 'stale' | 'request', staleIfErrorUntil: number | undefined, handler: DispatchHandler, background: boolean, mustRevalidate?: MustRevalidate): void => {
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
          mustRevalidate,
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

    const target = (request: Request): ReplyTarget => ({
      handler: request.handler,
      signal: request.opts.signal,
      method: request.key.method,
      cacheStatus: config.cacheStatus
    })

    const forwardRange = (request: Request, fwd: NonNullable<CacheStatus['fwd']>): void => {
      dispatchLater(dispatch, request.opts, new PartialContentHandler(storing(request, fwd), request.handler))
    }

    /** Answers from a fresh stored partial response holding the requested range; false when there is none. */
    const answerFromHeldPart = async (request: Request): Promise<boolean> => {
      const { result: held } = await lookup(config.store, partialKey(request.key))
      if (held === undefined || decideReuse(held, request.policy, config.shared, Date.now()).action !== 'hit') return false
      const answer = answerFromPart(request.headers, held, await collectBody(held.body))
      if (answer === undefined || answer.kind !== 'generated') return false
      log('hit for %s: 206 from the stored partial response', describeKey(request.key))
      replyFromStored(target(request), held, answer, { hit: true })
      return true
    }

    /** A GET with Range: sliced from a usable complete stored response, otherwise sent on and its answer stored. */
    const answerRangeRequest = (request: Request): void => {
      const id = describeKey(request.key)
      if (request.policy.reload || request.conditional || ORIGIN_PRECONDITIONS.some((name) => name !== 'if-range' && request.headers[name] !== undefined)) {
        log('not reading the cache for the ranged %s: reload or a precondition', id)
        forwardRange(request, 'request')
        return
      }
      Promise.resolve(lookup(config.store, request.key)).then(async ({ result: stored, failed }) => {
        if (failed) {
          dispatchLater(dispatch, request.opts, request.handler)
          return
        }
        const reuse = stored === undefined ? undefined : decideReuse(stored, request.policy, config.shared, Date.now())
        if (stored === undefined && await answerFromHeldPart(request)) return
        if (stored === undefined || stored.statusCode !== 200 || reuse?.action !== 'hit') {
          if (request.policy.onlyIfCached) {
            log('ranged %s with only-if-cached and nothing servable stored: 504', id)
            gatewayTimeout(request)
            return
          }
          log('ranged %s: %s; sending it on', id, stored === undefined ? 'miss' : reuse?.reason ?? 'not a complete 200')
          forwardRange(request, stored === undefined ? 'miss' : 'stale')
          return
        }
        const body = await collectBody(stored.body)
        const range = answerRange(request.headers, stored, body)
        if (range.kind === 'full') {
          log('hit for %s: the Range is ignored (invalid, or If-Range does not hold)', id)
          replyStored(target(request), { ...stored, body }, { hit: true })
          return
        }
        log('hit for %s: %d from the complete stored response', id, range.statusCode)
        replyFromStored(target(request), stored, range, { hit: true })
      }).catch((err: Error) => failWith(request.handler, err))
    }

    /** Serves a usable stored response: as a 304 when the request's own precondition matches it (§4.3.2). */
    const serveHit = (request: Request, stored: GetResult): void => {
      if (request.conditional && notModified(request.headers, stored)) {
        log('the precondition of %s matches the stored response: 304', describeKey(request.key))
        replyFromStored(target(request), stored, { statusCode: 304, statusMessage: 'Not Modified', headers: notModifiedHeaders(stored), body: null }, { hit: true })
        return
      }
      replyStored(target(request), stored, { hit: true })
    }

    const gatewayTimeout = (request: Request): void => {
      replyGatewayTimeout(target(request), { detail: 'only-if-cached' })
    }

    const answer = (request: Request, stored: GetResult | undefined): void => {
      // The key's text is only wanted in log lines; a hit should not pay for building it.
      const id = logEnabled ? describeKey(request.key) : ''
      if (stored === undefined) {
        if (request.policy.onlyIfCached) {
          log('miss for %s with only-if-cached: 504', id)
          gatewayTimeout(request)
        } else {
          log('miss for %s', id)
          forwardMiss(request)
        }
        return
      }
      if (config.shared && stored.headers['set-cookie'] !== undefined) {
        // Written by a private cache sharing the store, or by hand: one user's cookie must not reach another.
        log('the stored %s sets a cookie and this cache is shared: not serving it', id)
        forward(request, 'miss')
        return
      }
      const reuse: Reuse = decideReuse(stored, request.policy, config.shared, Date.now())
      if (request.conditional && reuse.action !== 'hit' && reuse.action !== 'gateway-timeout') {
        // A precondition is only evaluated against a response the cache may serve as it is.
        log('not answering the conditional request for %s from the cache: %s', id, reuse.reason)
        forward(request, 'request')
        return
      }
      switch (reuse.action) {
        case 'hit':
          if (logEnabled) log('hit for %s: %s', id, reuse.reason)
          serveHit(request, stored)
          return
        case 'stale-while-revalidate':
          log('serving stale %s: %s', id, reuse.reason)
          replyStored(target(request), stored, { hit: true, detail: 'stale-while-revalidate' })
          refreshInBackground(request, stored)
          return
        case 'gateway-timeout':
          log('cannot serve %s: %s; 504', id, reuse.reason)
          gatewayTimeout(request)
          return
        case 'revalidate':
          log('revalidating %s: %s', id, reuse.reason)
          revalidate(request, stored, reuse.fwd, reuse.staleIfErrorUntil, request.handler, false, reuse.mustRevalidate)
      }
    }

    const lookupFailed = (request: Request, err: Error): void => {
      log('cache failure for %s: %s', describeKey(request.key), err.message)
      failWith(request.handler, err)
    }

    const onLookup = (request: Request, { result, failed }: Lookup): void => {
      if (failed) {
        dispatchLater(dispatch, request.opts, request.handler)
        return
      }
      const key = request.key
      if (result === undefined && key.method === 'HEAD' && config.methods.has('GET')) {
        // RFC 9110 §9.3.2: a HEAD answer carries a GET answer's fields, so a usable stored GET
        // response answers a HEAD (without its body).
        whenFound(lookup(config.store, { ...key, method: 'GET' }), (viaGet) => {
          if (viaGet.result !== undefined && decideReuse(viaGet.result, request.policy, config.shared, Date.now()).action === 'hit') {
            log('hit for %s from the stored GET response', describeKey(key))
            serveHit(request, viaGet.result)
            return
          }
          answer(request, undefined)
        }, (err) => { lookupFailed(request, err) })
        return
      }
      answer(request, result)
    }

    return function cachedDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
      const mode = readCacheMode(opts.cacheMode)
      // A composed Client or Pool fills in its own origin; a request with none has no key to cache under.
      if (opts.upgrade != null || opts.origin == null || !originAllowed(config.origins, opts.origin)) return dispatch(opts, handler)
      const method = opts.method
      if (!SAFE_METHODS.has(method)) {
        const unsafeHeaders = config.cachePostResponses && method === 'POST' ? normalizeHeaders(opts.headers) : {}
        const target = keyFor(opts, unsafeHeaders)
        const inner = config.cachePostResponses && method === 'POST'
          ? new PostResponseHandler({ ...storingFor(target, 'request'), key: { ...target, method: 'GET' } }, handler)
          : handler
        return dispatch(opts, new InvalidationHandler(config.store, target, inner))
      }
      if (!config.methods.has(method)) {
        if (method !== 'HEAD' || !config.methods.has('GET')) return dispatch(opts, handler)
        const headHeaders = normalizeHeaders(opts.headers)
        // A no-store request must leave the cache untouched, freshening included.
        if (requestPolicy(headHeaders, mode).bypass) return dispatch(opts, handler)
        return dispatch(opts, freshening(keyFor(opts, headHeaders), handler))
      }
      const headers = normalizeHeaders(opts.headers)
      const key = keyFor(opts, headers)
      const policy = requestPolicy(headers, mode)
      if (policy.bypass) {
        log('bypassing the cache for %s: no-store', describeKey(key))
        return dispatch(opts, handler)
      }
      const conditional = (method === 'GET' || method === 'HEAD') && hasCacheablePrecondition(headers)
      const request: Request = { opts, handler, key, headers, policy, conditional }
      if (headers.range !== undefined) {
        if (method !== 'GET') return dispatch(opts, handler)
        answerRangeRequest(request)
        return true
      }
      if (policy.reload || ORIGIN_PRECONDITIONS.some((name) => headers[name] !== undefined)) {
        log('not reading the cache for %s: %s', describeKey(key), policy.reload ? 'cacheMode reload' : 'the request has a precondition only the origin can evaluate')
        forward(request, 'request')
        return true
      }
      // A synchronous store (memory, SQLite) answers within this call: a hit is played before
      // dispatch() returns, as a network dispatch would start within it.
      whenFound(lookup(config.store, key), (found) => { onLookup(request, found) }, (err) => { lookupFailed(request, err) })
      return true
    }
  }
}
