/**
 * `WebSocketStream` (the WHATWG explainer, as undici exports it): a WebSocket as a readable
 * stream of messages and a writable stream to send them, with backpressure both ways: reading
 * from the socket pauses while the readable's queue is full, and a write settles once its
 * message was handed to the network.
 * @module
 */

import type { BufferSource } from './dom-types.js'
import { WebSocketHandshakeError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { CLOSE_ABNORMAL } from './constants.js'
import { WebSocketConnection } from './connection.js'
import type { ConnectionOwner } from './connection.js'
import { checkCloseArguments } from './close-arguments.js'
import { bufferSourceBytes, toUSVString } from '../fetch/webidl.js'
import { Handshake } from './handshake.js'
import type { HandshakeResult } from './handshake.js'
import { websocketEvents } from './observability.js'
import { WebSocketError } from './websocket-error.js'
import type { WebSocketCloseInfo } from './websocket-error.js'
import { resolveWebSocketOptions, shownUrl } from './websocket-options.js'
import type { ResolvedWebSocketOptions, WebSocketInit } from './websocket-options.js'

/** Options of `new WebSocketStream(url, options)`. */
export interface WebSocketStreamOptions extends Omit<WebSocketInit, 'protocols'> {
  /** Subprotocols to ask for. */
  protocols?: string[] | undefined
  /** Aborts the handshake. */
  signal?: AbortSignal | undefined
  /** Messages the readable queues before reading from the socket pauses. @defaultValue 16 */
  highWaterMark?: number | undefined
}

/** What `opened` resolves with. */
export interface WebSocketOpenInfo {
  /** The extensions in use, or `''`. */
  extensions: string
  /** The subprotocol the server chose, or `''`. */
  protocol: string
  /** Messages: strings for text, Uint8Arrays for binary. */
  readable: ReadableStream<string | Uint8Array>
  /** Messages to send: strings as text, BufferSources as binary. */
  writable: WritableStream<string | BufferSource>
}

interface Deferred<T> { promise: Promise<T>, resolve: (value: T) => void, reject: (reason: unknown) => void }

function deferred<T> (): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej })
  // A caller that only awaits one of `opened` / `closed` must not see the other as unhandled.
  promise.catch(() => {})
  return { promise, resolve, reject }
}

/**
 * A WebSocket connection as a pair of streams.
 * @example
 * const wss = new WebSocketStream('ws://127.0.0.1:8080/')
 * const { readable, writable } = await wss.opened
 * await writable.getWriter().write('hello')
 */
export class WebSocketStream {
  readonly #url: URL
  readonly #shownUrl: string
  readonly #options: ResolvedWebSocketOptions
  readonly #opened = deferred<WebSocketOpenInfo>()
  readonly #closed = deferred<Required<WebSocketCloseInfo>>()
  #handshake: Handshake | null = null
  #connection: WebSocketConnection | null = null
  #readable: ReadableStreamDefaultController<string | Uint8Array> | null = null
  #writable: WritableStreamDefaultController | null = null
  #failure = ''
  #done = false

  /** @throws DOMException `SyntaxError` for a bad URL or subprotocol list */
  constructor (url: string | URL, options: WebSocketStreamOptions = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError(`new WebSocketStream(): options must be an object, got ${describeValue(options)}`)
    this.#options = resolveWebSocketOptions('new WebSocketStream()', url, options)
    this.#url = this.#options.url
    this.#shownUrl = shownUrl(this.#url)
    const highWaterMark = options.highWaterMark ?? 16
    const signal = options.signal
    if (signal?.aborted === true) {
      this.#opened.reject(signal.reason)
      this.#closed.reject(signal.reason)
      this.#done = true
      return
    }
    const request = { url: this.#url, protocols: this.#options.protocols, headers: this.#options.headers, offerDeflate: this.#options.perMessageDeflate }
    signal?.addEventListener('abort', () => {
      if (this.#handshake === null) return
      // The standard's abort steps (as undici 8): both promises reject with the signal's reason.
      this.#done = true
      this.#opened.reject(signal.reason)
      this.#closed.reject(signal.reason)
      this.#handshake.abort(new WebSocketHandshakeError(`the handshake with ${this.#shownUrl} was aborted`))
    }, { once: true })
    this.#handshake = new Handshake(request, this.#options.dispatcher, {
      onOpen: (result) => this.#onOpen(result, highWaterMark),
      onError: (error) => this.#onHandshakeError(error)
    })
  }

