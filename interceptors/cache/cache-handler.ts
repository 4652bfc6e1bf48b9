/**
 * The handler that stores responses on their way to the caller: it decides once the head
 * arrives, tees the body into the store's write stream, and commits only a complete response.
 * @module
 */

import type { Writable } from 'node:stream'
import { DecoratorHandler } from '../../src/handler.js'
import type { CacheKey, CacheStore, CacheValue, DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import type { OriginReason } from './cache-status.js'
import { withCacheStatus } from './cache-status.js'
import { describeKey, log } from './log.js'
import { decideStorage } from './storage-decision.js'
import { redirectTrail, redirectedStorageRefusal } from './redirected-storage.js'
import type { StorageDecision } from './storage-decision.js'

/** What the storing handler needs to know about the request. */
export interface StorageContext {
  store: CacheStore
  key: CacheKey
  shared: boolean
  cacheByDefault: number | undefined
  /** Add a `cache-status` header to the response. */
  cacheStatus: boolean
  /** Why the request went to the origin, for `cache-status`. */
  originReason: OriginReason
  /** When the request was sent (ms since the epoch). */
  requestTime: number
  /** Told once whether the response ended up committed to the store (for coalesced requests). */
  onSettled?: ((stored: boolean) => void) | undefined
}

/** The storage decision for a response arriving now for the request of `ctx`. */
export function decideStorageFor (ctx: StorageContext, statusCode: number, headers: IncomingHeaders, statusMessage: string): StorageDecision {
  return decideStorage({
    statusCode,
    statusMessage,
    headers,
    requestHeaders: ctx.key.headers ?? {},
    shared: ctx.shared,
    cacheByDefault: ctx.cacheByDefault,
    requestTime: ctx.requestTime,
    responseTime: Date.now()
  })
}

/** Stores cacheable responses while passing them on unchanged (plus `cache-status`). */
export class CacheHandler extends DecoratorHandler {
  readonly #ctx: StorageContext
  #stream: Writable | undefined
  #settled = false
  #requestContext: unknown

  constructor (ctx: StorageContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    // A redirect layer below reports the hops it follows here; they are read when the answer comes.
    this.#requestContext = context
    super.onRequestStart(controller, context)
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const ctx = this.#ctx
    const redirectRefusal = redirectedStorageRefusal(ctx.key, redirectTrail(this.#requestContext), (redirect) => decideStorageFor(ctx, redirect.statusCode, redirect.headers, ''))
    const decision: StorageDecision = redirectRefusal === undefined ? decideStorageFor(ctx, statusCode, headers, statusMessage ?? '') : { store: false, reason: redirectRefusal }
    if (decision.store) {
      this.#stream = openWriteStream(ctx.store, ctx.key, decision.value)
      if (this.#stream !== undefined) log('storing %s (status %d): %s', describeKey(ctx.key), statusCode, decision.explanation)
    } else {
      log('not storing %s (status %d): %s', describeKey(ctx.key), statusCode, decision.reason)
    }
    if (this.#stream === undefined) this.#settle(false)
    else {
      this.#stream.once('finish', () => this.#settle(true))
      this.#stream.once('close', () => this.#settle(false))
    }
    const out = ctx.cacheStatus ? withCacheStatus(headers, { fwd: ctx.originReason, fwdStatus: statusCode, stored: this.#stream !== undefined }) : headers
    super.onResponseStart(controller, statusCode, out, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    const stream = this.#stream
    if (stream !== undefined && !stream.destroyed) stream.write(chunk)
    super.onResponseData(controller, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    const stream = this.#stream
    if (stream !== undefined && !stream.destroyed) stream.end()
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    // An incomplete body must never be committed.
    this.#stream?.destroy(error)
    this.#stream = undefined
    this.#settle(false)
    super.onResponseError(controller, error)
  }

  #settle (stored: boolean): void {
    if (this.#settled) return
    this.#settled = true
    this.#ctx.onSettled?.(stored)
  }
}

/** Asks the store for a write stream; a store that throws or fails later only loses this entry. */
export function openWriteStream (store: CacheStore, key: CacheKey, value: Parameters<CacheStore['createWriteStream']>[1]): Writable | undefined {
  let stream: Writable | undefined
  try {
    stream = store.createWriteStream(key, value) ?? undefined
  } catch (err) {
    log('store error in createWriteStream for %s, not stored: %s', describeKey(key), (err as Error).message)
    return undefined
  }
  if (stream === undefined) {
    log('the store declined %s', describeKey(key))
    return undefined
  }
  stream.on('error', (err: Error) => {
    log('store write failed for %s, not stored: %s', describeKey(key), err.message)
  })
  return stream
}

/** Stores a whole body at once; resolves when the store has committed it, declined it or failed. */
export function writeWhole (store: CacheStore, key: CacheKey, value: CacheValue, body: Buffer): Promise<void> {
  const stream = openWriteStream(store, key, value)
  if (stream === undefined) return Promise.resolve()
  return new Promise((resolve) => {
    stream.once('finish', () => resolve())
    stream.once('close', () => resolve())
    stream.end(body)
  })
}
