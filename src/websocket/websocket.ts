/**
 * `WebSocket` as the WebSockets standard defines it, on conduit's dispatchers: the handshake is a
 * dispatch (so proxies, TLS options and interceptors apply), the protocol is conduit's own
 * (see `connection.ts`). Also `ping(ws, payload)`, as undici exports it.
 * @module
 */

import { WebSocketHandshakeError, WebSocketProtocolError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { CLOSE_ABNORMAL, CLOSED, CLOSING, CONNECTING, MAX_CONTROL_PAYLOAD, OPEN } from './constants.js'
import { WebSocketConnection } from './connection.js'
import type { ConnectionOwner } from './connection.js'
import { CloseEvent, ErrorEvent, MessageEvent } from './dom-events.js'
import { EventHandlerSlots } from './event-handlers.js'
import { Handshake } from './handshake.js'
import type { HandshakeResult } from './handshake.js'
import { websocketEvents } from './observability.js'
import { checkCloseArguments } from './close-arguments.js'
import { bufferSourceBytes, defineConstants, defineToStringTag, enumerableMembers, requireArguments, toUSVString } from '../fetch/webidl.js'
import { resolveWebSocketOptions, shownUrl } from './websocket-options.js'
import type { ResolvedWebSocketOptions, WebSocketInit } from './websocket-options.js'

/** What `binaryType` selects: binary messages as `Blob`s or as `ArrayBuffer`s. */
export type BinaryType = 'blob' | 'arraybuffer'

/** Anything `send()` takes. */
export type WebSocketSendData = string | ArrayBufferLike | ArrayBufferView | Blob

/**
 * A WebSocket client connection (WHATWG WebSockets standard).
 * @example
 * const ws = new WebSocket('ws://127.0.0.1:8080/chat', ['chat'])
 * ws.onmessage = (event) => { console.log(event.data); ws.close() }
 * ws.onopen = () => ws.send('hello')
 */
export class WebSocket extends EventTarget {
  /** `readyState`: connecting. */
  static readonly CONNECTING = CONNECTING
  /** `readyState`: open. */
  static readonly OPEN = OPEN
  /** `readyState`: closing. */
  static readonly CLOSING = CLOSING
  /** `readyState`: closed. */
  static readonly CLOSED = CLOSED
  /** `readyState`: connecting. */
  declare readonly CONNECTING: 0
  /** `readyState`: open. */
  declare readonly OPEN: 1
  /** `readyState`: closing. */
  declare readonly CLOSING: 2
  /** `readyState`: closed. */
  declare readonly CLOSED: 3

  readonly #url: URL
  readonly #shownUrl: string
  /** `url.origin`, which the URL computes afresh on every read: kept for the message events. */
  readonly #origin: string
  readonly #options: ResolvedWebSocketOptions
  readonly #handlers = new EventHandlerSlots(this)
  #readyState = CONNECTING
  #binaryType: BinaryType = 'blob'
  #bufferedAmount = 0
  #protocol = ''
  #extensions = ''
  #handshake: Handshake | null = null
  #connection: WebSocketConnection | null = null
  /** Why the connection failed, for the error event. */
  #failure: Error | null = null
  /** Sends waiting for a Blob before them to be read, so messages keep their order. */
  #sendChain: Promise<void> | null = null
  #pendingSends = 0

  /**
   * Opens a connection. `protocols` is a subprotocol or a list of them, or undici's options
   * object `{ protocols, dispatcher, headers }` with conduit's limits (`maxMessageSize`,
   * `closeTimeoutMs`, `perMessageDeflate`).
   * @throws DOMException `SyntaxError` for a bad URL or subprotocol list
   */
  constructor (url: string | URL, protocols?: string | string[] | WebSocketInit) {
    super()
    this.#options = resolveWebSocketOptions('new WebSocket()', url, protocols)
    this.#url = this.#options.url
    this.#shownUrl = shownUrl(this.#url)
    this.#origin = this.#url.origin
    this.#connect()
  }

  #connect (): void {
    const request = {
      url: this.#url,
      protocols: this.#options.protocols,
      headers: this.#options.headers,
      offerDeflate: this.#options.perMessageDeflate
    }
    this.#handshake = new Handshake(request, this.#options.dispatcher, {
      onOpen: (result) => this.#onOpen(result),
      onError: (error) => this.#onHandshakeError(error)
    })
  }

  #onOpen (result: HandshakeResult): void {
    this.#handshake = null
    if (this.#readyState !== CONNECTING) {
      result.socket.destroy()
      return
    }
    this.#connection = new WebSocketConnection(result.socket, this.#owner, {
      maxMessageSize: this.#options.maxMessageSize,
      maxFragments: this.#options.maxFragments,
      closeTimeoutMs: this.#options.closeTimeoutMs,
      deflate: result.deflate
    })
    this.#readyState = OPEN
    this.#protocol = result.protocol
    this.#extensions = result.extensions
    this.dispatchEvent(new Event('open'))
    websocketEvents.open(this, result.socket, result.protocol, result.extensions, result.status, result.headers)
  }

  #onHandshakeError (error: Error): void {
    this.#handshake = null
    websocketEvents.decision(this.#shownUrl, `handshake failed - ${error.message}`)
    this.#failure = error
    this.#onClosed(false, CLOSE_ABNORMAL, '')
  }

  readonly #owner: ConnectionOwner = {
    onMessage: (text, data, owned) => {
      if (this.#readyState !== OPEN) return
      let payload: string | ArrayBuffer | Blob
      if (text) payload = data.toString('utf8')
      else if (this.#binaryType === 'arraybuffer') payload = toArrayBuffer(data, owned)
      else payload = new Blob([data as Uint8Array<ArrayBuffer>])
      this.dispatchEvent(MessageEvent.fromConnection('message', payload, this.#origin))
    },
    onPing: (payload) => { websocketEvents.ping(this, payload) },
    onPong: (payload) => { websocketEvents.pong(this, payload) },
    onCloseFrame: (code, reason) => {
      websocketEvents.decision(this.#shownUrl, `the server closed with ${code}${reason === '' ? '' : ` ${reason}`}`)
      if (this.#readyState === OPEN) this.#readyState = CLOSING
    },
    onFailure: (code, reason, socketError) => {
      if (socketError !== null) websocketEvents.socketError(socketError)
      websocketEvents.decision(this.#shownUrl, `connection failed with ${code} - ${reason}`)
      this.#failure = new WebSocketProtocolError(`WebSocket connection to ${this.#shownUrl} failed: ${reason}`, code, { cause: socketError ?? undefined })
      if (this.#readyState === OPEN) this.#readyState = CLOSING
    },
    onClosed: (wasClean, code, reason) => { this.#onClosed(wasClean, code, reason) },
    onSent: (bytes) => { this.#bufferedAmount -= bytes }
  }

  #onClosed (wasClean: boolean, code: number, reason: string): void {
    this.#readyState = CLOSED
    if (code === CLOSE_ABNORMAL) {
      // No close frame came: the standard reports the connection as failed before closing it.
      const error = this.#failure ?? new WebSocketProtocolError(`WebSocket connection to ${this.#shownUrl} closed without a close frame`, CLOSE_ABNORMAL)
      this.dispatchEvent(new ErrorEvent('error', { error, message: error.message }))
    }
    this.dispatchEvent(new CloseEvent('close', { wasClean, code, reason }))
    websocketEvents.close(this, this.#shownUrl, code, reason)
  }

  /** The URL, as given (http: and https: shown as ws: and wss:). */
  get url (): string { return this.#url.href }
  /** Connection state: CONNECTING, OPEN, CLOSING or CLOSED. */
  get readyState (): number { return this.#readyState }
  /** Bytes of sent messages not yet handed to the network. */
  get bufferedAmount (): number { return this.#bufferedAmount }
  /** The extensions in use (`Sec-WebSocket-Extensions` of the answer), or `''`. */
  get extensions (): string { return this.#extensions }
  /** The subprotocol the server chose, or `''`. */
  get protocol (): string { return this.#protocol }
  /** How binary messages are delivered; other values are ignored, as the standard's enum attribute does. */
  get binaryType (): BinaryType { return this.#binaryType }
  /** Selects how binary messages are delivered. */
  set binaryType (type: BinaryType) {
    if (type === 'blob' || type === 'arraybuffer') this.#binaryType = type
  }

  /** Handler of `open` events. */
  get onopen (): ((event: Event) => void) | null { return this.#handlers.get('open') }
  /** Sets (or, with null, clears) the `open` handler. */
  set onopen (handler: ((event: Event) => void) | null) { this.#handlers.set('open', handler) }
  /** Handler of `message` events. */
  get onmessage (): ((event: MessageEvent) => void) | null { return this.#handlers.get('message') }
  /** Sets (or, with null, clears) the `message` handler. */
  set onmessage (handler: ((event: MessageEvent) => void) | null) { this.#handlers.set('message', handler) }
  /** Handler of `error` events. */
  get onerror (): ((event: ErrorEvent) => void) | null { return this.#handlers.get('error') }
  /** Sets (or, with null, clears) the `error` handler. */
  set onerror (handler: ((event: ErrorEvent) => void) | null) { this.#handlers.set('error', handler) }
  /** Handler of `close` events. */
  get onclose (): ((event: CloseEvent) => void) | null { return this.#handlers.get('close') }
  /** Sets (or, with null, clears) the `close` handler. */
  set onclose (handler: ((event: CloseEvent) => void) | null) { this.#handlers.set('close', handler) }

  /**
   * Sends a message: binary data (ArrayBuffer, view, Blob) as binary, anything else as text
   * (strings as they are, other values converted as WebIDL converts them: a SharedArrayBuffer is
   * no BufferSource and is sent as `[object SharedArrayBuffer]`).
   * @throws DOMException `InvalidStateError` while connecting
   * @throws TypeError without an argument, for a view of a SharedArrayBuffer, or a Symbol
   */
  send (data: WebSocketSendData): void {
    if (arguments.length === 0) requireArguments(0, 1, 'WebSocket.send')
    let bytes: Uint8Array | null = null
    if (typeof data !== 'string' && !(data instanceof Blob)) {
      bytes = bufferSourceBytes(data, 'WebSocket.send')
      if (bytes === null) data = toUSVString(data, 'WebSocket.send')
    }
    if (this.#readyState === CONNECTING) throw new DOMException('WebSocket.send(): the connection is not open yet', 'InvalidStateError')
    if (typeof data === 'string') {
      this.#bufferedAmount += Buffer.byteLength(data)
      // Nothing waits before it (the common case): sent at once, without a closure.
      if (this.#pendingSends === 0) {
        if (this.#canSend()) this.#connection!.sendText(data)
      } else this.#queue(() => this.#connection?.sendText(data))
    } else if (data instanceof Blob) {
      this.#bufferedAmount += data.size
      const read = data.arrayBuffer()
      this.#queue(() => read.then((buffer) => this.#connection?.sendBinary(new Uint8Array(buffer))))
    } else {
      const view = bytes!
      this.#bufferedAmount += view.length
      // A message waiting behind a Blob is copied: the caller may reuse its buffer meanwhile.
      if (this.#pendingSends === 0) {
        if (this.#canSend()) this.#connection!.sendBinary(view)
        return
      }
      const copy = Buffer.from(view)
      this.#queue(() => this.#connection?.sendBinary(copy))
    }
  }

  #canSend (): boolean {
    return this.#readyState === OPEN && this.#connection !== null && !this.#connection.closing
  }

  #queue (send: () => void | Promise<void>): void {
    if (!this.#canSend()) return
    if (this.#pendingSends === 0) {
      const result = send()
      if (result === undefined) return
      this.#wait(result)
      return
    }
    this.#wait(this.#sendChain!.then(send))
  }

  #wait (step: Promise<void>): void {
    this.#pendingSends++
    const chain: Promise<void> = step.catch((err: unknown) => {
      this.#owner.onFailure(CLOSE_ABNORMAL, `a Blob could not be read: ${(err as Error).message}`, null)
      this.#connection?.destroy()
    }).finally(() => {
      this.#pendingSends--
      if (this.#pendingSends === 0) this.#sendChain = null
    })
    this.#sendChain = chain
  }

  /**
   * Starts the close handshake (or abandons the handshake while connecting).
   * @throws DOMException `InvalidAccessError` for a code other than 1000 or 3000-4999, `SyntaxError` for a reason over 123 bytes
   */
  close (code?: number, reason?: string): void {
    const checked = checkCloseArguments('WebSocket.close()', code, reason)
    if (this.#readyState === CLOSING || this.#readyState === CLOSED) return
    if (this.#readyState === CONNECTING) {
      this.#readyState = CLOSING
      this.#handshake?.abort(new WebSocketHandshakeError(`WebSocket to ${this.#shownUrl} was closed before the handshake completed`))
      return
    }
    this.#readyState = CLOSING
    const connection = this.#connection!
    if (this.#sendChain !== null) void this.#sendChain.then(() => connection.close(checked.code, checked.reason))
    else connection.close(checked.code, checked.reason)
  }

  /**
   * Sends a ping with up to 125 bytes of payload, when the connection is open (undici's `ping()`).
   * @throws TypeError for a payload that is not bytes or is longer than 125 bytes
   */
  static ping (ws: WebSocket, payload?: Uint8Array): void {
    if (!(ws instanceof WebSocket)) throw new TypeError(`ping(): expected a WebSocket, got ${describeValue(ws)}`)
    if (payload !== undefined && !(payload instanceof Uint8Array)) throw new TypeError(`ping(): payload must be a Buffer or Uint8Array, got ${describeValue(payload)}`)
    if (payload !== undefined && payload.length > MAX_CONTROL_PAYLOAD) throw new TypeError(`ping(): payload must be at most 125 bytes, got ${payload.length}`)
    if (ws.#readyState !== OPEN) return
    ws.#connection!.ping(payload ?? new Uint8Array(0))
  }
}

defineConstants(WebSocket, { CONNECTING, OPEN, CLOSING, CLOSED })
enumerableMembers(WebSocket.prototype)
defineToStringTag(WebSocket.prototype, 'WebSocket')

/** Sends a ping on an open WebSocket (undici's `ping(ws, payload)`). */
export function ping (ws: WebSocket, payload?: Uint8Array): void {
  WebSocket.ping(ws, payload)
}

/**
 * The message's ArrayBuffer: the one `bytes` fills when the connection owns it alone (a frame
 * that was copied out of several socket chunks), else a fresh copy. A typed array built from the
 * bytes allocates and fills its buffer in one native step, cheaper than a zeroed ArrayBuffer
 * filled through a view of it, which in turn beats `ArrayBuffer.prototype.slice`.
 */
function toArrayBuffer (bytes: Buffer, owned: boolean): ArrayBuffer {
  if (owned && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer
  return new Uint8Array(bytes).buffer
}