  /** The URL. */
  get url (): string { return this.#url.href }
  /** Settles once the connection is open: the streams, the protocol and the extensions. */
  get opened (): Promise<WebSocketOpenInfo> { return this.#opened.promise }
  /** Settles once the connection is closed: `{ closeCode, reason }`, or a WebSocketError after a failure. */
  get closed (): Promise<Required<WebSocketCloseInfo>> { return this.#closed.promise as Promise<Required<WebSocketCloseInfo>> }

  /**
   * Starts the close handshake (or abandons the handshake).
   * @throws DOMException `InvalidAccessError` / `SyntaxError` for a bad code or reason
   */
  close (closeInfo: WebSocketCloseInfo = {}): void {
    const checked = checkCloseArguments('WebSocketStream.close()', closeInfo.closeCode, closeInfo.reason)
    if (this.#connection !== null) this.#connection.close(checked.code, checked.reason)
    else this.#handshake?.abort(new WebSocketHandshakeError(`WebSocketStream to ${this.#shownUrl} was closed before the handshake completed`))
  }

  #onHandshakeError (error: Error): void {
    this.#handshake = null
    websocketEvents.decision(this.#shownUrl, `handshake failed - ${error.message}`)
    if (this.#done) return
    this.#done = true
    const failure = WebSocketError.fromConnection(`WebSocket handshake with ${this.#shownUrl} failed: ${error.message}`, CLOSE_ABNORMAL, '')
    this.#opened.reject(failure)
    this.#closed.reject(failure)
  }

  #onOpen (result: HandshakeResult, highWaterMark: number): void {
    this.#handshake = null
    if (this.#done) {
      result.socket.destroy()
      return
    }
    const connection = new WebSocketConnection(result.socket, this.#owner, {
      maxMessageSize: this.#options.maxMessageSize,
      maxFragments: this.#options.maxFragments,
      closeTimeoutMs: this.#options.closeTimeoutMs,
      deflate: result.deflate
    })
    this.#connection = connection
    const readable = new ReadableStream<string | Uint8Array>({
      start: (controller) => { this.#readable = controller },
      pull: () => { connection.resumeReading() },
      cancel: (reason) => {
        // A cancelled readable is closed: nothing may be queued or closed on it again.
        this.#readable = null
        connection.resumeReading()
        this.#closeWith(reason)
      }
    }, { highWaterMark })
    const writable = new WritableStream<string | BufferSource>({
      start: (controller) => { this.#writable = controller },
      write: (chunk) => new Promise<void>((resolve, reject) => {
        if (connection.closing) {
          reject(new DOMException('the WebSocketStream is closing', 'InvalidStateError'))
          return
        }
        if (typeof chunk === 'string') {
          connection.sendText(chunk, resolve)
          return
        }
        // A BufferSource is binary; anything else is text, converted as WebIDL converts a USVString.
        const bytes = bufferSourceBytes(chunk, 'WebSocketStream write')
        if (bytes !== null) connection.sendBinary(bytes, resolve)
        else connection.sendText(toUSVString(chunk, 'WebSocketStream write'), resolve)
      }),
      close: () => { connection.close(undefined, '') },
      abort: (reason) => { this.#closeWith(reason) }
    })
    this.#opened.resolve({ extensions: result.extensions, protocol: result.protocol, readable, writable })
    websocketEvents.open(this, result.socket, result.protocol, result.extensions, result.status, result.headers)
  }

  /** Closes with the code and reason of a WebSocketError, or with no code for any other reason. */
  #closeWith (reason: unknown): void {
    if (reason instanceof WebSocketError) this.close({ closeCode: reason.closeCode ?? undefined, reason: reason.reason })
    else this.close()
  }

  readonly #owner: ConnectionOwner = {
    onMessage: (text, data, owned) => {
      const readable = this.#readable
      if (readable === null) return
      // A buffer the connection owns alone is handed over; a view of a socket chunk is copied.
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.length)
      readable.enqueue(text ? data.toString('utf8') : owned ? bytes : bytes.slice())
      // Backpressure: the socket is read again when the consumer pulls.
      if ((readable.desiredSize ?? 1) <= 0) this.#connection!.pauseReading()
    },
    onPing: (payload) => { websocketEvents.ping(this, payload) },
    onPong: (payload) => { websocketEvents.pong(this, payload) },
    onCloseFrame: (code, reason) => {
      websocketEvents.decision(this.#shownUrl, `the server closed with ${code}${reason === '' ? '' : ` ${reason}`}`)
    },
    onFailure: (code, reason, socketError) => {
      if (socketError !== null) websocketEvents.socketError(socketError)
      websocketEvents.decision(this.#shownUrl, `connection failed with ${code} - ${reason}`)
      this.#failure = reason
    },
    onClosed: (wasClean, code, reason) => {
      this.#done = true
      if (wasClean) {
        // The consumer may have cancelled the readable already; closing it again would throw.
        if (this.#readable !== null && this.#readable.desiredSize !== null) this.#readable.close()
        this.#writable?.error(new DOMException('a closed WebSocketStream cannot be written to', 'InvalidStateError'))
        this.#closed.resolve({ closeCode: code, reason })
      } else {
        const error = WebSocketError.fromConnection(`WebSocket connection to ${this.#shownUrl} closed uncleanly${this.#failure === '' ? '' : `: ${this.#failure}`}`, code, reason)
        this.#readable?.error(error)
        this.#writable?.error(error)
        this.#closed.reject(error)
      }
      websocketEvents.close(this, this.#shownUrl, code, reason)
    },
    onSent: () => {}
  }
}
