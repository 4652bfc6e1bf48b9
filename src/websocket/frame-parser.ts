/**
 * Reads server frames (RFC 6455 section 5.2) from the socket's chunks as they arrive. The chunks
 * are kept as a list: a payload inside one chunk is a view of it, and bytes are copied only when
 * a frame spans chunks. Everything the framing itself forbids is reported here with the close
 * code the RFC asks for; message-level rules (fragment order, UTF-8, sizes across fragments)
 * belong to the connection.
 * @module
 */

import {
  CLOSE_PROTOCOL_ERROR, CLOSE_TOO_BIG, MAX_CONTROL_PAYLOAD,
  OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT
} from './constants.js'

/** `next()` result: the buffered bytes do not hold a whole frame yet. */
export const NEED_MORE = -1
/** `next()` result: a frame was read; see `fin`, `rsv1`, `opcode` and `payload`. */
export const FRAME = 0

const EMPTY = Buffer.alloc(0)

/**
 * Largest payload whose buffer is made as soon as its header is read, when the payload spans
 * reads: its bytes are then copied once, straight from each read into it. A larger payload waits
 * in the chunk list until it is whole (a server could otherwise make a client reserve up to the
 * message size limit with a ten-byte header).
 */
const PREFILL_MAX = 1024 * 1024

/** Incremental frame reader; one per connection. */
export class FrameParser {
  /** Largest payload of one frame accepted, bytes. */
  readonly #maxPayload: number
  /** Whether RSV1 may be set (permessage-deflate was negotiated). */
  #allowRsv1 = false
  readonly #chunks: Buffer[] = []
  /** Bytes of `#chunks[0]` already consumed. */
  #offset = 0
  /** Unconsumed bytes across all chunks. */
  #available = 0
  /** The header of the frame in progress was read; its payload is awaited. */
  #inHeader = true
  #length = 0
  /** The payload of the frame in progress, filled read by read (see PREFILL_MAX), or null. */
  #partial: Buffer | null = null
  /** Bytes of `#partial` filled so far. */
  #filled = 0

  /** FIN bit of the last frame read. */
  fin = false
  /** RSV1 bit of the last frame read (compressed message with permessage-deflate). */
  rsv1 = false
  /** Opcode of the last frame read. */
  opcode = 0
  /** Payload of the last frame read. */
  payload: Buffer = EMPTY
  /**
   * Whether `payload` is a copy made for this frame alone (it spanned chunks), filling an
   * ArrayBuffer of its own: then nothing else refers to its bytes and it can be handed on as is.
   */
  payloadOwned = false
  /** Why the stream was refused, when `next()` returned a close code. */
  failure = ''

  constructor (maxPayload: number) {
    this.#maxPayload = maxPayload
  }

  /** Lets RSV1 through on data frames once permessage-deflate is in use. */
  allowCompression (): void {
    this.#allowRsv1 = true
  }

  /**
   * Adds bytes read from the socket. The parser keeps a reference to `chunk`: a chunk only lent
   * for the duration of a call must be followed by `retainUnread()` before the call returns.
   */
  push (chunk: Buffer): void {
    if (chunk.length === 0) return
    this.#chunks.push(chunk)
    this.#available += chunk.length
  }

  /**
   * Replaces the unread part of the last chunk pushed with a copy of its own, so the parser no
   * longer refers to a lent buffer. Payloads already returned are views the caller dealt with.
   */
  retainUnread (): void {
    const last = this.#chunks.length - 1
    if (last < 0) return
    const chunk = this.#chunks[last]!
    const from = last === 0 ? this.#offset : 0
    const copy = Buffer.allocUnsafe(chunk.length - from)
    chunk.copy(copy, 0, from)
    this.#chunks[last] = copy
    if (last === 0) this.#offset = 0
  }

  /** Drops every byte not read yet (the stream after a close frame). */
  discard (): void {
    this.#chunks.length = 0
    this.#offset = 0
    this.#available = 0
    this.#partial = null
    this.#inHeader = true
  }

