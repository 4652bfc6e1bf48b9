/**
 * Responses to ranged requests on their way to the caller (RFC 9111 §3.3, §3.4): a 200 is stored
 * like any response; a 206 holding one byte range is stored as a partial response, joined with
 * the part already held when both carry the same strong validator, and turned into a complete
 * stored response once the parts cover the whole representation.
 * @module
 */

import { PARTIAL_METHOD, DecoratorHandler } from '../../src/handler.js'
import type { CacheKey, CacheValue, DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import { CacheHandler, decideStorageFor, writeWhole } from './cache-handler.js'
import type { StorageContext } from './cache-handler.js'
import { formatContentRange, joinRanges, parseContentRange } from './byte-ranges.js'
import type { ByteRange } from './byte-ranges.js'
import { withCacheStatus } from './cache-status.js'
import { isStrong } from './entity-tags.js'
import { describeKey, log } from './log.js'
import { collectBody, readStore } from './store-calls.js'

/** The key a URL's partial response is stored under. */
export function partialKey (key: CacheKey): CacheKey {
  return { ...key, method: PARTIAL_METHOD }
}

/** A 206 being received: where it sits in the representation, and its bytes so far. */
interface Part {
  range: ByteRange
  length: number
  value: CacheValue
  chunks: Buffer[]
}

/** Stores the 200 or 206 answer to a ranged GET while passing it on unchanged (plus `cache-status`). */
export class PartialContentHandler extends DecoratorHandler {
  readonly #ctx: StorageContext
  #full: CacheHandler | undefined
  #part: Part | undefined

  constructor (ctx: StorageContext, handler: DispatchHandler) {
    super(handler)
    this.#ctx = ctx
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const ctx = this.#ctx
    if (statusCode === 200) {
      // The origin sent the whole representation: store it as any other response.
      this.#full = new CacheHandler({ ...ctx, key: { ...ctx.key, method: 'GET' } }, this.handler)
      this.#full.onResponseStart(controller, statusCode, headers, statusMessage)
      return
    }
    if (statusCode === 206) this.#part = this.#storablePart(headers, statusMessage ?? '')
    const out = ctx.cacheStatus ? withCacheStatus(headers, { fwd: ctx.originReason, fwdStatus: statusCode, stored: this.#part !== undefined }) : headers
    super.onResponseStart(controller, statusCode, out, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#full !== undefined) {
      this.#full.onResponseData(controller, chunk)
      return
    }
    this.#part?.chunks.push(chunk)
    super.onResponseData(controller, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (this.#full !== undefined) {
      this.#full.onResponseEnd(controller, trailers)
      return
    }
    const part = this.#part
    const end = (): void => {
      try {
        super.onResponseEnd(controller, trailers)
      } catch (err) {
        log('handler threw in onResponseEnd: %s', (err as Error).message)
      }
    }
    if (part === undefined) {
      super.onResponseEnd(controller, trailers)
      return
    }
    // Holding the end until the part is stored lets the caller's next request see it.
    this.#store(part).catch((err: Error) => {
      log('storing the partial response of %s failed: %s', describeKey(this.#ctx.key), err.message)
    }).finally(end)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    this.#part = undefined
    if (this.#full !== undefined) this.#full.onResponseError(controller, error)
    else super.onResponseError(controller, error)
  }

  /** A 206 is kept only with one known byte range, a strong ETag to join parts safely, and storable headers. */
  #storablePart (headers: IncomingHeaders, statusMessage: string): Part | undefined {
    const ctx = this.#ctx
    const id = describeKey(ctx.key)
    const contentRange = parseContentRange(headers['content-range'])
    const etag = typeof headers.etag === 'string' ? headers.etag : undefined
    if (contentRange === undefined || !isStrong(etag)) {
      log('not storing the 206 for %s: %s', id, contentRange === undefined ? 'no single byte range with a known length' : 'no strong ETag to join parts with')
      return undefined
    }
    // A 206 is heuristically cacheable like the 200 it is part of (RFC 9110 §15.1), so it is judged as one.
    const decision = decideStorageFor(ctx, 200, headers, statusMessage)
    if (!decision.store) {
      log('not storing the 206 for %s: %s', id, decision.reason)
      return undefined
    }
    return { range: contentRange.range, length: contentRange.length, value: { ...decision.value, statusCode: 206 }, chunks: [] }
  }

  async #store (part: Part): Promise<void> {
    const ctx = this.#ctx
    let body = Buffer.concat(part.chunks)
    if (body.length !== part.range.end - part.range.start + 1) {
      log('not storing the 206 for %s: its body does not fill its Content-Range', describeKey(ctx.key))
      return
    }
    let range = part.range
    const held = (await readStore(ctx.store, partialKey(ctx.key))).result
    const heldRange = held === undefined ? undefined : parseContentRange(held.headers['content-range'])
    // §3.4: parts may be joined only when they are of the same representation (same strong validator).
    if (held !== undefined && heldRange !== undefined && held.etag === part.value.etag && heldRange.length === part.length) {
      const joined = joinRanges(heldRange.range, range)
      if (joined !== undefined) {
        const merged = Buffer.alloc(joined.end - joined.start + 1)
        ;(await collectBody(held.body)).copy(merged, heldRange.range.start - joined.start)
        body.copy(merged, range.start - joined.start)
        body = merged
        range = joined
      }
    }
    if (range.start === 0 && range.end === part.length - 1) {
      const headers: Record<string, string | string[]> = { ...part.value.headers, 'content-length': String(part.length) }
      delete headers['content-range']
      log('the parts of %s now cover all %d bytes: storing the complete response', describeKey(ctx.key), part.length)
      await writeWhole(ctx.store, { ...ctx.key, method: 'GET' }, { ...part.value, statusCode: 200, statusMessage: 'OK', headers }, body)
      return
    }
    const headers = { ...part.value.headers, 'content-range': formatContentRange(range, part.length), 'content-length': String(body.length) }
    log('storing bytes %d-%d of %d for %s', range.start, range.end, part.length, describeKey(ctx.key))
    await writeWhole(ctx.store, partialKey(ctx.key), { ...part.value, headers }, body)
  }
}
