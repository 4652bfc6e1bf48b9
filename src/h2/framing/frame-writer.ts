/**
 * Writes the frames a client sends (RFC 9113 sections 3.4, 4.1 and 6). Frame heads and small
 * control frames are built into one slab that many frames share, so a burst of frames costs one
 * allocation, and consecutive pieces of the slab leave as one buffer; a DATA or header payload
 * is queued as the caller's buffer, not copied. {@link FrameWriter.take} hands the queued
 * buffers to the socket in order.
 * @module
 */

import { CLIENT_PREFACE, DEFAULT_MAX_FRAME_SIZE, Flag, FRAME_HEAD_LENGTH, FrameType } from './protocol.js'

/** Bytes of one slab: room for hundreds of frame heads. */
const SLAB_SIZE = 16 * 1024

/** Queues outgoing frames as a list of buffers to write in order. */
export class FrameWriter {
  /** The peer's SETTINGS_MAX_FRAME_SIZE: no frame payload written is longer. */
  maxFrameSize = DEFAULT_MAX_FRAME_SIZE
  #slab = Buffer.allocUnsafe(SLAB_SIZE)
  #used = 0
  /** Where the last queued slab piece starts, or -1 when the last queued buffer is not the slab's. */
  #pieceStart = -1
  #queue: Buffer[] = []
  #queuedBytes = 0

  /** Bytes queued and not yet taken. */
  get queuedBytes (): number {
    return this.#queuedBytes
  }

  /** The queued buffers, in order, which the caller now writes; the queue is left empty. */
  take (): Buffer[] {
    const queue = this.#queue
    this.#queue = []
    this.#queuedBytes = 0
    this.#pieceStart = -1
    return queue
  }

  /** The client connection preface and the client's first SETTINGS (section 3.4). */
  preface (settings: ReadonlyArray<readonly [number, number]>): void {
    this.#queuePayload(CLIENT_PREFACE)
    this.settings(settings)
  }