  /**
   * Reads the next frame: {@link FRAME}, {@link NEED_MORE}, or a close code (1002, 1009) when the
   * bytes break the framing rules, with the reason in `failure`.
   */
  next (): number {
    if (this.#inHeader) {
      const code = this.#readHeader()
      if (code !== FRAME) return code
    }
    if (this.#partial !== null) return this.#fill()
    if (this.#available < this.#length) {
      if (this.#length > PREFILL_MAX) return NEED_MORE
      this.#partial = Buffer.allocUnsafeSlow(this.#length)
      this.#filled = 0
      return this.#fill()
    }
    this.payloadOwned = false
    this.payload = this.#take(this.#length)
    this.#inHeader = true
    return FRAME
  }

  /** Moves what has arrived of the payload in progress into `#partial`; a frame once it is full. */
  #fill (): number {
    const partial = this.#partial!
    while (this.#filled < partial.length && this.#available > 0) {
      const chunk = this.#chunks[0]!
      const count = Math.min(chunk.length - this.#offset, partial.length - this.#filled)
      chunk.copy(partial, this.#filled, this.#offset, this.#offset + count)
      this.#filled += count
      this.#skip(count)
    }
    if (this.#filled < partial.length) return NEED_MORE
    this.#partial = null
    this.payload = partial
    this.payloadOwned = true
    this.#inHeader = true
    return FRAME
  }

  #readHeader (): number {
    if (this.#available < 2) return NEED_MORE
    const b0 = this.#byteAt(0)
    const b1 = this.#byteAt(1)
    let size = 2
    const shortLength = b1 & 0x7f
    if (shortLength === 126) size = 4
    else if (shortLength === 127) size = 10
    if ((b1 & 0x80) !== 0) return this.#fail(CLOSE_PROTOCOL_ERROR, 'the server masked a frame')
    const fin = (b0 & 0x80) !== 0
    const rsv1 = (b0 & 0x40) !== 0
    const opcode = b0 & 0x0f
    if ((b0 & 0x30) !== 0) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a frame has RSV2 or RSV3 set without a negotiated extension')
    const control = opcode >= OP_CLOSE
    if (opcode !== OP_CONTINUATION && opcode !== OP_TEXT && opcode !== OP_BINARY &&
        opcode !== OP_CLOSE && opcode !== OP_PING && opcode !== OP_PONG) {
      return this.#fail(CLOSE_PROTOCOL_ERROR, `a frame has the reserved opcode 0x${opcode.toString(16)}`)
    }
    if (rsv1 && (!this.#allowRsv1 || control || opcode === OP_CONTINUATION)) {
      return this.#fail(CLOSE_PROTOCOL_ERROR, control || opcode === OP_CONTINUATION
        ? 'a control or continuation frame has RSV1 set'
        : 'a frame has RSV1 set without permessage-deflate')
    }
    if (control) {
      if (!fin) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a control frame is fragmented')
      if (shortLength > MAX_CONTROL_PAYLOAD) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a control frame carries more than 125 bytes')
    }
    // Everything above needs only the first two bytes, so a bad frame fails before its length arrives.
    if (this.#available < size) return NEED_MORE
    let length = shortLength
    if (shortLength === 126) length = this.#uint16At(2)
    else if (shortLength === 127) {
      const high = this.#uint16At(2) * 0x10000 + this.#uint16At(4)
      // RFC 6455 section 5.2: the most significant bit of a 64-bit length must be 0.
      if (high >= 0x80000000) return this.#fail(CLOSE_PROTOCOL_ERROR, 'a frame length has its most significant bit set')
      if (high >= 0x200000) return this.#fail(CLOSE_TOO_BIG, 'a frame is larger than the message size limit')
      length = high * 0x100000000 + this.#uint16At(6) * 0x10000 + this.#uint16At(8)
    }
    if (length > this.#maxPayload) return this.#fail(CLOSE_TOO_BIG, `a frame of ${length} bytes is larger than the message size limit of ${this.#maxPayload}`)
    this.#skip(size)
    this.fin = fin
    this.rsv1 = rsv1
    this.opcode = opcode
    this.#length = length
    this.#inHeader = false
    return FRAME
  }

  #fail (code: number, why: string): number {
    this.failure = why
    return code
  }

  /**
   * The unconsumed byte at `index` (which must be available), without consuming it; header
   * bytes are read in place, so a frame header allocates nothing even when it spans chunks.
   */
  #byteAt (index: number): number {
    let at = this.#offset + index
    const first = this.#chunks[0]!
    // Nearly always in the first chunk: checked before the walk.
    if (at < first.length) return first[at]!
    at -= first.length
    for (let i = 1; ; i++) {
      const chunk = this.#chunks[i]!
      if (at < chunk.length) return chunk[at]!
      at -= chunk.length
    }
  }

  /** The big-endian 16-bit number in the unconsumed bytes at `index` and `index + 1`. */
  #uint16At (index: number): number {
    return this.#byteAt(index) * 0x100 + this.#byteAt(index + 1)
  }

  #skip (n: number): void {
    this.#available -= n
    while (n > 0) {
      const rest = this.#chunks[0]!.length - this.#offset
      if (rest > n) {
        this.#offset += n
        return
      }
      n -= rest
      this.#chunks.shift()
      this.#offset = 0
    }
  }

  /**
   * Consumes `n` bytes: a view when they lie in one chunk, a copy when they span several. The
   * copy gets an ArrayBuffer of its own (never a slice of the shared pool), so a binary message
   * can become the message event's ArrayBuffer without a second copy.
   */
  #take (n: number): Buffer {
    if (n === 0) return EMPTY
    const first = this.#chunks[0]!
    if (first.length - this.#offset >= n) {
      const view = first.subarray(this.#offset, this.#offset + n)
      this.#skip(n)
      return view
    }
    const out = Buffer.allocUnsafeSlow(n)
    this.payloadOwned = true
    let copied = 0
    while (copied < n) {
      const chunk = this.#chunks[0]!
      const count = Math.min(chunk.length - this.#offset, n - copied)
      chunk.copy(out, copied, this.#offset, this.#offset + count)
      copied += count
      this.#skip(count)
    }
    return out
  }
}
