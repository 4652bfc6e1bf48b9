/**
 * The handler that stores responses on their way to the caller: it decides once the head
 * arrives, tees the body into the store's write stream, and commits only a complete response.
 * @module
 */

import type { Writable } from 'node:stream'
import type { CacheKey, CacheStore } from '../../src/contracts/cache-store.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import { DecoratorHandler } from '../../src/handler.js'
import type { CacheStatus } from './cache-status.js'
import { withCacheStatus } from './cache-status.js'
import { describeKey, log } from './log.js'
import { decideStorage } from './storage-decision.js'

/** What the storing handler needs to know about the request. */
export interface CacheHandlerContext {
  store: CacheStore
  key: CacheKey
  shared: boolean
  cacheByDefault: number | undefined
  /** Add a `cache-status` header to the response. */
  cacheStatus: boolean
  /** Why the request went to the origin, for `cache-status`. */
  fwd: NonNullable<CacheStatus['fwd']>
  /** When the request was sent (ms since the epoch). */
  requestTime: number
}

/** Stores cacheable responses while passing them on unchanged (plus `cache-status`). */
export class CacheHandler extends DecoratorHandler {
  readonly #ctx: CacheHandlerContext
  #stream: Writable | undefined

  constructor (ctx: CacheHandlerContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const ctx = this.#ctx
    const decision = decideStorage({
      statusCode,
      statusMessage: statusMessage ?? '',
      headers,
      requestHeaders: ctx.key.headers ?? {},
      shared: ctx.shared,
      cacheByDefault: ctx.cacheByDefault,
      requestTime: ctx.requestTime,
      responseTime: Date.now()
    })
    if (decision.store) {
      this.#stream = openWriteStream(ctx.store, ctx.key, decision.value)
      if (this.#stream !== undefined) log('storing %s (status %d): %s', describeKey(ctx.key), statusCode, decision.explanation)
    } else {
      log('not storing %s (status %d): %s', describeKey(ctx.key), statusCode, decision.reason)
    }
    const out = ctx.cacheStatus ? withCacheStatus(headers, { fwd: ctx.fwd, fwdStatus: statusCode, stored: this.#stream !== undefined }) : headers
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
    super.onResponseError(controller, error)
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
