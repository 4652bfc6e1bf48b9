/**
 * The per-response work of the decompress interceptor: decodes the body through the shared
 * content decoders and keeps the caller's pause and resume honest while decoding.
 * @module
 */

import { debuglog } from 'node:util'
import { InterposedControllerHandler, RequestAbortedError, ResponseExceededMaxSizeError, BodyDecoder, maxResponseSizeOf, trimOws } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders, RequestTimings } from '../../src/handler.js'
import type { ResolvedDecompressOptions } from './options.js'

/** Writes one line when `NODE_DEBUG` lists `conduit:decompress`. */
export const log = debuglog('conduit:decompress')

/** What the caller's pause, resume and abort do while a body is decoded. */
class DecodingController implements DispatchController {
  readonly #owner: DecompressHandler
  #paused = false
  #reason: Error | null = null

  constructor (owner: DecompressHandler) {
    this.#owner = owner
  }

  get aborted (): boolean { return this.#reason !== null || (upstreamOf(this.#owner)?.aborted ?? false) }
  get paused (): boolean { return this.#paused }
  get timings (): RequestTimings | null { return upstreamOf(this.#owner)?.timings ?? null }
  get reason (): Error | null { return this.#reason ?? upstreamOf(this.#owner)?.reason ?? null }

  abort (reason: Error): void {
    if (this.#reason !== null) return
    this.#reason = reason ?? new RequestAbortedError()
    abortOf(this.#owner, this.#reason)
  }

  pause (): void {
    if (this.#paused) return
    this.#paused = true
    upstreamOf(this.#owner)?.pause()
  }

  resume (): void {
    if (!this.#paused) return
    this.#paused = false
    resumeOf(this.#owner)
  }
}

// Let DecodingController reach its handler's state without making it part of the handler's API.
let upstreamOf: (handler: DecompressHandler) => DispatchController | null
let abortOf: (handler: DecompressHandler, reason: Error) => void
let resumeOf: (handler: DecompressHandler) => void

/**
 * The error for `decoded` bytes of decoded body, or null while it is within both limits:
 * `maxSize` (0: none) and the transport's `maxResponseSize` (-1: none).
 */
function decodedLimitExceeded (decoded: number, maxSize: number, maxResponseSize: number): ResponseExceededMaxSizeError | null {
  if (maxSize > 0 && decoded > maxSize) return new ResponseExceededMaxSizeError(`decompress(): decoded response body exceeds maxSize (${maxSize} bytes)`)
  if (maxResponseSize >= 0 && decoded > maxResponseSize) return new ResponseExceededMaxSizeError(`decompress(): decoded response body exceeds maxResponseSize (${maxResponseSize} bytes)`)
  return null
}

/** Decodes one response body, if it is encoded and not skipped by the options. */
export class DecompressHandler extends InterposedControllerHandler {
  readonly #options: ResolvedDecompressOptions
  readonly #method: string
  // The caller's pause must hold back decoded data, not only the network: hence a controller of its own.
  protected readonly callerController: DecodingController = new DecodingController(this)
  #decoder: BodyDecoder | null = null
  /** Decoded chunks held while the caller is paused; made only when one is held (most answers are not encoded). */
  #queue: Buffer[] | null = null
  #decoded = 0
  /** The transport's `maxResponseSize` (-1: none): it bounds the bytes received, and here the decoded ones. */
  #maxResponseSize = -1
  #wrote = false
  #inputEnded = false
  #inputBlocked = false
  #trailers: IncomingHeaders | null = null
  #finishing = false
  #done = false

  /**
   * @param handler - the caller's handler
   * @param options - resolved interceptor options
   * @param method - the request method (a HEAD answer has no body to decode)
   */
  constructor (handler: DispatchHandler, options: ResolvedDecompressOptions, method: string) {
    super(handler)
    this.#options = options
    this.#method = method
  }

  static {
    upstreamOf = (handler) => handler.upstream
    abortOf = (handler, reason) => handler.#abort(reason)
    resumeOf = (handler) => handler.#resume()
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.#maxResponseSize = maxResponseSizeOf(context)
    super.onRequestStart(controller, context)
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.upstream = controller
    const raw = headers['content-encoding']
    const encoding = Array.isArray(raw) ? raw.join(', ') : raw
    const skip = this.#skipReason(statusCode, encoding)
    if (skip !== undefined) {
      if (encoding !== undefined) log('leaving %s body of a %d answer encoded: %s', encoding, statusCode, skip)
      super.onResponseStart(this.callerController, statusCode, headers, statusMessage)
      return
    }
    let decoder: BodyDecoder | null
    try {
      decoder = BodyDecoder.create(encoding!, {
        push: (chunk) => this.#push(chunk),
        end: () => this.#decoderEnded(),
        error: (err) => this.#fail(err as Error)
      }, { lenient: false, who: 'decompress()' })
    } catch (err) {
      log('refusing %d answer: %s', statusCode, (err as Error).message)
      controller.abort(err as Error)
      return
    }
    if (decoder === null) {
      log('leaving %s body of a %d answer encoded: not a coding this runtime decodes', encoding, statusCode)
      super.onResponseStart(this.callerController, statusCode, headers, statusMessage)
      return
    }
    this.#decoder = decoder
    log('decoding %s body of a %d answer', encoding, statusCode)
    const { 'content-encoding': _encoding, 'content-length': _length, ...decodedHeaders } = headers
    super.onResponseStart(this.callerController, statusCode, decodedHeaders, statusMessage)
  }

  #skipReason (statusCode: number, encoding: string | undefined): string | undefined {
    if (encoding === undefined || trimOws(encoding) === '') return 'no content coding'
    if (this.#method === 'HEAD') return 'a HEAD answer has no body'
    if (statusCode < 200) return 'informational answer'
    if (this.#options.skipStatusCodes.has(statusCode)) return `status ${statusCode} is in skipStatusCodes`
    if (this.#options.skipErrorResponses && statusCode >= 400) return 'error answers are skipped (skipErrorResponses)'
    return undefined
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    const decoder = this.#decoder
    if (decoder === null) {
      super.onResponseData(this.callerController, chunk)
      return
    }
    if (this.#done) return
    this.#wrote = true
    if (!decoder.write(chunk) && !this.#inputBlocked) {
      this.#inputBlocked = true
      controller.pause()
      decoder.onDrain(() => {
        this.#inputBlocked = false
        if (!this.callerController.paused && !this.#done) this.upstream?.resume()
      })
    }
  }

  override onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    const decoder = this.#decoder
    if (decoder === null) {
      super.onResponseEnd(this.callerController, trailers)
      return
    }
    if (this.#done) return
    this.#inputEnded = true
    this.#trailers = trailers
    if (!this.#wrote) {
      // An empty body decodes to an empty body; a decoder would call it truncated.
      decoder.destroy()
      this.#decoderEnded()
      return
    }
    decoder.end()
  }

  override onResponseError (_controller: DispatchController, error: Error): void {
    if (this.#done) return
    this.#done = true
    this.#decoder?.destroy()
    super.onResponseError(this.callerController, error)
  }

  #push (chunk: Buffer): void {
    if (this.#done) return
    this.#decoded += chunk.length
    // A few compressed bytes can decode to gigabytes: the limit on received bytes holds for the decoded ones too.
    const exceeded = decodedLimitExceeded(this.#decoded, this.#options.maxSize, this.#maxResponseSize)
    if (exceeded !== null) {
      this.#fail(exceeded)
      return
    }
    if (this.callerController.paused || (this.#queue !== null && this.#queue.length > 0)) (this.#queue ??= []).push(chunk)
    else super.onResponseData(this.callerController, chunk)
  }

  #decoderEnded (): void {
    this.#finishing = true
    this.#flush()
  }

  #flush (): void {
    const queue = this.#queue
    while (queue !== null && queue.length > 0 && !this.callerController.paused && !this.#done) {
      super.onResponseData(this.callerController, queue.shift()!)
    }
    if (this.#finishing && (queue === null || queue.length === 0) && !this.callerController.paused && !this.#done) {
      this.#done = true
      super.onResponseEnd(this.callerController, this.#trailers ?? {})
    }
  }

  #resume (): void {
    this.#flush()
    if (!this.#inputBlocked && !this.#done) this.upstream?.resume()
  }

  #fail (err: Error): void {
    if (this.#done) return
    log('decoding failed: %s', err.message)
    if (!this.#inputEnded && this.upstream !== null && !this.upstream.aborted) {
      // The transport answers the abort with onResponseError, which reports err once.
      this.upstream.abort(err)
      return
    }
    this.#done = true
    this.#decoder?.destroy()
    super.onResponseError(this.callerController, err)
  }

  #abort (reason: Error): void {
    if (this.#done) return
    if (!this.#inputEnded && this.upstream !== null) {
      this.upstream.abort(reason)
      return
    }
    // The network part is over; only the decoding is left to stop.
    this.#done = true
    this.#decoder?.destroy()
    super.onResponseError(this.callerController, reason)
  }
}
