/**
 * The response body of `request()`: a Readable with one-shot consumers (text, json, bytes, ...).
 * @module
 */

import { Readable } from 'node:stream'
import { Blob } from 'node:buffer'
import { RequestAbortedError, InvalidArgumentError } from '../errors.js'
import type { DispatchController } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'
import { BodyIterator } from './body-iterator.js'

/** Default number of bytes `dump()` reads before it gives up on a body and closes the connection. */
export const DEFAULT_DUMP_LIMIT = 128 * 1024

/** Default high-water mark of a response body, in bytes. */
export const DEFAULT_BODY_HIGH_WATER_MARK = 64 * 1024

/** What a body needs from the dispatch it reads; a {@link DispatchController} fits. */
export interface BodySource {
  /** The consumer wants more data. */
  resume (): void
  /** The body was destroyed before its end: the rest of the response is not wanted. */
  abort (reason: Error): void
}

const EMPTY = Buffer.alloc(0)

// dump() swallows stream errors: its caller did not want the body, only the connection back.
function ignoreError (): void {}

/**
 * A response body. Read it as a stream, or once with `text()`, `json()`, `bytes()`,
 * `arrayBuffer()`, `blob()` or `dump()`; a second consumption throws a `TypeError`.
 */
export class BodyReadable extends Readable {
  #used = false
  /** The end of the body was pushed (it may still wait in the buffer, unread). */
  #ended = false
  #contentType: string
  readonly #source: BodySource

  /**
   * @param source - resumed when the consumer wants more data, aborted when the body is destroyed
   *   before its end; the dispatch's controller fits, so no closure is made per response
   * @param contentType - the response's content-type, used by `blob()`
   * @param highWaterMark - bytes buffered before the dispatch is paused
   */
  constructor (source: BodySource, contentType = '', highWaterMark = DEFAULT_BODY_HIGH_WATER_MARK) {
    super({ highWaterMark, autoDestroy: true })
    this.#source = source
    this.#contentType = contentType
  }

  /** Adds a chunk of the body, or `null` at its end; false asks the producer to pause. */
  override push (chunk: Buffer | null, encoding?: BufferEncoding): boolean {
    if (chunk === null) this.#ended = true
    return super.push(chunk, encoding)
  }

  /** Called by Readable when the consumer wants more data: resumes the dispatch. */
  override _read (): void {
    this.#source.resume()
  }

  /** Called by Readable on `destroy()`: aborts the dispatch if the body had not ended. */
  override _destroy (err: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed before the end, even without an error: the body failed (undici's rule), so
    // 'end' never follows and a consumer or iterator sees why.
    if (err === null && !this.readableEnded) err = new RequestAbortedError('response body was destroyed before it ended')
    // A body aborted before anyone reads it must not crash the process with an unhandled
    // 'error' event; the error stays in `errored` and the next consumer call rejects with it.
    if (err !== null && this.listenerCount('error') === 0) this.on('error', ignoreError)
    // The rest of the response is not wanted: free the connection.
    if (!this.readableEnded) this.#source.abort(err!)
    callback(err)
  }

  /** The end of the body was pushed; it may still wait in the buffer, unread. */
  get endPushed (): boolean {
    return this.#ended
  }

  /** `for await`: Node's iterator semantics, without its cost for a body already buffered (see BodyIterator). */
  override [Symbol.asyncIterator] (): NodeJS.AsyncIterator<Buffer> {
    // Typed as Readable's is, so the declaration holds under every @types/node; the iterator
    // inherits %AsyncIteratorPrototype% as Readable's does.
    return new BodyIterator(this) as unknown as NodeJS.AsyncIterator<Buffer>
  }

  /**
   * True once a consumer method ran, data was read, or the body was destroyed before its end
   * (undici's rule: an empty body that ended without a read is still unused).
   */
  get bodyUsed (): boolean {
    return this.#used || this.readableDidRead || this.readableAborted
  }

  /** Reads the whole body as UTF-8 text. */
  async text (): Promise<string> {
    return (await this.#collect()).toString('utf8')
  }

  /** Reads the whole body and parses it as JSON. */
  async json (): Promise<unknown> {
    return JSON.parse(await this.text())
  }

  /** Reads the whole body into a Uint8Array. */
  async bytes (): Promise<Uint8Array> {
    const buf = await this.#collect()
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
  }

  /** Reads the whole body into an ArrayBuffer. */
  async arrayBuffer (): Promise<ArrayBuffer> {
    const buf = await this.#collect()
    const out = new ArrayBuffer(buf.byteLength)
    new Uint8Array(out).set(buf)
    return out
  }

  /** Reads the whole body into a Blob typed with the response's content-type. */
  async blob (): Promise<Blob> {
    const buf = await this.#collect()
    return new Blob([buf], { type: this.#contentType })
  }

  /**
   * Reads and discards the body so the connection can be reused. If more than `limit` bytes
   * remain, the body is destroyed instead (the connection is closed).
   */
  async dump (opts: { limit?: number, signal?: AbortSignal } = {}): Promise<void> {
    const limit = opts.limit ?? DEFAULT_DUMP_LIMIT
    if (!Number.isFinite(limit) || limit < 0) {
      throw new InvalidArgumentError(`dump(): limit must be a non-negative number, got ${describeValue(limit)}`)
    }
    const signal = opts.signal
    if (signal?.aborted) {
      this.on('error', ignoreError)
      this.destroy(new RequestAbortedError('dump() was aborted', { cause: signal.reason }))
      throw signal.reason ?? new RequestAbortedError()
    }
    this.#used = true
    if (this.readableEnded || this.destroyed) return
    await new Promise<void>((resolve) => {
      let read = 0
      const onAbort = (): void => { this.destroy(new RequestAbortedError('dump() was aborted')) }
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      this.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > limit) this.destroy()
      })
      this.once('close', done)
      this.on('error', ignoreError)
    })
  }

  #collect (): Promise<Buffer> {
    // A body that failed rejects with its error, whoever read it before (as in undici).
    if (this.errored) {
      this.#used = true
      return Promise.reject(this.errored)
    }
    if (this.bodyUsed) {
      return Promise.reject(new TypeError('Body is unusable: Body has already been read'))
    }
    // Ended without a read: an empty body (its 'end' and 'close' are past, nothing to wait for).
    if (this.readableEnded) {
      this.#used = true
      return Promise.resolve(EMPTY)
    }
    if (this.locked) {
      return Promise.reject(new TypeError('Body is unusable: Body is locked by a stream reader'))
    }
    this.#used = true
    if (this.#ended && !this.destroyed && this.readableFlowing !== true) {
      // The whole body is already here (a small response arrives with its head): take it from
      // the buffer at once, with no listeners and no flowing mode. Reading the buffer empty
      // ends the stream as consuming it would ('end', then 'close').
      // One read() returns the whole buffer on Node 20 to 24, a single chunk on Node 26: read
      // until the buffer is empty.
      const chunks: Buffer[] = []
      for (let chunk = this.read() as Buffer | null; chunk !== null; chunk = this.read() as Buffer | null) chunks.push(chunk)
      return Promise.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      let length = 0
      this.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        length += chunk.length
      })
      this.once('end', () => {
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length))
      })
      this.once('error', reject)
      this.once('close', () => {
        if (!this.readableEnded) reject(this.errored ?? new RequestAbortedError('response body closed before it ended'))
      })
    })
  }

  /** True while piped into another stream (consumer methods then refuse). */
  get locked (): boolean {
    return this.readableFlowing === true && !this.#used
  }
}
