/**
 * Freshening with HEAD (RFC 9111 §4.3.5): a HEAD response tells what a GET would answer now, so
 * it updates the stored GET response when they agree and invalidates it when they do not.
 * @module
 */

import { DecoratorHandler } from '../../src/handler.js'
import type { CacheKey, CacheStore, GetResult, DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import { writeWhole } from './cache-handler.js'
import { describeKey, log } from './log.js'
import { collectBody, deleteQuietly, readStore } from './store-calls.js'
import { updateStored } from './stored-update.js'
import { firstHeaderValue } from './header-value.js'

/** What the handler needs besides the response. */
export interface HeadFresheningContext {
  store: CacheStore
  /** The GET key equivalent to the HEAD request. */
  getKey: CacheKey
  shared: boolean
  cacheByDefault: number | undefined
  requestTime: number
}

/**
 * True when the HEAD response describes the stored one: same status, equal values for each
 * validator the HEAD response carries (and at least one validator when the stored response has
 * any), and the same length when it gives a Content-Length.
 */
export function headConfirms (stored: GetResult, body: Buffer, statusCode: number, headers: IncomingHeaders): boolean {
  if (statusCode !== stored.statusCode) return false
  const etag = firstHeaderValue(headers.etag)
  const lastModified = firstHeaderValue(headers['last-modified'])
  const storedLastModified = firstHeaderValue(stored.headers['last-modified'])
  if (etag === undefined && lastModified === undefined && (stored.etag !== undefined || storedLastModified !== undefined)) return false
  if (etag !== undefined && etag !== stored.etag) return false
  if (lastModified !== undefined && lastModified !== storedLastModified) return false
  const length = firstHeaderValue(headers['content-length'])
  return length === undefined || Number(length) === body.length
}

/** Passes a HEAD response on unchanged, after updating or invalidating the stored GET response. */
export class HeadFresheningHandler extends DecoratorHandler {
  readonly #ctx: HeadFresheningContext
  #statusCode = 0
  #headers: IncomingHeaders = {}

  constructor (ctx: HeadFresheningContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#statusCode = statusCode
    this.#headers = headers
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    // A 5xx says nothing about the representation; a 304 or 206 is not a full HEAD answer.
    const status = this.#statusCode
    if (status < 200 || status >= 500 || status === 304 || status === 206) {
      super.onResponseEnd(controller, trailers)
      return
    }
    // Holding the end until the store is updated lets the caller's next GET see the result.
    this.#freshen().catch((err: Error) => {
      log('HEAD freshening of %s failed: %s', describeKey(this.#ctx.getKey), err.message)
    }).finally(() => {
      try {
        super.onResponseEnd(controller, trailers)
      } catch (err) {
        log('handler threw in onResponseEnd: %s', (err as Error).message)
      }
    })
  }

  async #freshen (): Promise<void> {
    const ctx = this.#ctx
    const { result: stored } = await readStore(ctx.store, ctx.getKey)
    if (stored === undefined) return
    const id = describeKey(ctx.getKey)
    const body = await collectBody(stored.body)
    if (!headConfirms(stored, body, this.#statusCode, this.#headers)) {
      log('the HEAD response disagrees with the stored %s: invalidating it', id)
      await deleteQuietly(ctx.store, ctx.getKey)
      return
    }
    const { decision } = updateStored({
      stored,
      received: this.#headers,
      requestHeaders: ctx.getKey.headers ?? {},
      shared: ctx.shared,
      cacheByDefault: ctx.cacheByDefault,
      requestTime: ctx.requestTime
    })
    if (!decision.store) {
      log('the HEAD response makes the stored %s unstorable (%s): invalidating it', id, decision.reason)
      await deleteQuietly(ctx.store, ctx.getKey)
      return
    }
    log('freshened the stored %s from a HEAD response: %s', id, decision.explanation)
    await writeWhole(ctx.store, ctx.getKey, decision.value, body)
  }
}
