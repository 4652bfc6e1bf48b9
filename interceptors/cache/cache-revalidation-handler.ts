/**
 * The handler of a revalidation (RFC 9111 §4.3): a 304 refreshes the stored response and
 * serves it, an origin failure within stale-if-error serves the stale response (RFC 5861 §4),
 * and any other answer replaces the stored response on its way to the caller.
 * @module
 */

import { DecoratorHandler } from '../../src/handler.js'
import type { CacheKey, CacheStore, GetResult, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders, ForwardingController } from '../../src/handler.js'
import { CacheHandler, openWriteStream } from './cache-handler.js'
import type { OriginReason } from './cache-status.js'
import { withCacheStatus } from './cache-status.js'
import { weakMatch } from './entity-tags.js'
import { describeKey, log } from './log.js'
import { timing } from './reuse-decision.js'
import type { MustRevalidate } from './reuse-decision.js'
import { playReply, replyGatewayTimeout } from './cache-replies.js'
import type { ReplyDestination } from './cache-replies.js'
import { collectBody, deleteQuietly } from './store-calls.js'
import { updateStored } from './stored-update.js'
import { parseCacheControl } from './parse-cache-control.js'
import { parseVary } from './vary.js'

/** Statuses after which a stale response may stand in for the origin (RFC 5861 §4). */
const ORIGIN_ERROR_STATUS = new Set([500, 502, 503, 504])

/**
 * True when a 304's own fields forbid serving the stored response with them: `no-store`,
 * `private` or a `Set-Cookie` in a shared cache, or `Vary: *`.
 */
function notModifiedForbidsReuse (headers: IncomingHeaders, shared: boolean): boolean {
  const directives = parseCacheControl(headers['cache-control'])
  if (directives['no-store'] === true || parseVary(headers.vary) === '*') return true
  return shared && (directives.private === true || headers['set-cookie'] !== undefined)
}

/** Everything a revalidation needs. */
export interface RevalidationContext {
  store: CacheStore
  key: CacheKey
  /** The stored response being revalidated. */
  stored: GetResult
  /** True when the request carried If-None-Match / If-Modified-Since from `stored`. */
  conditional: boolean
  /** True when the caller already received onRequestStart (a repeated, unconditional attempt). */
  started: boolean
  /** Sends the request again without validators, answered through a new handler for the same caller. */
  retryUnconditionally: () => void
  shared: boolean
  cacheByDefault: number | undefined
  cacheStatus: boolean
  requestTime: number
  originReason: OriginReason
  /** Until when (ms since the epoch) the stale response may replace an origin error; undefined: never. */
  staleIfErrorUntil: number | undefined
  /** Set when the stored response may not be served stale: an unreachable origin then yields a 504. */
  mustRevalidate: MustRevalidate | undefined
  /** The controller the caller holds; it follows the network request, then the replay. */
  controller: ForwardingController
  signal: DispatchOptions['signal']
}

type Phase = 'waiting' | 'not-modified' | 'stale-if-error' | 'replaced'

/** Turns the origin's answer to a revalidation into the caller's response. */
export class CacheRevalidationHandler extends DecoratorHandler {
  readonly #ctx: RevalidationContext
  #phase: Phase = 'waiting'
  #next: CacheHandler | null = null
  #notModified: IncomingHeaders = {}
  #originStatus: number | undefined

  constructor (ctx: RevalidationContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  // Hooks not overridden here reach the caller with the controller that follows the network
  // request and then the replay.
  protected override controllerFor (): DispatchController {
    return this.#ctx.controller
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.#ctx.controller.target = controller
    if (!this.#ctx.started) this.handler.onRequestStart?.(this.#ctx.controller, context)
  }

  override onResponseStart (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const ctx = this.#ctx
    this.#originStatus = statusCode
    if (statusCode === 304 && ctx.conditional) {
      this.#phase = 'not-modified'
      this.#notModified = headers
      return
    }
    if (ORIGIN_ERROR_STATUS.has(statusCode) && this.#staleIfErrorAllowed()) {
      this.#phase = 'stale-if-error'
      log('origin answered %d for %s; serving the stale response (stale-if-error)', statusCode, describeKey(ctx.key))
      return
    }
    this.#phase = 'replaced'
    log('revalidation of %s answered %d: the new response replaces the stored one', describeKey(ctx.key), statusCode)
    this.#next = new CacheHandler({
      store: ctx.store,
      key: ctx.key,
      shared: ctx.shared,
      cacheByDefault: ctx.cacheByDefault,
      cacheStatus: ctx.cacheStatus,
      originReason: ctx.originReason,
      requestTime: ctx.requestTime
    }, this.handler)
    this.#next.onResponseStart(ctx.controller, statusCode, headers, statusMessage)
  }

