/**
 * Writes a body that has to be read first (Readable, iterable, Blob) to a socket, with the
 * socket's backpressure, chunked framing when the length is unknown, and length checks.
 * @module
 */

import type { Blob } from 'node:buffer'
import { InvalidArgumentError, RequestAbortedError, RequestContentLengthMismatchError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { BODY_BLOB, BODY_READABLE } from './request-body.js'
import { setImmediate } from '../runtime/timers.js'

/** Told when the body is completely written or failed. */
export interface BodyWriterOwner {
  /** Every byte (and the last chunk when chunked) was handed to the socket. */
  onBodyWritten (bytes: number): void
  /** The body source failed, or its length did not match the declared one. */
  onBodyError (err: Error): void
  /** One chunk of the body is about to be handed to the socket. */
  onBodyChunk (chunk: Uint8Array): void
}

/**
 * Where a body is written: a socket, or anything that takes bytes with a socket's backpressure
 * (`write` returns false until 'drain'), such as an HTTP/2 stream.
 */
export interface BodyTarget {
  write (chunk: Uint8Array | string, encoding?: BufferEncoding): boolean
  cork (): void
  uncork (): void
  on (event: 'drain', listener: () => void): unknown
  off (event: 'drain', listener: () => void): unknown
}

type Source = NodeJS.ReadableStream & { destroy?: (err?: Error) => void, destroyed?: boolean, readableEnded?: boolean }

const LAST_CHUNK = '0\r\n\r\n'

/** Streams one request body; `abort()` stops it when the request fails for another reason. */
export class BodyWriter {
  readonly #socket: BodyTarget
  readonly #body: unknown
  readonly #kind: number
  readonly #chunked: boolean
  readonly #declared: number
  readonly #owner: BodyWriterOwner
  #written = 0
  #done = false
  #drainWaiter: (() => void) | null = null

  /**
   * @param declared - byte length promised by the head, or -1 (then the body is sent chunked)
   * @param frameChunks - false when the stream frames the body itself (an HTTP/2 stream): no
   * chunked encoding, whatever `declared` is
   */
  constructor (socket: BodyTarget, body: unknown, kind: number, declared: number, owner: BodyWriterOwner, frameChunks = true) {
    this.#socket = socket
    this.#body = body
    this.#kind = kind
    this.#declared = declared
    this.#chunked = frameChunks && declared < 0
    this.#owner = owner
  }

  /** Starts reading the body and writing it. */
  start (): void {
    this.#socket.on('drain', this.#onSocketDrain)
    if (this.#kind === BODY_READABLE) this.#pipeReadable(this.#body as Source)
    else {
      const source = this.#kind === BODY_BLOB ? (this.#body as Blob).stream() : this.#body
      this.#pumpIterable(source as AsyncIterable<unknown> | Iterable<unknown>).catch((err: unknown) => this.#fail(toError(err)))
    }
  }

  /**
   * Stops writing; a Readable body is destroyed so its producer stops too. With `afterATurn` it
   * is paused now and destroyed on the next turn of the event loop, after what the caller does
   * with the response that made it stop.
   */
  abort (afterATurn = false): void {
    if (this.#done) return
    this.#done = true
    this.#release()
    if (!afterATurn || this.#kind !== BODY_READABLE) {
      this.#destroyReadable()
      return
    }
    ;(this.#body as Source).pause()
    setImmediate(() => this.#destroyReadable())
  }

  /** Destroys a Readable body, so its producer stops and its resources go (undici does the same). */
  #destroyReadable (): void {
    if (this.#kind === BODY_READABLE) {
      const body = this.#body as Source
      if (typeof body.destroy === 'function' && body.destroyed !== true) body.destroy()
    }
  }

  #release (): void {
    this.#socket.off('drain', this.#onSocketDrain)
    const waiter = this.#drainWaiter
    this.#drainWaiter = null
    waiter?.()
  }

  readonly #onSocketDrain = (): void => {
    if (this.#kind === BODY_READABLE) {
      if (!this.#done) (this.#body as Source).resume()
      return
    }
    const waiter = this.#drainWaiter
    this.#drainWaiter = null
    waiter?.()
  }

  /** Writes one chunk; returns false when the socket asks to wait for 'drain'. */
  #write (chunk: unknown): boolean {
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
      // String() would send "[object Object]" or "5" as body bytes; the request fails instead.
      this.#fail(new InvalidArgumentError(`request body chunks must be strings or bytes (Buffer, Uint8Array), got ${describeValue(chunk)}`))
      return true
    }
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    if (buf.length === 0) return true
    this.#written += buf.length
    if (this.#declared >= 0 && this.#written > this.#declared) {
      this.#fail(new RequestContentLengthMismatchError(`request body is longer than its content-length (${this.#declared} bytes)`))
      return true
    }
    this.#owner.onBodyChunk(buf)
    const socket = this.#socket
    if (!this.#chunked) return socket.write(buf)
    socket.cork()
    socket.write(`${buf.length.toString(16)}\r\n`, 'latin1')
    socket.write(buf)
    const ok = socket.write('\r\n', 'latin1')
    socket.uncork()
    return ok
  }

  #finish (): void {
    if (this.#done) return
    if (this.#declared >= 0 && this.#written !== this.#declared) {
      this.#fail(new RequestContentLengthMismatchError(`request body ended after ${this.#written} of the ${this.#declared} bytes its content-length declared`))
      return
    }
    this.#done = true
    this.#release()
    // A stream that does not destroy itself on end (autoDestroy: false) would keep its resources.
    this.#destroyReadable()
    if (this.#chunked) this.#socket.write(LAST_CHUNK, 'latin1')
    this.#owner.onBodyWritten(this.#written)
  }

  #fail (err: Error): void {
    if (this.#done) return
    this.abort()
    this.#owner.onBodyError(err)
  }

  #pipeReadable (body: Source): void {
    // A stream whose 'end' was emitted before the request (read to its end, or read(0) on an
    // ended empty one) has nothing left to send, whether or not it destroyed itself since: it
    // is an empty body, as undici sends it.
    if (body.readableEnded === true && (body as { errored?: Error | null }).errored == null) {
      this.#finish()
      return
    }
    if (body.listenerCount('readable') > 0) {
      // A 'readable' listener keeps the stream out of flowing mode: its bytes go to whoever
      // calls read() there, never to 'data', so the request would wait for a body that never comes.
      this.#fail(new InvalidArgumentError('request body stream has a \'readable\' listener, which takes its data: remove it, or pass the data instead of the stream'))
      return
    }
    if (body.destroyed === true) {
      const errored = (body as { errored?: Error | null }).errored
      this.#fail(errored ?? new RequestAbortedError('request body stream was destroyed before it was sent'))
      return
    }
    const onData = (chunk: unknown): void => {
      if (this.#done) return
      if (!this.#write(chunk)) body.pause()
    }
    const onEnd = (): void => { cleanup(); this.#finish() }
    const onError = (err: Error): void => { cleanup(); this.#fail(err) }
    const onClose = (): void => {
      cleanup()
      if (body.readableEnded !== true) this.#fail(new RequestAbortedError('request body stream closed before it ended'))
    }
    const cleanup = (): void => {
      body.off('data', onData)
      body.off('end', onEnd)
      body.off('error', onError)
      body.off('close', onClose)
    }
    body.on('data', onData)
    body.on('end', onEnd)
    body.on('error', onError)
    body.on('close', onClose)
    body.resume()
  }

  async #pumpIterable (source: AsyncIterable<unknown> | Iterable<unknown>): Promise<void> {
    for await (const chunk of source) {
      if (this.#done) return
      if (!this.#write(chunk)) {
        await new Promise<void>((resolve) => { this.#drainWaiter = resolve })
      }
      if (this.#done) return
    }
    this.#finish()
  }
}

function toError (err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err))
}
