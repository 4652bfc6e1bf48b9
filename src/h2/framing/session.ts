/**
 * A client's HTTP/2 session over one socket (RFC 9113), plain (h2c by prior knowledge) or TLS
 * after ALPN: the stream state machine, SETTINGS both ways with their ACK timeout, PING for
 * keep-alive and round-trip times, GOAWAY, RST_STREAM, flow control with an adaptive receive
 * window, and the limits that bound what a hostile peer can make it hold or do. Header blocks go
 * through a {@link HeaderBlockCodec}, so the session is independent of HPACK.
 * @module
 */

import type { Duplex } from 'node:stream'
import { InvalidArgumentError, NotSupportedError, SocketError } from '../../errors.js'
import type { LibraryError } from '../../errors.js'
import { clearTimeout, monotonicNow, queueMicrotask, setTimeout } from '../../runtime/timers.js'
import { SessionTimers } from './session-timers.js'
import { BdpEstimator } from './bdp-estimator.js'
import { FloodGuard } from './flood-guard.js'
import { FrameReader } from './frame-reader.js'
import type { FrameSink } from './frame-reader.js'
import { FrameWriter } from './frame-writer.js'
import type { DataFrame, Frame, GoawayFrame, HeadersFrame, PingFrame, SettingsFrame, WindowUpdateFrame } from './frames.js'
import type { HeaderBlockCodec, HeaderList } from './header-codec.js'
import { HeaderBlock } from './header-block.js'
import { H2Stream } from './h2-stream.js'
import type { StreamListener } from './h2-stream.js'
import { H2ProtocolError, connectionError, streamError } from './protocol-error.js'
import {
  DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW_SIZE, ErrorCode, MAX_STREAM_ID, MAX_WINDOW_SIZE, SettingId
} from './protocol.js'
import { sessionOptions } from './session-options.js'
import type { H2SessionInit, H2SessionOptions } from './session-options.js'
import { RemoteSettings } from './remote-settings.js'
import { classifyHead } from './response-head.js'

/** Where a session's own events go. */
export interface SessionListener {
  /** The server's SETTINGS arrived and were applied (its first SETTINGS, and each after). */
  onRemoteSettings?: (settings: RemoteSettings) => void
  /** The server sent GOAWAY: no new streams; streams above `lastStreamId` were already closed as not processed. */
  onGoaway?: (errorCode: number, lastStreamId: number, debugData: Buffer) => void
  /** A PING round trip was measured, in milliseconds. */
  onRtt?: (ms: number) => void
  /** The session ended: null when it closed cleanly. Called once; every stream was closed before. */
  onClose: (error: LibraryError | null) => void
}

/** Milliseconds a closing session waits for its last frames to leave before it drops the socket. */
const LINGER_MS = 1000
/** Marks the PINGs this side sends, so an ACK of anything else is not taken for one. */
const PING_MARK = 0x63_6e_64_74

/** One client HTTP/2 session; the socket is the session's from construction on. */
export class H2Session {
  /** The last PING round trip measured, in ms; -1 before the first. */
  rtt = -1
  /** The server's settings as last received (RFC 9113 defaults until its first SETTINGS). */
  readonly remoteSettings = new RemoteSettings()
  readonly #socket: Duplex
  readonly #codec: HeaderBlockCodec
  readonly #listener: SessionListener
  readonly #options: H2SessionOptions
  readonly #reader: FrameReader
  readonly #writer = new FrameWriter()
  readonly #floods: FloodGuard
  readonly #bdp: BdpEstimator | null
  readonly #streams = new Map<number, H2Stream>()
  /** Streams this side reset, oldest first, whose late frames are dropped quietly. */
  readonly #recentlyReset = new Set<number>()
  /** Streams with data waiting for window. */
  readonly #sendable = new Set<H2Stream>()
  readonly #pings = new Map<number, { sentAt: number, onAck: ((rtt: number) => void) | null, bdp: boolean }>()
  readonly #sink: FrameSink = { frame: (frame) => { this.#frame(frame) }, streamError: (error) => { this.#peerStreamError(error) } }
  #nextStreamId = 1
  #serverPrefaceSeen = false
  #block: HeaderBlock | null = null
  #connectionSendWindow = DEFAULT_WINDOW_SIZE
  #connectionReceiveWindow: number
  #connectionReceiveTarget: number
  #connectionUnacknowledged = 0
  #streamReceiveTarget: number
  readonly #timers: SessionTimers
  #pingCounter = 0
  #repliesWhileBlocked = 0
  #goawayLastStreamId = -1
  /** The server's GOAWAY with an error code, which a socket closing after it ends the session with. */
  #goawayError: H2ProtocolError | null = null
  #goawaySent = false
  #closed = false
  #flushScheduled = false

