/**
 * One open WebSocket connection over a socket the handshake handed over (an upgraded HTTP/1.1
 * socket or an HTTP/2 extended-CONNECT stream): reads frames into messages, answers pings,
 * runs the close handshake in both directions with a timeout, and fails the connection with
 * the close code RFC 6455 asks for when the peer breaks the protocol. The API classes
 * (`WebSocket`, `WebSocketStream`) sit on top through {@link ConnectionOwner}.
 * @module
 */

import type { Duplex } from 'node:stream'
import {
  CLOSE_ABNORMAL, CLOSE_INVALID_PAYLOAD, CLOSE_NO_STATUS, CLOSE_POLICY_VIOLATION, CLOSE_PROTOCOL_ERROR, CLOSE_TOO_BIG,
  OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT, isValidReceivedCloseCode
} from './constants.js'
import { attachSharedReadSink, copyBytes, detachSharedReadSink } from '../connection/shared-read-buffer.js'
import { LARGE_READ_BYTES, keepReadBuffersInHeap } from '../runtime/heap-settling.js'
import type { SharedReadSink } from '../connection/shared-read-buffer.js'
import { FRAME, FrameParser, NEED_MORE } from './frame-parser.js'
import { encodeCloseFrame, encodeFrame } from './frame-writer.js'
import { MessageSender } from './message-sender.js'
import { MessageDeflate } from './permessage-deflate.js'
import type { DeflateParams, InflateResult } from './permessage-deflate.js'
import { Utf8Validator, isValidUtf8 } from './utf8.js'
import { clearTimeout, setTimeout } from '../runtime/timers.js'

/** What a connection reports to the API object that owns it. */
export interface ConnectionOwner {
  /**
   * A whole message arrived (text already checked to be UTF-8). `owned` says that `data` fills
   * an ArrayBuffer nothing else refers to, which the owner may keep instead of copying.
   */
  onMessage (text: boolean, data: Buffer, owned: boolean): void
  /** A ping arrived (it was answered already). */
  onPing (payload: Buffer): void
  /** A pong arrived. */
  onPong (payload: Buffer): void
  /** The server's close frame arrived (code 1005 when it had none); the socket closes next. */
  onCloseFrame (code: number, reason: string): void
  /** The connection failed: the peer broke the protocol, a limit was hit or the socket errored. */
  onFailure (code: number, reason: string, socketError: Error | null): void
  /** The socket is gone; reported once, last. */
  onClosed (wasClean: boolean, code: number, reason: string): void
  /** Bytes of queued messages were handed to the socket. */
  onSent (bytes: number): void
}

/** Limits and timers of a connection. */
export interface ConnectionOptions {
  /** Largest message accepted, bytes, after decompression. */
  maxMessageSize: number
  /** Most frames one message may arrive in. */
  maxFragments: number
  /** Wait for the server's close frame (or socket close) once the client closes, ms. */
  closeTimeoutMs: number
  /** permessage-deflate parameters when it was negotiated, else null. */
  deflate: DeflateParams | null
}

/** Why reading is paused: the consumer's backpressure (WebSocketStream). */
const PAUSED_BY_CONSUMER = 1
/** Why reading is paused: a compressed message is being inflated. */
const PAUSED_FOR_INFLATE = 2

/** The client side of an open WebSocket connection. */
export class WebSocketConnection implements SharedReadSink {
  readonly socket: Duplex
  readonly #owner: ConnectionOwner
  readonly #parser: FrameParser
  readonly #maxMessageSize: number
  readonly #maxFragments: number
  readonly #closeTimeoutMs: number
  readonly #deflate: MessageDeflate | null
  readonly #utf8 = new Utf8Validator()
  /** Opcode of the fragmented message being read, or 0 between messages. */
  #messageOpcode = 0
  #messageCompressed = false
  #fragments: Buffer[] = []
  #messageSize = 0
  /** Frames of the message being read, empty ones included. */
  #messageFrames = 0
  /** The reasons reading is paused (PAUSED_* bits); the socket flows only when none is left. */
  #pausedBy = 0
  /**
   * The payload of the pong that waits for the socket's write side to drain, or null. Only the
   * latest ping is answered then (RFC 6455 section 5.5.3), so a peer that floods pings and
   * never reads cannot make pongs pile up.
   */
  #pendingPong: Buffer | null = null
  /** Waiting for a decompression: frames stay in the parser until it is done. */
  #waiting = false
  readonly #sender: MessageSender
  #closeSent = false
  #closeReceived = false
  #receivedCode = CLOSE_ABNORMAL
  #receivedReason = ''
  #failed = false
  #finished = false
  #closeTimer: NodeJS.Timeout | null = null
  /**
   * The frames being read are views of the shared read buffer (see `onSharedRead`): a payload
   * kept past the current call is copied first.
   */
  #volatile = false

