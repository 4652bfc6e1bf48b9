/**
 * Caching a POST response for later GETs (RFC 9110 §9.3.3, RFC 9111 §4 note): allowed only
 * when the response has explicit freshness and a `Content-Location` naming the request target,
 * i.e. the origin says "this is the current representation of the target".
 * @module
 */

import { DecoratorHandler } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders, CacheValue } from '../../src/handler.js'
import type { CacheHandlerContext } from './cache-handler.js'
import { decideStorageFor, writeWhole } from './cache-handler.js'
import { describeKey, log } from './log.js'
import { parseCacheControl } from './parse-cache-control.js'

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** True when `Content-Location` resolves to the target URL itself. */
export function namesTarget (contentLocation: string | undefined, target: string): boolean {
  if (contentLocation === undefined) return false
  try {
    return new URL(contentLocation, target).href === new URL(target).href
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
 * Stores a qualifying POST response under the GET key of the target. Placed inside the
 * invalidation handler, whose end waits for the removal of older entries, so the new entry is
 * written after them and survives.
 */
export class PostResponseHandler extends DecoratorHandler {
  readonly #ctx: CacheHandlerContext
  #value: CacheValue | undefined
  #chunks: Buffer[] = []

  /** `ctx.key` is the GET key of the target. */
  constructor (ctx: CacheHandlerContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const ctx = this.#ctx
    const target = `${ctx.key.origin}${ctx.key.path}`
    if (statusCode >= 200 && statusCode < 300 && hasExplicitFreshness(headers, ctx.shared) && namesTarget(single(headers['content-location']), target)) {
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
