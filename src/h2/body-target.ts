/**
 * A request body's way onto its HTTP/2 stream, for the bodies that are read as they are sent
 * (a Readable, an iterable, a Blob): the body writer writes here as it would to a socket, and
 * the stream's send window is the backpressure ('drain' once what waited for window went out).
 * @module
 */

import type { BodyTarget } from '../connection/body-writer.js'
import type { H2Session } from './framing/session.js'

/** The body target of one stream. */
export class StreamBodyTarget implements BodyTarget {
  readonly #session: H2Session
  readonly #id: number
  #onDrain: (() => void) | null = null

  constructor (session: H2Session, id: number) {
    this.#session = session
    this.#id = id
  }

  write (chunk: Uint8Array | string): boolean {
    const data = typeof chunk === 'string'
      ? Buffer.from(chunk)
      : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    return this.#session.write(this.#id, data, false)
  }

  /** The stream frames the body itself: nothing to batch. */
  cork (): void {}

  /** The stream frames the body itself: nothing to batch. */
  uncork (): void {}

  on (_event: 'drain', listener: () => void): this {
    this.#onDrain = listener
    return this
  }

  off (_event: 'drain', listener: () => void): this {
    if (this.#onDrain === listener) this.#onDrain = null
    return this
  }

  /** What waited for window went out: the writer may go on. */
  drained (): void {
    this.#onDrain?.()
  }

  /** Ends the request body on the stream. */
  end (): void {
    this.#session.write(this.#id, EMPTY, true)
  }
}

const EMPTY = Buffer.alloc(0)
