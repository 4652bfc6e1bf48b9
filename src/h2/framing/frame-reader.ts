/**
 * An incremental HTTP/2 frame reader (RFC 9113 sections 4 and 6): fed the socket's chunks as
 * they come, in any split, it yields whole typed frames. A payload that lies in one chunk is a
 * view into it, never a copy; a payload split across reads is joined, except an unpadded DATA
 * payload, which is handed out piece by piece as views (see `DataFrame`). Every structural rule
 * a frame carries on its own is checked here (sizes, stream-id rules, padding, setting values);
 * rules that need the session's state (stream states, windows, sequencing) are the session's.
 * @module
 */

import type { Frame } from './frames.js'
import { H2ProtocolError, connectionError, streamError } from './protocol-error.js'
import {
  DEFAULT_MAX_FRAME_SIZE, ErrorCode, Flag, FRAME_HEAD_LENGTH, FrameType, MAX_ALLOWED_FRAME_SIZE, MAX_WINDOW_SIZE,
  SettingId
} from './protocol.js'

/** Where a reader's frames go. */
export interface FrameSink {
  /** A whole, valid frame. */
  frame: (frame: Frame) => void
  /** A frame that breaks a rule scoped to its stream (section 5.4.2); reading goes on. */
  streamError: (error: H2ProtocolError) => void
}

const STREAM_ID_MASK = 0x7fff_ffff

/** Reads frames from a byte stream; a connection error is thrown and leaves the reader unusable. */
export class FrameReader {
  /** The SETTINGS_MAX_FRAME_SIZE this side advertised: a longer frame is a FRAME_SIZE_ERROR. */
  maxFrameSize: number
  readonly #head = Buffer.allocUnsafe(FRAME_HEAD_LENGTH)
  #headFill = 0
  /** -1 while reading a frame head, else the payload length of the frame being read. */
  #length = -1
  #type = 0
  #flags = 0
  #streamId = 0
  /** Pieces of a payload split across chunks, and their total length. */
  #parts: Buffer[] = []
  #partsLength = 0
  #failed: H2ProtocolError | null = null

  constructor (maxFrameSize = DEFAULT_MAX_FRAME_SIZE) {
    this.maxFrameSize = maxFrameSize
  }