  constructor (socket: Duplex, owner: ConnectionOwner, options: ConnectionOptions) {
    this.socket = socket
    this.#owner = owner
    this.#maxMessageSize = options.maxMessageSize
    this.#maxFragments = options.maxFragments
    this.#closeTimeoutMs = options.closeTimeoutMs
    this.#parser = new FrameParser(options.maxMessageSize)
    this.#deflate = options.deflate === null ? null : new MessageDeflate(options.deflate, options.maxMessageSize)
    if (this.#deflate !== null) this.#parser.allowCompression()
    this.#sender = new MessageSender(socket, this.#deflate, (bytes) => { owner.onSent(bytes) })
    socket.on('data', this.#onData)
    socket.on('error', this.#onSocketError)
    socket.on('close', this.#onSocketClose)
    socket.on('end', this.#onSocketEnd)
    attachSharedReadSink(socket, this)
  }

  /** True once a close frame was sent: no more messages go out. */
  get closing (): boolean {
    return this.#closeSent || this.#failed
  }

  /** Stops reading from the socket (backpressure from a consumer). */
  pauseReading (): void {
    this.#pause(PAUSED_BY_CONSUMER)
  }

  /** Reads from the socket again, unless a decompression still holds it. */
  resumeReading (): void {
    this.#resume(PAUSED_BY_CONSUMER)
  }

  #pause (reason: number): void {
    if (this.#pausedBy === 0) this.socket.pause()
    this.#pausedBy |= reason
  }

  #resume (reason: number): void {
    if (this.#pausedBy === 0) return
    this.#pausedBy &= ~reason
    if (this.#pausedBy === 0 && !this.#finished) this.socket.resume()
  }

  /** Queues a text message; `done` runs once it was handed to the network. */
  sendText (text: string, done?: () => void): void {
    this.#sender.sendText(text, done)
  }

  /** Queues a binary message; `done` runs once it was handed to the network. */
  sendBinary (data: Uint8Array, done?: () => void): void {
    this.#sender.sendBinary(data, done)
  }

  /** Sends a ping (payload at most 125 bytes, checked by the caller). */
  ping (payload: Uint8Array): void {
    if (!this.closing) this.socket.write(encodeFrame(OP_PING, payload))
  }

  /**
   * Starts the close handshake: sends a close frame (after the messages already queued) and
   * waits for the server's at most `closeTimeoutMs`.
   */
  close (code: number | undefined, reason: string): void {
    if (this.#closeSent || this.#failed || this.#finished) return
    this.#closeSent = true
    this.#sender.sendControl(encodeCloseFrame(code, reason))
    if (this.#closeReceived) this.socket.end()
    this.#startCloseTimer()
  }

  /** Drops the connection at once, without a close handshake. */
  destroy (): void {
    this.socket.destroy()
  }

  #startCloseTimer (): void {
    if (this.#closeTimer !== null || this.#finished) return
    this.#closeTimer = setTimeout(() => { this.socket.destroy() }, this.#closeTimeoutMs)
    this.#closeTimer.unref?.()
  }

  readonly #onData = (chunk: Buffer): void => {
    // After the server's close frame every byte is discarded (the WebSockets standard), not kept.
    if (this.#failed || this.#closeReceived) return
    if (chunk.length >= LARGE_READ_BYTES) keepReadBuffersInHeap()
    this.#parser.push(chunk)
    this.#readFrames()
  }

  /** A read of a socket from the built-in connector, parsed in place (see shared-read-buffer.ts). */
  onSharedRead (bytes: Buffer): void {
    if (this.#failed || this.#closeReceived) return
    // Large reads mean large messages, each a buffer of its own that the collector frees in batches.
    if (bytes.length >= LARGE_READ_BYTES) keepReadBuffersInHeap()
    this.#parser.push(bytes)
    this.#volatile = true
    try {
      this.#readFrames()
    } finally {
      this.#volatile = false
      this.#parser.retainUnread()
    }
  }

  /** `payload` as a buffer that outlives the current read: a copy when it is a view of a lent one. */
  #kept (payload: Buffer): Buffer {
    return this.#volatile && !this.#parser.payloadOwned ? copyBytes(payload) : payload
  }

  #readFrames (): void {
    const parser = this.#parser
    while (!this.#waiting && !this.#failed && !this.#closeReceived) {
      const result = parser.next()
      if (result === NEED_MORE) return
      if (result !== FRAME) {
        this.#fail(result, parser.failure)
        return
      }
      const opcode = parser.opcode
      if (opcode >= OP_CLOSE) this.#onControlFrame(opcode, parser.payload)
      else this.#onDataFrame(opcode, parser.fin, parser.rsv1, parser.payload)
    }
  }

  #onDataFrame (opcode: number, fin: boolean, rsv1: boolean, payload: Buffer): void {
    if (opcode === OP_CONTINUATION) {
      if (this.#messageOpcode === 0) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a continuation frame arrived outside a fragmented message')
    } else {
      if (this.#messageOpcode !== 0) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a new message started before the fragmented one ended')
      this.#messageOpcode = opcode
      this.#messageCompressed = rsv1
    }
    this.#messageSize += payload.length
    if (this.#messageSize > this.#maxMessageSize) {
      return this.#fail(CLOSE_TOO_BIG, `a message is larger than the message size limit of ${this.#maxMessageSize} bytes`)
    }
    if (++this.#messageFrames > this.#maxFragments) {
      return this.#fail(CLOSE_POLICY_VIOLATION, `a message arrives in more than ${this.#maxFragments} fragments (maxFragments)`)
    }
    if (this.#closeSent) {
      // Once the client closed, messages are discarded: nothing is kept or inflated until the server's close frame.
      if (fin) this.#endMessage()
      return
    }
    const text = this.#messageOpcode === OP_TEXT
    if (fin && this.#messageFrames === 1) {
      // The common case: a message in one frame, handed on without a copy.
      this.#endMessage()
      if (rsv1) this.#inflate(text, [this.#kept(payload)])
      else this.#deliver(text, payload, false, this.#parser.payloadOwned)
      return
    }
    // Uncompressed text is checked fragment by fragment, so bad UTF-8 fails before the message ends.
    if (text && !this.#messageCompressed && !this.#utf8.write(payload)) {
      return this.#fail(CLOSE_INVALID_PAYLOAD, 'a text message is not valid UTF-8')
    }
    // An empty fragment adds nothing to the message: only its count is kept.
    if (payload.length !== 0) this.#fragments.push(this.#kept(payload))
    if (!fin) return
    const fragments = this.#fragments
    const compressed = this.#messageCompressed
    this.#endMessage()
    if (compressed) this.#inflate(text, fragments)
    else if (text && !this.#utf8.end()) this.#fail(CLOSE_INVALID_PAYLOAD, 'a text message ends inside a UTF-8 character')
    else this.#owner.onMessage(text, joinFragments(fragments), true)
  }

  #endMessage (): void {
    this.#messageOpcode = 0
    this.#messageSize = 0
    this.#messageFrames = 0
    // A message in one frame never filled the list: it is kept rather than replaced.
    if (this.#fragments.length !== 0) this.#fragments = []
  }

  #deliver (text: boolean, data: Buffer, checked: boolean, owned: boolean): void {
    if (text && !checked && !isValidUtf8(data)) {
      this.#fail(CLOSE_INVALID_PAYLOAD, 'a text message is not valid UTF-8')
      return
    }
    if (!this.#closeSent) this.#owner.onMessage(text, data, owned)
  }

  #inflate (text: boolean, fragments: Buffer[]): void {
    this.#waiting = true
    // The socket is not read while zlib works: what arrives meanwhile would only pile up.
    this.#pause(PAUSED_FOR_INFLATE)
    this.#deflate!.decompress(fragments, (result: InflateResult) => {
      this.#waiting = false
      if (this.#failed || this.#finished) return
      this.#resume(PAUSED_FOR_INFLATE)
      if ('code' in result) {
        this.#fail(result.code, result.reason)
        return
      }
      // zlib's output may share its buffer with later output: never handed on as owned.
      this.#deliver(text, result.data, false, false)
      this.#readFrames()
    })
  }

  #onControlFrame (opcode: number, payload: Buffer): void {
    if (opcode === OP_PING) {
      this.#answerPing(payload)
      // Diagnostics subscribers may keep the payload.
      this.#owner.onPing(this.#kept(payload))
    } else if (opcode === OP_PONG) {
      this.#owner.onPong(this.#kept(payload))
    } else {
      this.#onCloseFrame(payload)
    }
  }

  /** RFC 6455 section 5.5.2: a pong carrying the ping's data, unless closing. */
  #answerPing (payload: Buffer): void {
    if (this.closing) return
    const socket = this.socket
    if (this.#pendingPong === null && !socket.writableNeedDrain) {
      socket.write(encodeFrame(OP_PONG, payload))
      return
    }
    if (this.#pendingPong === null) socket.once('drain', this.#sendPendingPong)
    this.#pendingPong = copyBytes(payload)
  }

  readonly #sendPendingPong = (): void => {
    const payload = this.#pendingPong
    this.#pendingPong = null
    if (payload !== null && !this.closing && !this.#finished) this.socket.write(encodeFrame(OP_PONG, payload))
  }

  #onCloseFrame (payload: Buffer): void {
    let code = CLOSE_NO_STATUS
    let reason = ''
    if (payload.length === 1) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a close frame has a one-byte body')
    if (payload.length >= 2) {
      code = payload.readUInt16BE(0)
      if (!isValidReceivedCloseCode(code)) return this.#fail(CLOSE_PROTOCOL_ERROR, `a close frame carries the invalid code ${code}`)
      const reasonBytes = payload.subarray(2)
      if (!isValidUtf8(reasonBytes)) return this.#fail(CLOSE_INVALID_PAYLOAD, 'a close reason is not valid UTF-8')
      reason = reasonBytes.toString('utf8')
    }
    this.#closeReceived = true
    // Whatever followed the close frame in the buffer is discarded with the rest of the stream.
    this.#parser.discard()
    this.#receivedCode = code
    this.#receivedReason = reason
    this.#owner.onCloseFrame(code, reason)
    if (!this.#closeSent) {
      // Echo the code (section 5.5.1); 1005 means there was none to echo.
      this.#closeSent = true
      this.#sender.sendControl(encodeCloseFrame(code === CLOSE_NO_STATUS ? undefined : code, ''))
    }
    // The server closes the TCP connection first (section 7.1.1); ending our side lets it.
    this.socket.end()
    this.#startCloseTimer()
  }

  /** Fails the connection (RFC 6455 section 7.1.7): a close frame with `code`, then the socket goes. */
  #fail (code: number, reason: string, socketError: Error | null = null): void {
    if (this.#failed || this.#finished) return
    this.#failed = true
    this.#deflate?.close()
    this.#owner.onFailure(code, reason, socketError)
    // 1006 only reports a connection lost without a close frame: it is never sent (section 7.4.1).
    if (socketError === null && code !== CLOSE_ABNORMAL && !this.#closeSent) {
      this.#closeSent = true
      this.socket.end(encodeCloseFrame(code, ''), () => { this.socket.destroy() })
      this.#startCloseTimer()
    } else {
      this.socket.destroy()
    }
  }

  readonly #onSocketError = (err: Error): void => {
    this.#fail(CLOSE_ABNORMAL, err.message, err)
  }

  readonly #onSocketEnd = (): void => {
    // The server may end first after the close handshake; without one the connection is lost.
    if (!this.#closeReceived && !this.#failed) this.#fail(CLOSE_ABNORMAL, 'the server closed the connection without a close frame')
    else this.socket.end()
  }

  readonly #onSocketClose = (): void => {
    if (this.#finished) return
    this.#finished = true
    this.#sender.stop()
    this.#pendingPong = null
    this.socket.off('drain', this.#sendPendingPong)
    if (this.#closeTimer !== null) clearTimeout(this.#closeTimer)
    this.#deflate?.close()
    this.socket.off('data', this.#onData)
    detachSharedReadSink(this.socket)
    const clean = this.#closeSent && this.#closeReceived && !this.#failed
    this.#owner.onClosed(clean, this.#closeReceived ? this.#receivedCode : CLOSE_ABNORMAL, this.#closeReceived ? this.#receivedReason : '')
  }
}

/** The fragments of a message in one buffer with an ArrayBuffer of its own (not the shared pool). */
function joinFragments (fragments: Buffer[]): Buffer {
  let size = 0
  for (const fragment of fragments) size += fragment.length
  const out = Buffer.allocUnsafeSlow(size)
  let at = 0
  for (const fragment of fragments) {
    out.set(fragment, at)
    at += fragment.length
  }
  return out
}
