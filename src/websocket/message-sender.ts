/**
 * The sending half of a WebSocket connection: frames messages (compressing them when
 * permessage-deflate is on), keeps them in the order they were sent while a compression runs,
 * and reports the bytes handed to the network so the owner can keep `bufferedAmount`.
 * @module
 */

import { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { OP_BINARY, OP_TEXT } from './constants.js'
import { encodeFrame, encodeTextFrame, framedPayloadLength } from './frame-writer.js'
import type { MessageDeflate } from './permessage-deflate.js'
import { recycleFrameBuffer } from './spare-frame-buffer.js'
import { nextTick } from '../runtime/timers.js'

const EMPTY = Buffer.alloc(0)

/** A slot of the ordered send queue; `frame` is null while its compression is running. */
interface SendSlot { frame: Buffer | null, bytes: number, done?: (() => void) | undefined }

/** Writes one connection's messages to its socket, in order. */
export class MessageSender {
  readonly #socket: Duplex
  readonly #deflate: MessageDeflate | null
  /** Told the message bytes that left, once they left (see `bufferedAmount`). */
  readonly #onSent: (bytes: number) => void
  readonly #queue: SendSlot[] = []
  /**
   * Bytes and completion callbacks of the frames handed to the socket with a callback, in write
   * order. One shared write callback reads them, so a send allocates no closure and the stream
   * can batch the callbacks of writes that completed synchronously into one tick.
   */
  readonly #writtenBytes: number[] = []
  readonly #writtenDone: Array<(() => void) | undefined> = []
  /**
   * The socket completed the last write it was given a callback for at once (the kernel took
   * every byte): then a frame nobody waits for goes without a callback, which spares the stream
   * a tick per write. Cleared as soon as a write stays queued in the socket.
   */
  #writesComplete = false
  /** Bytes of messages the kernel took in the current task; reported sent once the task ends. */
  #handedBytes = 0
  #stopped = false
  /**
   * The socket is a net.Socket on a native handle (TCP, or TLS over anything): a write it
   * completes during the call has copied the frame, so the frame's memory can be reused. Any
   * other Duplex (an HTTP/2 stream, a user's stream) may keep the chunk after calling back.
   */
  readonly #copiesOnWrite: boolean

  constructor (socket: Duplex, deflate: MessageDeflate | null, onSent: (bytes: number) => void) {
    this.#socket = socket
    this.#copiesOnWrite = socket instanceof Socket && (socket as Socket & { _handle?: object | null })._handle != null
    this.#deflate = deflate
    this.#onSent = onSent
  }

  /** Queues a text message; `done` runs once it was handed to the network. */
  sendText (text: string, done?: () => void): void {
    if (this.#deflate !== null) {
      this.#sendCompressed(OP_TEXT, Buffer.from(text), done)
      return
    }
    const frame = encodeTextFrame(OP_TEXT, text)
    this.#sendFrame(frame, framedPayloadLength(frame), done)
  }

  /** Queues a binary message; `done` runs once it was handed to the network. */
  sendBinary (data: Uint8Array, done?: () => void): void {
    // zlib reads the bytes later: it gets a copy the caller cannot change meanwhile.
    if (this.#deflate !== null) this.#sendCompressed(OP_BINARY, Buffer.from(data), done)
    else this.#sendFrame(encodeFrame(OP_BINARY, data), data.length, done)
  }

  /** Queues a control frame (a close frame) behind the messages already queued. */
  sendControl (frame: Buffer): void {
    this.#queue.push({ frame, bytes: 0 })
    this.#flushQueue()
  }

  /** The socket is gone: nothing more is written. */
  stop (): void {
    this.#stopped = true
  }

  #sendCompressed (opcode: number, data: Uint8Array, done: (() => void) | undefined): void {
    const slot: SendSlot = { frame: null, bytes: data.length, done }
    this.#queue.push(slot)
    this.#deflate!.compress(data, (payload) => {
      slot.frame = encodeFrame(opcode, payload, true, true)
      this.#flushQueue()
    })
  }

  /** Writes a ready frame at once when nothing waits before it (the common case), else queues it. */
  #sendFrame (frame: Buffer, bytes: number, done: (() => void) | undefined): void {
    if (this.#queue.length === 0) this.#write(frame, bytes, done)
    else {
      this.#queue.push({ frame, bytes, done })
      this.#flushQueue()
    }
  }

  #flushQueue (): void {
    const queue = this.#queue
    while (queue.length > 0 && queue[0]!.frame !== null) {
      const { frame, bytes, done } = queue.shift()!
      this.#write(frame!, bytes, done)
    }
  }

  #write (frame: Buffer, bytes: number, done: (() => void) | undefined): void {
    if (this.#stopped) return
    const socket = this.#socket
    if (bytes === 0 && done === undefined) {
      socket.write(frame)
      return
    }
    if (done === undefined && this.#writesComplete && socket.writableLength === 0) {
      socket.write(frame)
      if (socket.writableLength === 0) {
        if (this.#copiesOnWrite) recycleFrameBuffer(frame)
        // bufferedAmount counts the bytes until the task that sent them ends, as the standard says.
        if (this.#handedBytes === 0) nextTick(this.#reportHanded)
        this.#handedBytes += bytes
        return
      }
      // Part of the frame waits in the socket: an empty write queued behind it reports when it went.
      this.#writesComplete = false
      this.#writtenBytes.push(bytes)
      this.#writtenDone.push(undefined)
      socket.write(EMPTY, this.#onWritten)
      return
    }
    this.#writtenBytes.push(bytes)
    this.#writtenDone.push(done)
    socket.write(frame, this.#onWritten)
    // The stream lowers its queued length only when a write completed, so 0 means it went at once.
    this.#writesComplete = socket.writableLength === 0
    if (this.#writesComplete && this.#copiesOnWrite) recycleFrameBuffer(frame)
  }

  readonly #reportHanded = (): void => {
    const bytes = this.#handedBytes
    this.#handedBytes = 0
    this.#onSent(bytes)
  }

  readonly #onWritten = (err?: Error | null): void => {
    // A failed stream may call back out of write order: account for everything still listed.
    const count = err == null ? 1 : this.#writtenBytes.length
    for (let i = 0; i < count && this.#writtenBytes.length > 0; i++) {
      this.#onSent(this.#writtenBytes.shift()!)
      this.#writtenDone.shift()?.()
    }
  }
}