  /** Reads `chunk`, handing every frame it completes to `sink`; throws the first connection error. */
  push (chunk: Buffer, sink: FrameSink): void {
    if (this.#failed !== null) throw this.#failed
    try {
      this.#read(chunk, sink)
    } catch (error) {
      if (error instanceof H2ProtocolError) this.#failed = error
      throw error
    }
  }

  /** True when no frame is partly read: the bytes so far ended on a frame boundary. */
  get atFrameBoundary (): boolean {
    return this.#length === -1 && this.#headFill === 0
  }

  #read (chunk: Buffer, sink: FrameSink): void {
    let offset = 0
    const end = chunk.length
    while (offset < end) {
      if (this.#length === -1) {
        if (this.#headFill === 0 && end - offset >= FRAME_HEAD_LENGTH) {
          this.#takeHead(chunk, offset)
          offset += FRAME_HEAD_LENGTH
        } else {
          const take = Math.min(FRAME_HEAD_LENGTH - this.#headFill, end - offset)
          chunk.copy(this.#head, this.#headFill, offset, offset + take)
          this.#headFill += take
          offset += take
          if (this.#headFill < FRAME_HEAD_LENGTH) return
          this.#headFill = 0
          this.#takeHead(this.#head, 0)
        }
        if (this.#payloadLength() === 0) {
          this.#finish(EMPTY, sink)
          continue
        }
      }
      const missing = this.#length - this.#partsLength
      if (this.#partsLength === 0 && end - offset >= missing) {
        this.#finish(chunk.subarray(offset, offset + missing), sink)
        offset += missing
        continue
      }
      const take = Math.min(missing, end - offset)
      // A chunk that ended right after a frame head: the payload starts with the next one.
      if (take === 0) return
      if (this.#type === FrameType.DATA && (this.#flags & Flag.PADDED) === 0) {
        this.#dataPiece(chunk.subarray(offset, offset + take), sink)
        offset += take
        continue
      }
      this.#parts.push(chunk.subarray(offset, offset + take))
      this.#partsLength += take
      offset += take
      if (this.#partsLength < this.#length) return
      const payload = Buffer.concat(this.#parts, this.#length)
      this.#parts = []
      this.#partsLength = 0
      this.#finish(payload, sink)
    }
  }

  /** The payload length of the frame being read (a method, so a check after #takeHead is not narrowed away). */
  #payloadLength (): number {
    return this.#length
  }

  #takeHead (bytes: Buffer, at: number): void {
    const length = (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!
    this.#type = bytes[at + 3]!
    this.#flags = bytes[at + 4]!
    this.#streamId = bytes.readUInt32BE(at + 5) & STREAM_ID_MASK
    if (length > this.maxFrameSize) {
      throw connectionError(ErrorCode.FRAME_SIZE_ERROR, `frame of ${length} bytes is over SETTINGS_MAX_FRAME_SIZE ${this.maxFrameSize} (RFC 9113 section 4.2; limit maxFrameSize)`, 'maxFrameSize')
    }
    this.#length = length
  }

  // #partsLength counts the bytes of the DATA payload already handed out.
  #dataPiece (piece: Buffer, sink: FrameSink): void {
    const length = this.#length
    const first = this.#partsLength === 0
    if (first) onStream(this.#streamId, 'DATA')
    this.#partsLength += piece.length
    const last = this.#partsLength === length
    if (last) {
      this.#length = -1
      this.#partsLength = 0
    }
    sink.frame({
      kind: 'DATA',
      streamId: this.#streamId,
      endStream: last && (this.#flags & Flag.END_STREAM) !== 0,
      data: piece,
      flowLength: first ? length : 0,
      padding: 0,
      continued: !first
    })
  }

  #finish (payload: Buffer, sink: FrameSink): void {
    const type = this.#type
    const flags = this.#flags
    const streamId = this.#streamId
    this.#length = -1
    const frame = decodeFrame(type, flags, streamId, payload)
    if (frame instanceof H2ProtocolError) sink.streamError(frame)
    else sink.frame(frame)
  }
}

const EMPTY = Buffer.alloc(0)

/** Decodes one frame's payload; returns a stream error, throws a connection error. */
function decodeFrame (type: number, flags: number, streamId: number, payload: Buffer): Frame | H2ProtocolError {
  switch (type) {
    case FrameType.DATA: {
      onStream(streamId, 'DATA')
      const data = unpad(flags, payload, 0, 'DATA')
      return { kind: 'DATA', streamId, endStream: (flags & Flag.END_STREAM) !== 0, data, flowLength: payload.length, padding: payload.length - data.length, continued: false }
    }
    case FrameType.HEADERS: {
      onStream(streamId, 'HEADERS')
      const priority = (flags & Flag.PRIORITY) !== 0
      const fragment = unpad(flags, payload, priority ? 5 : 0, 'HEADERS')
      if (priority && dependsOnItself(payload, flags, streamId)) {
        return streamError(ErrorCode.PROTOCOL_ERROR, streamId, 'HEADERS priority depends on its own stream (RFC 9113 section 5.3.1)')
      }
      return { kind: 'HEADERS', streamId, endStream: (flags & Flag.END_STREAM) !== 0, endHeaders: (flags & Flag.END_HEADERS) !== 0, fragment }
    }
    case FrameType.PRIORITY:
      onStream(streamId, 'PRIORITY')
      if (payload.length !== 5) return streamError(ErrorCode.FRAME_SIZE_ERROR, streamId, `PRIORITY of ${payload.length} bytes, not 5 (RFC 9113 section 6.3)`)
      if ((payload.readUInt32BE(0) & STREAM_ID_MASK) === streamId) {
        return streamError(ErrorCode.PROTOCOL_ERROR, streamId, 'PRIORITY depends on its own stream (RFC 9113 section 5.3.1)')
      }
      return { kind: 'PRIORITY', streamId }
    case FrameType.RST_STREAM:
      onStream(streamId, 'RST_STREAM')
      exactLength(payload, 4, 'RST_STREAM', '6.4')
      return { kind: 'RST_STREAM', streamId, errorCode: payload.readUInt32BE(0) }
    case FrameType.SETTINGS:
      return decodeSettings(flags, streamId, payload)
    case FrameType.PUSH_PROMISE: {
      onStream(streamId, 'PUSH_PROMISE')
      const fragment = unpad(flags, payload, 4, 'PUSH_PROMISE')
      const padded = (flags & Flag.PADDED) !== 0 ? 1 : 0
      const promisedStreamId = payload.readUInt32BE(padded) & STREAM_ID_MASK
      return { kind: 'PUSH_PROMISE', streamId, promisedStreamId, endHeaders: (flags & Flag.END_HEADERS) !== 0, fragment }
    }
    case FrameType.PING:
      onConnection(streamId, 'PING')
      exactLength(payload, 8, 'PING', '6.7')
      return { kind: 'PING', ack: (flags & Flag.ACK) !== 0, data: payload }
    case FrameType.GOAWAY:
      onConnection(streamId, 'GOAWAY')
      if (payload.length < 8) throw connectionError(ErrorCode.FRAME_SIZE_ERROR, `GOAWAY of ${payload.length} bytes, under 8 (RFC 9113 section 6.8)`)
      return { kind: 'GOAWAY', lastStreamId: payload.readUInt32BE(0) & STREAM_ID_MASK, errorCode: payload.readUInt32BE(4), debugData: payload.subarray(8) }
    case FrameType.WINDOW_UPDATE: {
      exactLength(payload, 4, 'WINDOW_UPDATE', '6.9')
      const increment = payload.readUInt32BE(0) & STREAM_ID_MASK
      if (increment === 0) {
        const message = 'WINDOW_UPDATE with an increment of 0 (RFC 9113 section 6.9)'
        if (streamId === 0) throw connectionError(ErrorCode.PROTOCOL_ERROR, message)
        return streamError(ErrorCode.PROTOCOL_ERROR, streamId, message)
      }
      return { kind: 'WINDOW_UPDATE', streamId, increment }
    }
    case FrameType.CONTINUATION:
      onStream(streamId, 'CONTINUATION')
      return { kind: 'CONTINUATION', streamId, endHeaders: (flags & Flag.END_HEADERS) !== 0, fragment: payload }
    default:
      return { kind: 'UNKNOWN', type, flags, streamId, length: payload.length }
  }
}

function onStream (streamId: number, name: string): void {
  if (streamId === 0) throw connectionError(ErrorCode.PROTOCOL_ERROR, `${name} on stream 0 (RFC 9113 section 6)`)
}

function onConnection (streamId: number, name: string): void {
  if (streamId !== 0) throw connectionError(ErrorCode.PROTOCOL_ERROR, `${name} on stream ${streamId}, not 0 (RFC 9113 section 6)`)
}

function exactLength (payload: Buffer, length: number, name: string, section: string): void {
  if (payload.length !== length) {
    throw connectionError(ErrorCode.FRAME_SIZE_ERROR, `${name} of ${payload.length} bytes, not ${length} (RFC 9113 section ${section})`)
  }
}

/**
 * The payload less its Pad Length field, `fixed` bytes of fields after it, and its padding
 * (section 6.1): padding as long as what it pads, or longer, is a PROTOCOL_ERROR.
 */
function unpad (flags: number, payload: Buffer, fixed: number, name: string): Buffer {
  const padded = (flags & Flag.PADDED) !== 0
  const start = (padded ? 1 : 0) + fixed
  if (payload.length < start) {
    throw connectionError(ErrorCode.FRAME_SIZE_ERROR, `${name} of ${payload.length} bytes is too short for its fields (RFC 9113 section 4.2)`)
  }
  if (!padded) return payload.subarray(start)
  const padLength = payload[0]!
  if (padLength > payload.length - start) {
    throw connectionError(ErrorCode.PROTOCOL_ERROR, `${name} pad length ${padLength} is not less than its payload of ${payload.length} bytes (RFC 9113 section 6.1)`)
  }
  return payload.subarray(start, payload.length - padLength)
}

function dependsOnItself (payload: Buffer, flags: number, streamId: number): boolean {
  const at = (flags & Flag.PADDED) !== 0 ? 1 : 0
  return (payload.readUInt32BE(at) & STREAM_ID_MASK) === streamId
}

function decodeSettings (flags: number, streamId: number, payload: Buffer): Frame {
  onConnection(streamId, 'SETTINGS')
  const ack = (flags & Flag.ACK) !== 0
  if (ack) {
    if (payload.length !== 0) throw connectionError(ErrorCode.FRAME_SIZE_ERROR, `SETTINGS ACK with ${payload.length} bytes of payload (RFC 9113 section 6.5)`)
    return { kind: 'SETTINGS', ack, settings: [] }
  }
  if (payload.length % 6 !== 0) {
    throw connectionError(ErrorCode.FRAME_SIZE_ERROR, `SETTINGS of ${payload.length} bytes, not a multiple of 6 (RFC 9113 section 6.5)`)
  }
  const settings: Array<[number, number]> = []
  for (let at = 0; at < payload.length; at += 6) {
    const id = payload.readUInt16BE(at)
    const value = payload.readUInt32BE(at + 2)
    checkSetting(id, value)
    settings.push([id, value])
  }
  return { kind: 'SETTINGS', ack, settings }
}

/** The value ranges of section 6.5.2 (and RFC 8441 section 3); unknown identifiers are ignored by the session. */
function checkSetting (id: number, value: number): void {
  switch (id) {
    case SettingId.ENABLE_PUSH:
    case SettingId.ENABLE_CONNECT_PROTOCOL:
      if (value > 1) throw connectionError(ErrorCode.PROTOCOL_ERROR, `setting 0x${id.toString(16)} is ${value}, not 0 or 1 (RFC 9113 section 6.5.2)`)
      return
    case SettingId.INITIAL_WINDOW_SIZE:
      if (value > MAX_WINDOW_SIZE) throw connectionError(ErrorCode.FLOW_CONTROL_ERROR, `SETTINGS_INITIAL_WINDOW_SIZE ${value} is over 2^31-1 (RFC 9113 section 6.5.2)`)
      return
    case SettingId.MAX_FRAME_SIZE:
      if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_ALLOWED_FRAME_SIZE) {
        throw connectionError(ErrorCode.PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value} is outside 16384..16777215 (RFC 9113 section 6.5.2)`)
      }
  }
}
