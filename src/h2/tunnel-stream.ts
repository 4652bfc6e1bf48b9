/**
 * A CONNECT stream (RFC 9113 section 8.5; RFC 8441's extended CONNECT for WebSocket) handed to
 * its caller as a Duplex once the server answered 2xx: what the caller writes goes out as DATA
 * within the stream's windows, what the server sends is read with the same backpressure as a
 * response body (the window opens only as the reader takes the bytes), and the tunnel answers
 * where it leads as a socket does, so whoever takes it needs to know nothing of HTTP/2.
 * @module
 */

import { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import type { LibraryError } from '../errors.js'
import { SocketError } from '../errors.js'
import type { H2Session } from './framing/session.js'
import { ErrorCode } from './error-codes.js'
import { H2ProtocolError } from './framing/protocol-error.js'

const EMPTY = Buffer.alloc(0)

function noop (): void {}

/** One tunnel over one stream of a session. */
export class H2Tunnel extends Duplex {
  readonly #session: H2Session
  readonly #id: number
  readonly #peer: Partial<Socket>
  /** Bytes pushed to the reader that the session has not yet been told were read. */
  #unread = 0
  /** The callback of a write waiting for window. */
  #pendingWrite: ((error?: Error | null) => void) | null = null
  /** The session closed the stream: nothing more goes out or comes in. */
  #streamClosed = false

  /**
   * @param early - bytes of the stream that arrived before the tunnel was handed over, in order
   */
  constructor (session: H2Session, id: number, peer: unknown, early: Buffer[]) {
    super({ allowHalfOpen: true })
    this.#session = session
    this.#id = id
    this.#peer = peer as Partial<Socket>
    // Errors nobody listens to are the caller's to notice on close; they must not be thrown.
    this.on('error', noop)
    for (const chunk of early) this.onData(chunk, false)
  }

  /** The peer's address, as a socket's. */
  get remoteAddress (): string | undefined { return this.#peer.remoteAddress }
  /** The peer's port, as a socket's. */
  get remotePort (): number | undefined { return this.#peer.remotePort }
  /** The peer's address family, as a socket's. */
  get remoteFamily (): string | undefined { return this.#peer.remoteFamily }

  /** The server sent bytes on the stream (and maybe ended its side). */
  onData (data: Buffer, endStream: boolean): void {
    if (data.length > 0) {
      this.#unread += data.length
      if (this.push(data)) this.#returnWindow()
    }
    if (endStream) this.push(null)
  }

  /** The stream closed: cleanly once both sides ended, else with `error`. */
  onClose (error: LibraryError | null): void {
    this.#streamClosed = true
    const waiting = this.#pendingWrite
    this.#pendingWrite = null
    // RST_STREAM NO_ERROR from the server ends the tunnel as END_STREAM would: nothing went wrong.
    if (error !== null && !(error instanceof H2ProtocolError && error.remote && error.errorCode === ErrorCode.NO_ERROR)) {
      waiting?.(error)
      this.destroy(error)
      return
    }
    waiting?.()
    this.push(null)
    if (error !== null) this.destroy()
  }

  /** Data waiting for window went out. */
  onWritable (): void {
    const waiting = this.#pendingWrite
    this.#pendingWrite = null
    waiting?.()
  }

  override _read (): void {
    this.#returnWindow()
  }

  override _write (chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#streamClosed) {
      callback(new SocketError('HTTP/2 tunnel stream is closed'))
      return
    }
    try {
      if (this.#session.write(this.#id, chunk, false)) callback()
      else this.#pendingWrite = callback
    } catch (error) {
      callback(error as Error)
    }
  }

  override _final (callback: (error?: Error | null) => void): void {
    if (!this.#streamClosed) {
      try {
        this.#session.write(this.#id, EMPTY, true)
      } catch (error) {
        callback(error as Error)
        return
      }
    }
    callback()
  }

  override _destroy (error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#streamClosed) {
      this.#streamClosed = true
      this.#session.reset(this.#id, ErrorCode.CANCEL)
    }
    callback(error)
  }

  #returnWindow (): void {
    if (this.#unread === 0) return
    const bytes = this.#unread
    this.#unread = 0
    this.#session.consumed(this.#id, bytes)
  }
}