  constructor (socket: Duplex, codec: HeaderBlockCodec, listener: SessionListener, options: H2SessionInit = {}) {
    this.#socket = socket
    this.#codec = codec
    this.#listener = listener
    const o = this.#options = sessionOptions(options)
    this.#reader = new FrameReader(o.maxFrameSize)
    this.#floods = new FloodGuard(o.floods, monotonicNow())
    this.#bdp = o.adaptiveWindow ? new BdpEstimator(o.initialWindowSize, o.maxAdaptiveWindow) : null
    this.#connectionReceiveWindow = this.#connectionReceiveTarget = o.connectionWindowSize
    this.#streamReceiveTarget = o.initialWindowSize
    const settings: Array<[number, number]> = [[SettingId.ENABLE_PUSH, 0], [SettingId.INITIAL_WINDOW_SIZE, o.initialWindowSize], [SettingId.MAX_HEADER_LIST_SIZE, o.maxHeaderListSize]]
    if (o.maxFrameSize !== DEFAULT_MAX_FRAME_SIZE) settings.push([SettingId.MAX_FRAME_SIZE, o.maxFrameSize])
    this.#timers = new SessionTimers({
      ping: (onAck) => {
        if (this.#closed) return
        this.#sendPing(onAck, false)
        this.#flush()
      },
      settingsTimedOut: () => {
        this.#connectionFailed(connectionError(ErrorCode.SETTINGS_TIMEOUT, `no SETTINGS ACK within ${o.settingsTimeout} ms (RFC 9113 section 6.5.3; limit settingsTimeout)`, 'settingsTimeout'))
      },
      pingTimedOut: () => {
        this.destroy(new SocketError(`HTTP/2 server did not answer a keep-alive PING within ${o.pingTimeout} ms (limit pingTimeout)`))
      }
    }, o)
    this.#writer.preface(settings)
    this.#timers.settingsSent()
    if (o.connectionWindowSize > DEFAULT_WINDOW_SIZE) this.#writer.windowUpdate(0, o.connectionWindowSize - DEFAULT_WINDOW_SIZE)
    socket.on('data', this.#onData)
    socket.on('drain', () => { this.#repliesWhileBlocked = 0 })
    socket.on('error', (error: Error) => { this.#shutdown(new SocketError(`HTTP/2 socket failed: ${error.message}`, null, { cause: error })) })
    socket.on('close', () => { this.#shutdown(this.#goawayError ?? new SocketError('HTTP/2 connection closed before the session ended')) })
    this.#timers.startKeepAlive()
    this.#flush()
  }

  /** The last stream id of the server's GOAWAY (the lowest, when it sent several); -1 before any. */
  get goawayLastStreamId (): number {
    return this.#goawayLastStreamId
  }

  /** True once the session ended: no stream can be opened or written. */
  get closed (): boolean {
    return this.#closed
  }

  /** Streams open now. */
  get openStreams (): number {
    return this.#streams.size
  }

  /** True when a new stream may be opened: the session is not closing, and under the server's MAX_CONCURRENT_STREAMS. */
  get canOpenStream (): boolean {
    return !this.#closed && !this.#goawaySent && this.#goawayLastStreamId === -1 &&
      this.#streams.size < this.remoteSettings.maxConcurrentStreams && this.#nextStreamId <= MAX_STREAM_ID
  }

  /**
   * Opens a stream with `headers` (pseudo-headers first) and returns its id. A `:protocol`
   * pseudo-header (extended CONNECT, RFC 8441) needs the server's SETTINGS_ENABLE_CONNECT_PROTOCOL=1.
   */
  request (headers: HeaderList, endStream: boolean, listener: StreamListener): number {
    if (!this.canOpenStream) throw new SocketError(this.#whyNoStream())
    const protocol = headers.find(([name]) => name === ':protocol')
    if (protocol !== undefined) {
      if (!this.remoteSettings.enableConnectProtocol) {
        throw new NotSupportedError(`HTTP/2 :protocol ${protocol[1]} needs the server's SETTINGS_ENABLE_CONNECT_PROTOCOL=1, which it did not send (RFC 8441 section 3)`)
      }
      const method = headers.find(([name]) => name === ':method')?.[1]
      if (method !== 'CONNECT') throw new InvalidArgumentError(`HTTP/2 :protocol goes with :method CONNECT only, got ${String(method)} (RFC 8441 section 4)`)
    }
    // Encoded first: a codec that refuses the list leaves no stream behind.
    const block = this.#codec.encode(headers)
    const id = this.#nextStreamId
    this.#nextStreamId += 2
    const stream = new H2Stream(id, listener, this.remoteSettings.initialWindowSize, this.#streamReceiveTarget, endStream)
    this.#streams.set(id, stream)
    this.#writer.headers(id, block, endStream)
    this.#scheduleFlush()
    return id
  }

  /**
   * Queues `data` on stream `id`, sent as the windows allow; `endStream` ends the request body.
   * Returns true when it all went out now, false when some waits for window (`onWritable` follows)
   * or the stream is gone.
   */
  write (id: number, data: Buffer, endStream: boolean): boolean {
    const stream = this.#streams.get(id)
    if (stream === undefined) return false
    if (!stream.localOpen || stream.endAfterPending) throw new InvalidArgumentError(`HTTP/2 stream ${id} already ended its request body`)
    if (data.length > 0) {
      stream.pending.push(data)
      stream.pendingBytes += data.length
    }
    stream.endAfterPending = endStream
    this.#pump(stream)
    this.#scheduleFlush()
    if (stream.pendingBytes > 0) stream.blocked = true
    return stream.pendingBytes === 0
  }

  /** Sends trailers on stream `id`, ending it; any queued data goes first. */
  trailers (id: number, headers: HeaderList): void {
    const stream = this.#streams.get(id)
    if (stream === undefined) return
    if (!stream.localOpen || stream.endAfterPending) throw new InvalidArgumentError(`HTTP/2 stream ${id} already ended its request body`)
    stream.trailers = headers
    stream.endAfterPending = true
    this.#pump(stream)
    this.#scheduleFlush()
  }

  /**
   * Says the listener of stream `id` read `bytes` of its data: the stream's window opens by as
   * much, and a WINDOW_UPDATE goes out once half a window was read: a slow reader slows the server
   * down. The connection's window opens as DATA arrives instead, so a paused stream cannot starve
   * the others (each stream's own window bounds what it buffers).
   */
  consumed (id: number, bytes: number): void {
    if (this.#closed || bytes <= 0) return
    const stream = this.#streams.get(id)
    if (stream !== undefined && stream.remoteOpen) {
      stream.unacknowledged += bytes
      if (stream.unacknowledged >= stream.receiveTarget / 2) {
        this.#writer.windowUpdate(id, stream.unacknowledged)
        stream.receiveWindow += stream.unacknowledged
        stream.unacknowledged = 0
      }
    }
    this.#scheduleFlush()
  }

  /** Resets stream `id` with `code` (CANCEL by default); its listener hears `error`. */
  reset (id: number, code: number = ErrorCode.CANCEL, error: LibraryError | null = null): void {
    const stream = this.#streams.get(id)
    if (stream === undefined) return
    this.#resetStream(stream, code, error ?? new H2ProtocolError(code, id, 'stream reset by this side'))
    this.#scheduleFlush()
  }

  /** Sends a PING; `onAck` gets the round trip in ms when its ACK comes. */
  ping (onAck: ((rtt: number) => void) | null = null): void {
    if (this.#closed) throw new SocketError('HTTP/2 session is closed: cannot send PING')
    this.#sendPing(onAck, false)
    this.#scheduleFlush()
  }

  /** Sends GOAWAY(NO_ERROR): no new streams; the session ends once the open ones did. */
  close (): void {
    if (this.#closed || this.#goawaySent) return
    this.#goawaySent = true
    this.#writer.goaway(0, ErrorCode.NO_ERROR)
    this.#flush()
    this.#endIfIdle()
  }

  /** Ends the session now: open streams close with `error` (or a SocketError saying it was destroyed). */
  destroy (error: LibraryError | null = null): void {
    if (this.#closed) return
    if (!this.#goawaySent) this.#writer.goaway(0, error === null ? ErrorCode.NO_ERROR : ErrorCode.CANCEL)
    this.#goawaySent = true
    this.#flush()
    this.#shutdown(error ?? new SocketError('HTTP/2 session destroyed'), error)
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#closed) return
    try {
      this.#reader.push(chunk, this.#sink)
    } catch (error) {
      this.#connectionFailed(error)
      return
    }
    this.#flush()
  }

  #frame (frame: Frame): void {
    if (!this.#serverPrefaceSeen) {
      if (frame.kind !== 'SETTINGS' || frame.ack) throw connectionError(ErrorCode.PROTOCOL_ERROR, `the server's first frame is ${frame.kind}, not SETTINGS (RFC 9113 section 3.4)`)
      this.#serverPrefaceSeen = true
    }
    if (this.#block !== null && frame.kind !== 'CONTINUATION') {
      throw connectionError(ErrorCode.PROTOCOL_ERROR, `${frame.kind} inside the field block of stream ${this.#block.streamId}, where only CONTINUATION may come (RFC 9113 section 6.10)`)
    }
    const now = monotonicNow()
    switch (frame.kind) {
      case 'DATA': this.#onDataFrame(frame, now); return
      case 'HEADERS': this.#onHeadersFrame(frame, now); return
      case 'CONTINUATION': {
        const block = this.#block
        if (block === null || block.streamId !== frame.streamId) {
          throw connectionError(ErrorCode.PROTOCOL_ERROR, `CONTINUATION on stream ${frame.streamId} without a field block open there (RFC 9113 section 6.10)`)
        }
        if (frame.fragment.length === 0 && !frame.endHeaders) this.#floods.note('maxEmptyFrames', now)
        this.#addFragment(block, frame.fragment, true, frame.endHeaders)
        return
      }
      case 'PRIORITY':
      case 'UNKNOWN': this.#floods.note('maxIgnoredFrames', now); return
      case 'RST_STREAM': {
        this.#floods.note('maxResets', now)
        const stream = this.#streams.get(frame.streamId)
        if (stream === undefined) {
          this.#checkNotIdle(frame.streamId, 'RST_STREAM')
          return
        }
        // A server may stop a request body with NO_ERROR once its response is complete (RFC 9113 section 8.1).
        const clean = frame.errorCode === ErrorCode.NO_ERROR && !stream.remoteOpen
        const error = clean ? null : new H2ProtocolError(frame.errorCode, stream.id, 'the server reset the stream', null, true)
        this.#closeStream(stream, error, frame.errorCode === ErrorCode.REFUSED_STREAM)
        return
      }
      case 'SETTINGS': this.#onSettings(frame, now); return
      case 'PUSH_PROMISE': throw connectionError(ErrorCode.PROTOCOL_ERROR, 'PUSH_PROMISE though this side sent SETTINGS_ENABLE_PUSH=0 (RFC 9113 section 8.4)')
      case 'PING': this.#onPing(frame, now); return
      case 'GOAWAY': this.#onGoaway(frame); return
      case 'WINDOW_UPDATE': this.#onWindowUpdate(frame)
    }
  }

  #onDataFrame (frame: DataFrame, now: number): void {
    if (frame.continued) {
      this.#onDataPiece(frame)
      return
    }
    if (frame.flowLength === 0 && !frame.endStream) this.#floods.note('maxEmptyFrames', now)
    this.#connectionReceiveWindow -= frame.flowLength
    if (this.#connectionReceiveWindow < 0) {
      throw connectionError(ErrorCode.FLOW_CONTROL_ERROR, `DATA of ${frame.flowLength} bytes over the connection's receive window (RFC 9113 section 6.9.1)`)
    }
    const stream = this.#streams.get(frame.streamId)
    if (stream === undefined || !stream.remoteOpen || !stream.finalHead) {
      // Bytes no listener will read go back to the connection's window at once.
      this.#returnToConnection(frame.flowLength)
      if (stream === undefined) this.#checkClosedStreamFrame(frame.streamId, 'DATA')
      else if (!stream.remoteOpen) this.#streamFailed(stream, ErrorCode.STREAM_CLOSED, 'DATA after the server ended the stream (RFC 9113 section 5.1)', now)
      else this.#streamFailed(stream, ErrorCode.PROTOCOL_ERROR, 'DATA before the response head (RFC 9113 section 8.1)', now)
      return
    }
    stream.receiveWindow -= frame.flowLength
    if (stream.receiveWindow < 0) {
      this.#returnToConnection(frame.flowLength)
      this.#streamFailed(stream, ErrorCode.FLOW_CONTROL_ERROR, `DATA of ${frame.flowLength} bytes over the stream's receive window (RFC 9113 section 6.9.1)`, now)
      return
    }
    this.#returnToConnection(frame.flowLength)
    if (frame.padding > 0) this.consumed(stream.id, frame.padding)
    if (this.#bdp !== null && frame.flowLength > 0 && this.#bdp.received(frame.flowLength, now)) this.#sendPing(null, true)
    if (frame.endStream) stream.state = stream.state === 'open' ? 'half-closed-remote' : stream.state
    stream.listener.onData(frame.data, frame.endStream)
    if (frame.endStream) this.#remoteEnded(stream)
  }

  // The rest of a DATA frame whose first piece was counted and checked; when that piece failed
  // its stream (or the stream ended since), the rest has nowhere to go.
  #onDataPiece (frame: DataFrame): void {
    const stream = this.#streams.get(frame.streamId)
    if (stream === undefined || !stream.remoteOpen || !stream.finalHead) return
    if (frame.endStream) stream.state = stream.state === 'open' ? 'half-closed-remote' : stream.state
    stream.listener.onData(frame.data, frame.endStream)
    if (frame.endStream) this.#remoteEnded(stream)
  }

  #onHeadersFrame (frame: HeadersFrame, now: number): void {
    if (frame.fragment.length === 0 && !frame.endHeaders) this.#floods.note('maxEmptyFrames', now)
    if (!this.#streams.has(frame.streamId)) this.#checkClosedStreamFrame(frame.streamId, 'HEADERS')
    const o = this.#options
    this.#block = new HeaderBlock(frame.streamId, frame.endStream, this.#codec, { maxBytes: o.maxHeaderBlockBytes, maxContinuations: o.maxContinuationFrames, maxListSize: o.maxHeaderListSize })
    this.#addFragment(this.#block, frame.fragment, false, frame.endHeaders)
  }

  /**
   * Decodes one fragment of the open block (always, even for a stream gone: the decoder's state
   * must follow every block). A block the codec refused for its stream resets that stream at
   * once, as the fragment that showed the problem arrives; the rest of the block is still read.
   */
  #addFragment (block: HeaderBlock, fragment: Buffer, continuation: boolean, endHeaders: boolean): void {
    const failedBefore = block.failure !== null
    const headers = block.add(fragment, continuation, endHeaders)
    if (endHeaders) this.#block = null
    const failure = block.failure
    if (failure !== null && !failedBefore) {
      const failed = this.#streams.get(block.streamId)
      if (failed !== undefined) this.#resetStream(failed, failure.h2Code, failure)
    }
    if (headers !== null) this.#endBlock(block, headers)
  }

  /** Delivers the block that just ended to its stream. */
  #endBlock (block: HeaderBlock, headers: HeaderList): void {
    const stream = this.#streams.get(block.streamId)
    if (stream === undefined) return
    const now = monotonicNow()
    if (!stream.remoteOpen) {
      this.#streamFailed(stream, ErrorCode.STREAM_CLOSED, 'HEADERS after the server ended the stream (RFC 9113 section 5.1)', now)
      return
    }
    const head = classifyHead(headers, stream.finalHead, block.endStream)
    if ('malformed' in head) {
      this.#streamFailed(stream, ErrorCode.PROTOCOL_ERROR, head.malformed, now)
      return
    }
    if (head.kind === 'response') stream.finalHead = true
    if (block.endStream) stream.state = stream.state === 'open' ? 'half-closed-remote' : stream.state
    stream.listener.onHeaders(headers, head.kind, block.endStream)
    if (block.endStream) this.#remoteEnded(stream)
  }

  #onSettings (frame: SettingsFrame, now: number): void {
    this.#floods.note('maxSettings', now)
    if (frame.ack) {
      if (this.#timers.settingsUnacknowledged === 0) throw connectionError(ErrorCode.PROTOCOL_ERROR, 'SETTINGS ACK without a SETTINGS to acknowledge (RFC 9113 section 6.5)')
      this.#timers.settingsAcked()
      return
    }
    const previousWindow = this.remoteSettings.initialWindowSize
    this.remoteSettings.apply(frame.settings)
    this.#writer.maxFrameSize = this.remoteSettings.maxFrameSize
    this.#codec.setEncoderTableSize?.(this.remoteSettings.headerTableSize)
    const delta = this.remoteSettings.initialWindowSize - previousWindow
    if (delta !== 0) {
      // Section 6.9.2: every stream's send window moves by the change, and may go negative.
      for (const stream of this.#streams.values()) {
        stream.sendWindow += delta
        if (stream.sendWindow > MAX_WINDOW_SIZE) {
          throw connectionError(ErrorCode.FLOW_CONTROL_ERROR, `SETTINGS_INITIAL_WINDOW_SIZE change takes stream ${stream.id}'s window past 2^31-1 (RFC 9113 section 6.9.2)`)
        }
      }
    }
    this.#queueReply()
    this.#writer.settingsAck()
    if (delta > 0) this.#pumpAll()
    this.#listener.onRemoteSettings?.(this.remoteSettings)
  }

  #onPing (frame: PingFrame, now: number): void {
    if (!frame.ack) {
      this.#floods.note('maxPings', now)
      this.#queueReply()
      this.#writer.ping(frame.data, true)
      return
    }
    // Only unsolicited ACKs count towards the flood limit: those of this side's own PINGs are as many as it sent.
    const key = frame.data.readUInt32BE(0) === PING_MARK ? frame.data.readUInt32BE(4) : -1
    const sent = this.#pings.get(key)
    if (sent === undefined) return this.#floods.note('maxPings', now)
    this.#pings.delete(key)
    const rtt = now - sent.sentAt
    this.rtt = rtt
    if (sent.bdp && this.#bdp !== null) {
      const grown = this.#bdp.acknowledged(now).window
      if (grown !== null) this.#growReceiveWindows(grown)
    }
    this.#listener.onRtt?.(rtt)
    sent.onAck?.(rtt)
  }

  #onGoaway (frame: GoawayFrame): void {
    const last = this.#goawayLastStreamId === -1 ? frame.lastStreamId : Math.min(frame.lastStreamId, this.#goawayLastStreamId)
    this.#goawayLastStreamId = last
    const error = new H2ProtocolError(frame.errorCode, 0, `the server sent GOAWAY with last stream ${last}`, null, true)
    if (frame.errorCode !== ErrorCode.NO_ERROR) this.#goawayError = error
    for (const stream of [...this.#streams.values()]) {
      if (stream.id <= last) continue
      const notProcessed = new H2ProtocolError(frame.errorCode, stream.id, `the server sent GOAWAY (last stream ${last}) before processing the stream; it may be sent again (RFC 9113 section 6.8)`, null, true)
      this.#closeStream(stream, notProcessed, true)
    }
    this.#listener.onGoaway?.(frame.errorCode, last, frame.debugData)
    if (this.#streams.size === 0) this.#shutdown(frame.errorCode === ErrorCode.NO_ERROR ? null : error)
  }

  #onWindowUpdate (frame: WindowUpdateFrame): void {
    if (frame.streamId === 0) {
      this.#connectionSendWindow += frame.increment
      if (this.#connectionSendWindow > MAX_WINDOW_SIZE) throw connectionError(ErrorCode.FLOW_CONTROL_ERROR, 'WINDOW_UPDATE takes the connection\'s window past 2^31-1 (RFC 9113 section 6.9.1)')
      this.#pumpAll()
      return
    }
    const stream = this.#streams.get(frame.streamId)
    if (stream === undefined) {
      this.#checkNotIdle(frame.streamId, 'WINDOW_UPDATE')
      return
    }
    stream.sendWindow += frame.increment
    if (stream.sendWindow > MAX_WINDOW_SIZE) {
      this.#streamFailed(stream, ErrorCode.FLOW_CONTROL_ERROR, 'WINDOW_UPDATE takes the stream\'s window past 2^31-1 (RFC 9113 section 6.9.1)', monotonicNow())
      return
    }
    this.#pump(stream)
  }

  /** A frame broke a stream-scoped rule as the reader saw it. */
  #peerStreamError (error: H2ProtocolError): void {
    const stream = this.#streams.get(error.streamId)
    this.#floods.note('maxStreamErrors', monotonicNow())
    if (stream !== undefined) this.#resetStream(stream, error.errorCode, error)
  }

  /** Stream ids the client never opened are idle: a frame there (other than PRIORITY) is a connection error (section 5.1). */
  #checkNotIdle (id: number, kind: string): void {
    if (id % 2 === 0 || id >= this.#nextStreamId) {
      throw connectionError(ErrorCode.PROTOCOL_ERROR, `${kind} on stream ${id}, which the client never opened (RFC 9113 section 5.1, idle)`)
    }
  }

  /** DATA or HEADERS on a stream that is not open: dropped if this side reset it, else STREAM_CLOSED (section 5.1). */
  #checkClosedStreamFrame (id: number, kind: string): void {
    this.#checkNotIdle(id, kind)
    if (this.#recentlyReset.has(id)) return
    throw connectionError(ErrorCode.STREAM_CLOSED, `${kind} on stream ${id}, which is closed (RFC 9113 section 5.1)`)
  }

  #streamFailed (stream: H2Stream, code: number, message: string, now: number): void {
    this.#floods.note('maxStreamErrors', now)
    this.#resetStream(stream, code, streamError(code, stream.id, message))
  }

  #resetStream (stream: H2Stream, code: number, error: LibraryError): void {
    this.#writer.rstStream(stream.id, code)
    this.#recentlyReset.add(stream.id)
    if (this.#recentlyReset.size > this.#options.maxRecentlyReset) {
      this.#recentlyReset.delete(this.#recentlyReset.values().next().value!)
    }
    this.#closeStream(stream, error, false)
  }

  #closeStream (stream: H2Stream, error: LibraryError | null, notProcessed: boolean): void {
    if (!this.#streams.delete(stream.id)) return
    this.#sendable.delete(stream)
    stream.listener.onClose(error, notProcessed)
    this.#endIfIdle()
  }

  #remoteEnded (stream: H2Stream): void {
    if (stream.state === 'half-closed-local') this.#closeStream(stream, null, false)
    else stream.state = 'half-closed-remote'
  }

  #localEnded (stream: H2Stream): void {
    if (stream.state === 'half-closed-remote') this.#closeStream(stream, null, false)
    else stream.state = 'half-closed-local'
  }

  /** Sends what the windows allow of `stream`'s queued data, and its end. */
  #pump (stream: H2Stream): void {
    if (!this.#streams.has(stream.id)) return
    while (stream.pendingBytes > 0) {
      const allowed = Math.min(this.#connectionSendWindow, stream.sendWindow)
      if (allowed <= 0) {
        this.#sendable.add(stream)
        return
      }
      const head = stream.pending[0]!
      const length = Math.min(allowed, head.length)
      if (length === head.length) stream.pending.shift()
      else stream.pending[0] = head.subarray(length)
      stream.pendingBytes -= length
      this.#connectionSendWindow -= length
      stream.sendWindow -= length
      const last = stream.pendingBytes === 0 && stream.endAfterPending && stream.trailers === null
      this.#writer.data(stream.id, head.subarray(0, length), last)
      if (last) this.#localEnded(stream)
    }
    this.#sendable.delete(stream)
    if (stream.endAfterPending && stream.localOpen && this.#streams.has(stream.id)) {
      if (stream.trailers !== null) this.#writer.headers(stream.id, this.#codec.encode(stream.trailers), true)
      else this.#writer.data(stream.id, EMPTY, true)
      stream.trailers = null
      this.#localEnded(stream)
    }
    if (stream.blocked && this.#streams.has(stream.id)) {
      stream.blocked = false
      stream.listener.onWritable?.()
    }
  }

  #pumpAll (): void {
    for (const stream of [...this.#sendable]) {
      if (this.#connectionSendWindow <= 0) return
      this.#pump(stream)
    }
  }

  #returnToConnection (bytes: number): void {
    this.#connectionUnacknowledged += bytes
    if (this.#connectionUnacknowledged >= this.#connectionReceiveTarget / 2) {
      this.#writer.windowUpdate(0, this.#connectionUnacknowledged)
      this.#connectionReceiveWindow += this.#connectionUnacknowledged
      this.#connectionUnacknowledged = 0
    }
  }

  /** The adaptive window grew: new streams start with `window`, open ones and the connection grow by as much. */
  #growReceiveWindows (window: number): void {
    const delta = window - this.#streamReceiveTarget
    if (delta <= 0) return
    this.#streamReceiveTarget = window
    this.#writer.settings([[SettingId.INITIAL_WINDOW_SIZE, window]])
    this.#timers.settingsSent()
    for (const stream of this.#streams.values()) {
      stream.receiveWindow += delta
      stream.receiveTarget += delta
    }
    if (window > this.#connectionReceiveTarget) {
      const grow = window - this.#connectionReceiveTarget
      this.#connectionReceiveTarget = window
      this.#connectionReceiveWindow += grow
      this.#writer.windowUpdate(0, grow)
    }
  }

  #sendPing (onAck: ((rtt: number) => void) | null, bdp: boolean): void {
    const key = this.#pingCounter = (this.#pingCounter + 1) >>> 0
    const payload = Buffer.allocUnsafe(8)
    payload.writeUInt32BE(PING_MARK, 0)
    payload.writeUInt32BE(key, 4)
    this.#pings.set(key, { sentAt: monotonicNow(), onAck, bdp })
    this.#writer.ping(payload, false)
  }

  /** A PING or SETTINGS ACK is about to be queued: bounded while the socket does not drain. */
  #queueReply (): void {
    if (!this.#socket.writableNeedDrain) return
    if (++this.#repliesWhileBlocked > this.#options.maxQueuedControlReplies) {
      throw connectionError(ErrorCode.ENHANCE_YOUR_CALM, `more than ${this.#options.maxQueuedControlReplies} PING and SETTINGS ACKs queued while the server does not read (limit maxQueuedControlReplies)`, 'maxQueuedControlReplies')
    }
  }

  #whyNoStream (): string {
    if (this.#closed) return 'HTTP/2 session is closed'
    if (this.#goawaySent || this.#goawayLastStreamId !== -1) return 'HTTP/2 session is going away (GOAWAY): open a new one'
    if (this.#nextStreamId > MAX_STREAM_ID) return 'HTTP/2 session used every stream id (RFC 9113 section 5.1.1): open a new one'
    return `HTTP/2 server allows ${this.remoteSettings.maxConcurrentStreams} concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS), all open`
  }

  /** A connection error: GOAWAY with its code, every stream and the session fail with it. */
  #connectionFailed (error: unknown): void {
    if (this.#closed) return
    const failure = error instanceof H2ProtocolError
      ? error
      : new H2ProtocolError(ErrorCode.INTERNAL_ERROR, 0, `the session's listener threw: ${(error as Error)?.message ?? String(error)}`)
    if (!this.#goawaySent) this.#writer.goaway(this.#lastPeerStreamId(), failure.errorCode, Buffer.from(failure.message.slice(0, 256)))
    this.#goawaySent = true
    this.#flush()
    this.#shutdown(failure)
    // A peer that does not read would hold the GOAWAY, and the socket, forever.
    if (failure.limit === 'maxQueuedControlReplies') this.#socket.destroy()
  }

  /** A client accepts no streams from the server, so the last one it processed is always 0. */
  #lastPeerStreamId (): number {
    return 0
  }

  #endIfIdle (): void {
    if (this.#streams.size === 0 && (this.#goawaySent || this.#goawayLastStreamId !== -1)) this.#shutdown(null)
  }

  /** Ends the session once: streams closed with `error`, timers stopped, the socket ended after its last frames. */
  #shutdown (error: LibraryError | null, reported: LibraryError | null = error): void {
    if (this.#closed) return
    this.#closed = true
    this.#timers.stop()
    const streamError = error ?? new SocketError('HTTP/2 session ended before the stream did')
    for (const stream of [...this.#streams.values()]) {
      this.#streams.delete(stream.id)
      stream.listener.onClose(streamError, false)
    }
    this.#sendable.clear()
    this.#pings.clear()
    this.#socket.end()
    const linger = setTimeout(() => { this.#socket.destroy() }, LINGER_MS)
    linger.unref?.()
    this.#socket.once('close', () => { clearTimeout(linger) })
    this.#listener.onClose(reported)
  }

  #scheduleFlush (): void {
    if (this.#flushScheduled) return
    this.#flushScheduled = true
    queueMicrotask(() => {
      this.#flushScheduled = false
      this.#flush()
    })
  }

  /** Hands the queued frames to the socket as one corked batch. */
  #flush (): void {
    if (this.#writer.queuedBytes === 0 || this.#socket.destroyed || this.#socket.writableEnded) {
      this.#writer.take()
      return
    }
    const chunks = this.#writer.take()
    this.#socket.cork()
    for (const chunk of chunks) this.#socket.write(chunk)
    this.#socket.uncork()
  }
}

const EMPTY = Buffer.alloc(0)
