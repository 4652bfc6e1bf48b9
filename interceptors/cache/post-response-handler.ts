/**
 * Caching a POST response for later GETs (RFC 9110 §9.3.3, RFC 9111 §4 note): allowed only
 * when the response has explicit freshness and a `Content-Location` naming the request's URL,
 * i.e. the origin says "this is the current representation of that URL".
 * @module
 */

import { DecoratorHandler } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders, CacheValue } from '../../src/handler.js'
import type { StorageContext } from './cache-handler.js'
import { decideStorageFor, writeWhole } from './cache-handler.js'
import { describeKey, log } from './log.js'
import { parseCacheControl } from './parse-cache-control.js'
import { firstHeaderValue } from './header-value.js'

/** True when `Content-Location` resolves to the request's own URL. */
export function namesRequestUrl (contentLocation: string | undefined, requestUrl: string): boolean {
  if (contentLocation === undefined) return false
  try {
    return new URL(contentLocation, requestUrl).href === new URL(requestUrl).href
  } catch {
    return false
  }
}

/** True when the response states its freshness itself (no heuristic). */
export function hasExplicitFreshness (headers: IncomingHeaders, shared: boolean): boolean {
  const directives = parseCacheControl(headers['cache-control'])
  return directives['max-age'] !== undefined || (shared && directives['s-maxage'] !== undefined) || headers.expires !== undefined
}

/**
 * Stores a qualifying POST response under the GET key of its URL. Placed inside the
 * invalidation handler, whose end waits for the removal of older entries, so the new entry is
 * written after them and survives.
 */
export class PostResponseHandler extends DecoratorHandler {
  readonly #ctx: StorageContext
  #value: CacheValue | undefined
  #chunks: Buffer[] = []

  /** `ctx.key` is the GET key of the request's URL. */
  constructor (ctx: StorageContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const ctx = this.#ctx
    const requestUrl = `${ctx.key.origin}${ctx.key.path}`
    if (statusCode >= 200 && statusCode < 300 && hasExplicitFreshness(headers, ctx.shared) && namesRequestUrl(firstHeaderValue(headers['content-location']), requestUrl)) {
      const decision = decideStorageFor(ctx, statusCode, headers, statusMessage ?? '')
      if (decision.store) {
        this.#value = decision.value
        log('storing the POST response for later GETs of %s: %s', describeKey(ctx.key), decision.explanation)
      } else {
        log('not storing the POST response for %s: %s', describeKey(ctx.key), decision.reason)
      }
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#value !== undefined) this.#chunks.push(chunk)
    super.onResponseData(controller, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    const value = this.#value
    if (value === undefined) {
      super.onResponseEnd(controller, trailers)
      return
    }
    writeWhole(this.#ctx.store, this.#ctx.key, value, Buffer.concat(this.#chunks)).finally(() => {
      try {
        super.onResponseEnd(controller, trailers)
      } catch (err) {
        log('handler threw in onResponseEnd: %s', (err as Error).message)
      }
    })
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    this.#value = undefined
    super.onResponseError(controller, error)
  }
}
