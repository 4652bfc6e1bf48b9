/**
 * Content decoding of response bodies (gzip, deflate, br, and zstd where the runtime has it),
 * undone in reverse order of application as RFC 9110 section 8.4 lists them. fetch() and the
 * decompress interceptor both decode through here.
 * @module
 */

import { pipeline, Transform } from 'node:stream'
import type { TransformCallback } from 'node:stream'
import zlib from 'node:zlib'
import { trimOws } from '../connection/field-syntax.js'

type ZstdFactory = () => Transform
const createZstd = (zlib as unknown as { createZstdDecompress?: ZstdFactory }).createZstdDecompress

/** Most content codings applied to one response that are undone; more is refused as resource exhaustion. */
export const MAX_CONTENT_CODINGS = 5

/** The content codings this runtime can undo, in the order sent in `Accept-Encoding`. */
export const SUPPORTED_CODINGS: readonly string[] = ['gzip', 'deflate', 'br', ...(createZstd === undefined ? [] : ['zstd'])]

/** The `Accept-Encoding` value fetch sends when the caller set none. */
export const ACCEPT_ENCODING = SUPPORTED_CODINGS.join(', ')

/** How a {@link BodyDecoder} is built. */
export interface BodyDecoderOptions {
  /**
   * Accept a compressed stream that was cut short, delivering what it decoded (browsers do);
   * otherwise such a body ends with the decoder's error.
   * @defaultValue true
   */
  lenient?: boolean | undefined
  /** Who decodes, for error messages, e.g. `fetch` or `decompress()`. */
  who: string
}

/**
 * `deflate` is specified as zlib-wrapped (RFC 1950), but servers often send raw deflate (RFC 1951);
 * the first byte tells them apart, so the inflater is chosen when it arrives.
 */
class DeflateDecoder extends Transform {
  #inner: zlib.Inflate | zlib.InflateRaw | null = null
  readonly #options: zlib.ZlibOptions

  constructor (options: zlib.ZlibOptions) {
    super()
    this.#options = options
  }

  override _transform (chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#inner === null) {
      this.#inner = (chunk[0]! & 0x0f) === 0x08 ? zlib.createInflate(this.#options) : zlib.createInflateRaw(this.#options)
      this.#inner.on('data', (data: Buffer) => this.push(data))
      this.#inner.on('error', (err) => this.destroy(err))
    }
    this.#inner.write(chunk, () => callback())
  }

  override _flush (callback: TransformCallback): void {
    if (this.#inner === null) {
      callback()
      return
    }
    this.#inner.once('end', () => callback())
    this.#inner.end()
  }
}

const LENIENT_ZLIB: zlib.ZlibOptions = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }
const LENIENT_BROTLI: zlib.BrotliOptions = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }

function decoderFor (coding: string, lenient: boolean): Transform | null | undefined {
  // Sync flush on finish tolerates bodies whose compressed stream was cut short, as browsers do.
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(lenient ? LENIENT_ZLIB : {})
    case 'deflate':
      return new DeflateDecoder(lenient ? LENIENT_ZLIB : {})
    case 'br':
      return zlib.createBrotliDecompress(lenient ? LENIENT_BROTLI : {})
    case 'zstd':
      return createZstd === undefined ? undefined : createZstd()
    case 'identity':
    case '':
      return null
    default:
      return undefined
  }
}

/** Where decoded bytes go. */
export interface DecodedSink {
  /** A decoded chunk. */
  push (chunk: Buffer): void
  /** The body is fully decoded. */
  end (): void
  /** Decoding failed; nothing more follows. */
  error (err: unknown): void
}

/** A chain of decoders between the dispatcher's chunks and the response body. */
export class BodyDecoder {
  readonly #first: Transform
  readonly #last: Transform

  private constructor (chain: Transform[], sink: DecodedSink) {
    this.#first = chain[0]!
    this.#last = chain[chain.length - 1]!
    this.#last.on('data', (chunk: Buffer) => sink.push(chunk))
    const done = (err: Error | null | undefined): void => {
      if (err) sink.error(err)
      else sink.end()
    }
    if (chain.length === 1) {
      this.#first.on('error', done)
      this.#first.once('end', () => done(null))
    } else {
      pipeline(chain, done)
    }
  }

  /**
   * Builds the decoders for a `Content-Encoding` value. Returns null when the body should be
   * passed through as it is (no coding, or one this runtime cannot undo), and throws a
   * `TypeError` when more than {@link MAX_CONTENT_CODINGS} codings are listed.
   */
  static create (contentEncoding: string, sink: DecodedSink, options: BodyDecoderOptions): BodyDecoder | null {
    const lenient = options.lenient ?? true
    const codings = contentEncoding.toLowerCase().split(',').map((c) => trimOws(c)).filter((c) => c !== '' && c !== 'identity')
    if (codings.length === 0) return null
    if (codings.length > MAX_CONTENT_CODINGS) {
      throw new TypeError(`${options.who}: too many content codings (${codings.length}, at most ${MAX_CONTENT_CODINGS}): ${contentEncoding}`)
    }
    const chain: Transform[] = []
    for (let i = codings.length - 1; i >= 0; i--) {
      const decoder = decoderFor(codings[i]!, lenient)
      if (decoder === undefined) {
        for (const built of chain) built.destroy()
        return null
      }
      if (decoder !== null) chain.push(decoder)
    }
    return chain.length === 0 ? null : new BodyDecoder(chain, sink)
  }

  /** Feeds compressed bytes; false means wait for `onDrain` before feeding more. */
  write (chunk: Buffer): boolean {
    // After a decoding error the rest of the body is dropped; writing to a destroyed stream would throw.
    if (this.#first.destroyed) return true
    return this.#first.write(chunk)
  }

  /** Calls `listener` once the decoder can take more input. */
  onDrain (listener: () => void): void {
    this.#first.once('drain', listener)
  }

  /** No more compressed bytes. */
  end (): void {
    if (!this.#first.destroyed) this.#first.end()
  }

  /** Stops decoding (the body was cancelled or the dispatch failed). */
  destroy (): void {
    this.#first.destroy()
    if (this.#last !== this.#first) this.#last.destroy()
  }
}