  override onResponseData (_controller: DispatchController, chunk: Buffer): void {
    if (this.#next !== null) this.#next.onResponseData(this.#ctx.controller, chunk)
  }

  override onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    if (this.#next !== null) this.#next.onResponseEnd(this.#ctx.controller, trailers)
    else if (this.#phase === 'not-modified') {
      if (this.#validatorsDiffer()) {
        // §4.3.4: a 304 whose validator is not the stored one updates nothing and cannot
        // answer the request, so the origin is asked again without validators.
        log('revalidation of %s: the 304 names another validator than the stored one; asking again without validators', describeKey(this.#ctx.key))
        this.#ctx.retryUnconditionally()
      } else if (notModifiedForbidsReuse(this.#notModified, this.#ctx.shared)) {
        // The 304 withdraws the permission the stored response was kept under, so that
        // response cannot answer this request either: it is removed and the origin asked again.
        log('revalidation of %s: the 304 forbids reusing the stored response; removing it and asking again without validators', describeKey(this.#ctx.key))
        deleteQuietly(this.#ctx.store, this.#ctx.key)
        this.#ctx.retryUnconditionally()
      } else {
        this.#refresh()
      }
    }
    else if (this.#phase === 'stale-if-error') this.#serveStale()
  }

  override onResponseError (_controller: DispatchController, error: Error): void {
    if (this.#next !== null) {
      this.#next.onResponseError(this.#ctx.controller, error)
      return
    }
    if (!this.#ctx.controller.aborted && this.#staleIfErrorAllowed()) {
      log('revalidation of %s failed (%s); serving the stale response (stale-if-error)', describeKey(this.#ctx.key), error.message)
      this.#serveStale()
      return
    }
    if (!this.#ctx.controller.aborted && this.#ctx.mustRevalidate !== undefined && this.#ctx.signal?.aborted !== true) {
      // §4.2.4, §5.2.2.2: a disconnected cache must not reuse such a response; it answers 504.
      log('revalidation of %s failed (%s) and the response may not be served stale (%s): 504', describeKey(this.#ctx.key), error.message, this.#ctx.mustRevalidate)
      this.#gatewayTimeout(this.#ctx.mustRevalidate)
      return
    }
    this.handler.onResponseError?.(this.#ctx.controller, error)
  }

  #validatorsDiffer (): boolean {
    const received = this.#notModified.etag
    const stored = this.#ctx.stored.etag
    if (typeof received !== 'string' || stored === undefined) return false
    return !weakMatch(received, stored)
  }

  #staleIfErrorAllowed (): boolean {
    const until = this.#ctx.staleIfErrorUntil
    return until !== undefined && Date.now() <= until
  }

  /** Where replies made here go: the caller, on the controller it already holds. */
  #replyDestination (): ReplyDestination {
    const ctx = this.#ctx
    return { handler: this.handler, signal: ctx.signal, method: ctx.key.method, cacheStatus: ctx.cacheStatus, controller: ctx.controller }
  }

  #gatewayTimeout (reason: MustRevalidate): void {
    const ctx = this.#ctx
    replyGatewayTimeout(this.#replyDestination(), {
      fwd: 'stale',
      ttl: timing(ctx.stored, Date.now()).ttl,
      detail: reason
    })
  }

  #serveStale (): void {
    const { stored } = this.#ctx
    const now = Date.now()
    const { age, ttl } = timing(stored, now)
    let headers: IncomingHeaders = { ...stored.headers, age: String(Math.floor(age)) }
    if (this.#ctx.cacheStatus) headers = withCacheStatus(headers, { fwd: 'stale', fwdStatus: this.#originStatus, ttl, detail: 'stale-if-error' })
    this.#serve(headers, stored.body)
  }

  /** §4.3.4: the 304's fields update the stored response, which is then served and stored again. */
  #refresh (): void {
    const ctx = this.#ctx
    const { stored } = ctx
    const { merged, decision } = updateStored({
      stored,
      received: this.#notModified,
      requestHeaders: ctx.key.headers ?? {},
      shared: ctx.shared,
      cacheByDefault: ctx.cacheByDefault,
      requestTime: ctx.requestTime
    })
    collectBody(stored.body).then((body) => {
      let headers: IncomingHeaders
      let ttl: number | undefined
      let storedAgain = false
      if (decision.store) {
        const stream = openWriteStream(ctx.store, ctx.key, decision.value)
        if (stream !== undefined) {
          stream.end(body)
          storedAgain = true
        }
        log('revalidated %s: 304, stored response refreshed, %s', describeKey(ctx.key), decision.explanation)
        const now = Date.now()
        const t = timing(decision.value, now)
        ttl = t.ttl
        headers = { ...decision.value.headers, age: String(Math.floor(t.age)) }
      } else {
        log('revalidated %s: 304, but the refreshed response may not be stored (%s); removing it', describeKey(ctx.key), decision.reason)
        deleteQuietly(ctx.store, ctx.key)
        headers = merged
      }
      if (ctx.cacheStatus) headers = withCacheStatus(headers, { fwd: ctx.originReason, fwdStatus: 304, ttl, stored: storedAgain })
      this.#serve(headers, body)
    }, (err: Error) => {
      log('could not read the stored body of %s after a 304: %s', describeKey(ctx.key), err.message)
      this.handler.onResponseError?.(ctx.controller, err)
    })
  }

  #serve (headers: IncomingHeaders, body: GetResult['body']): void {
    const { stored } = this.#ctx
    playReply(this.#replyDestination(), { statusCode: stored.statusCode, statusMessage: stored.statusMessage, headers, body })
  }
}