  /** A SETTINGS frame with `settings` (identifier, value) in order (section 6.5). */
  settings (settings: ReadonlyArray<readonly [number, number]>): void {
    const at = this.#reserve(FRAME_HEAD_LENGTH + settings.length * 6)
    writeHead(this.#slab, at, settings.length * 6, FrameType.SETTINGS, 0, 0)
    let offset = at + FRAME_HEAD_LENGTH
    for (const [id, value] of settings) {
      this.#slab.writeUInt16BE(id, offset)
      this.#slab.writeUInt32BE(value, offset + 2)
      offset += 6
    }
  }

  /** A SETTINGS ACK (section 6.5.3). */
  settingsAck (): void {
    this.#head(0, FrameType.SETTINGS, Flag.ACK, 0)
  }

  /** A PING, or its ACK, with 8 bytes of `data` (section 6.7). */
  ping (data: Buffer, ack: boolean): void {
    const at = this.#reserve(FRAME_HEAD_LENGTH + 8)
    writeHead(this.#slab, at, 8, FrameType.PING, ack ? Flag.ACK : 0, 0)
    data.copy(this.#slab, at + FRAME_HEAD_LENGTH, 0, 8)
  }

  /** An RST_STREAM (section 6.4). */
  rstStream (streamId: number, errorCode: number): void {
    const at = this.#reserve(FRAME_HEAD_LENGTH + 4)
    writeHead(this.#slab, at, 4, FrameType.RST_STREAM, 0, streamId)
    this.#slab.writeUInt32BE(errorCode, at + FRAME_HEAD_LENGTH)
  }

  /** A WINDOW_UPDATE; stream 0 is the connection's window (section 6.9). */
  windowUpdate (streamId: number, increment: number): void {
    const at = this.#reserve(FRAME_HEAD_LENGTH + 4)
    writeHead(this.#slab, at, 4, FrameType.WINDOW_UPDATE, 0, streamId)
    this.#slab.writeUInt32BE(increment, at + FRAME_HEAD_LENGTH)
  }

  /** A GOAWAY (section 6.8), with optional debug data (a short reason). */
  goaway (lastStreamId: number, errorCode: number, debugData: Buffer | null = null): void {
    const debugLength = debugData === null ? 0 : Math.min(debugData.length, this.maxFrameSize - 8)
    const at = this.#reserve(FRAME_HEAD_LENGTH + 8 + debugLength)
    writeHead(this.#slab, at, 8 + debugLength, FrameType.GOAWAY, 0, 0)
    this.#slab.writeUInt32BE(lastStreamId, at + FRAME_HEAD_LENGTH)
    this.#slab.writeUInt32BE(errorCode, at + FRAME_HEAD_LENGTH + 4)
    if (debugData !== null) debugData.copy(this.#slab, at + FRAME_HEAD_LENGTH + 8, 0, debugLength)
  }

  /**
   * A header block as HEADERS and as many CONTINUATION frames as `block` needs at the peer's
   * SETTINGS_MAX_FRAME_SIZE (sections 6.2, 6.10); END_STREAM goes on the HEADERS frame.
   */
  headers (streamId: number, block: Buffer, endStream: boolean): void {
    const max = this.maxFrameSize
    let offset = Math.min(block.length, max)
    const last = offset === block.length
    const flags = (endStream ? Flag.END_STREAM : 0) | (last ? Flag.END_HEADERS : 0)
    this.#head(offset, FrameType.HEADERS, flags, streamId)
    this.#queuePayload(block.subarray(0, offset))
    while (offset < block.length) {
      const length = Math.min(block.length - offset, max)
      const end = offset + length === block.length
      this.#head(length, FrameType.CONTINUATION, end ? Flag.END_HEADERS : 0, streamId)
      this.#queuePayload(block.subarray(offset, offset + length))
      offset += length
    }
  }

  /**
   * `data` as DATA frames no longer than the peer's SETTINGS_MAX_FRAME_SIZE (section 6.1), the
   * last with END_STREAM when `endStream`. The caller passes only what the windows allow.
   */
  data (streamId: number, data: Buffer, endStream: boolean): void {
    const max = this.maxFrameSize
    let offset = 0
    do {
      const length = Math.min(data.length - offset, max)
      const end = offset + length === data.length
      this.#head(length, FrameType.DATA, end && endStream ? Flag.END_STREAM : 0, streamId)
      if (length > 0) this.#queuePayload(data.subarray(offset, offset + length))
      offset += length
    } while (offset < data.length)
  }

  /**
   * Reserves a frame head and writes it. The slab is read after the reservation, which may have
   * replaced it with a fresh one.
   */
  #head (length: number, type: number, flags: number, streamId: number): void {
    const at = this.#reserve(FRAME_HEAD_LENGTH)
    writeHead(this.#slab, at, length, type, flags, streamId)
  }

  /** Reserves `length` bytes of the slab, queued at once as (part of) a slab piece. */
  #reserve (length: number): number {
    if (this.#used + length > this.#slab.length) {
      // Queued pieces keep the old slab alive until written; a fresh one takes the next frames.
      this.#slab = Buffer.allocUnsafe(Math.max(SLAB_SIZE, length))
      this.#used = 0
      this.#pieceStart = -1
    }
    const at = this.#used
    this.#used += length
    this.#queuedBytes += length
    if (this.#pieceStart === -1) {
      this.#pieceStart = at
      this.#queue.push(this.#slab.subarray(at, this.#used))
    } else {
      this.#queue[this.#queue.length - 1] = this.#slab.subarray(this.#pieceStart, this.#used)
    }
    return at
  }

  #queuePayload (payload: Buffer): void {
    if (payload.length === 0) return
    this.#queue.push(payload)
    this.#queuedBytes += payload.length
    this.#pieceStart = -1
  }
}

function writeHead (target: Buffer, at: number, length: number, type: number, flags: number, streamId: number): void {
  target[at] = length >>> 16
  target[at + 1] = (length >>> 8) & 0xff
  target[at + 2] = length & 0xff
  target[at + 3] = type
  target[at + 4] = flags
  target.writeUInt32BE(streamId, at + 5)
}
