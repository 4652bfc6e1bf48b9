/**
 * One request over one HTTP/2 stream of conduit's own session: sends the headers and the body
 * (with the stream's send window as backpressure), turns the stream's header blocks, data and
 * close into the request's handler calls, returns the receive window only as the handler reads,
 * and runs the request's headers and body timers. The session it belongs to is {@link H2Connection}.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { HeadersOverflowError, LibraryError, NotSupportedError, SocketError } from '../errors.js'
import { bodyTimeoutError } from '../connection/timeout-errors.js'
import type { ClientRequest } from '../connection/client-request.js'
import { BODY_BYTES, BODY_NONE, bodyBytes } from '../connection/request-body.js'
import { BodyWriter } from '../connection/body-writer.js'
import type { BodyWriterOwner } from '../connection/body-writer.js'
import { T_BODY, T_HEADERS } from '../connection/connection-timer.js'
import { StreamTimer } from './stream-timer.js'
import { NO_SIZE_LIMIT, ResponseLimits } from '../connection/response-limits.js'
import type { ConnectionConfig } from '../connection/connection-config.js'
import type { H2Session } from './framing/session.js'
import type { HeaderList } from './framing/header-codec.js'
import type { HeadKind, StreamListener } from './framing/h2-stream.js'
import { H2ProtocolError } from './framing/protocol-error.js'
import { HpackError } from './hpack/hpack-error.js'
import { h2RequestHeaders, isExtendedConnect, requestHeadText } from './request-headers.js'
import { describeStreamReset, ErrorCode } from './error-codes.js'
import { statusOf, toIncomingHeaders } from './stream-shape.js'
import { H2Tunnel } from './tunnel-stream.js'
import { StreamBodyTarget } from './body-target.js'
import { ResponseSequence } from './response-sequence.js'
import type { SequenceSink } from './response-sequence.js'
import { headersTimeLeft, resendHeadersTimeoutError } from './resend-budget.js'
import { publishSendHeaders } from '../observability/request-events.js'
import { monotonicNow } from '../runtime/timers.js'

/** What an exchange reports to its session. */
export interface ExchangeOwner {
  /** The exchange ended (response complete, failed or reset); its stream is no longer counted. */
  onExchangeDone (exchange: H2Exchange): void
  /**
   * The server said it did not process the stream (REFUSED_STREAM, or a GOAWAY below its id)
   * before any response head: the session sends the request again or fails it.
   */
  onExchangeNotProcessed (exchange: H2Exchange, error: H2ProtocolError): void
  /** A CONNECT stream became a tunnel: the session must stay open until it closes. */
  onTunnel (tunnel: H2Tunnel): void
  /** The session's socket, which diagnostics name and a tunnel answers for as its peer. */
  readonly socket: Duplex
}

const EMPTY = Buffer.alloc(0)
/** One check of a stream's {@link ResponseLimits}: `length` is the body bytes that arrived, if any. */
type LimitCheck = (limits: ResponseLimits, req: ClientRequest, length: number) => void

// Module-level functions shared by every stream, so that a limit check costs no closure.
/** Counts a 1xx head against `maxInformationalResponses`. */
const countInformational: LimitCheck = (limits, req) => { limits.informational(req) }
/** Counts body bytes against `maxResponseSize`. */
const countBody: LimitCheck = (limits, req, length) => { limits.body(req, length) }

/** A content-length value: digits only (RFC 9110 section 8.6). */
const DIGITS = /^[0-9]+$/

/**
 * A request in flight on an HTTP/2 session, and the listener of its stream. The handler gets
 * the head, then the body, then one end or one error, and nothing once the request ended;
 * chunks that arrive while it is paused wait in a {@link ResponseSequence}.
 */
export class H2Exchange implements BodyWriterOwner, SequenceSink, StreamListener {
  readonly req: ClientRequest
  readonly #owner: ExchangeOwner
  /** The session's limits: maxHeaderSize for each header (or trailer) block, and those counted in #limits. */
  readonly #config: ConnectionConfig
  #session: H2Session | null = null
  /** The stream's id once its HEADERS went out; -1 before. */
  #id = -1
  #body: BodyWriter | null = null
  #target: StreamBodyTarget | null = null
  #bodyDone = false
  /** The request asked for 100-continue: its body waits for the 100 (or is never sent). */
  #awaitingContinue = false
  /** A CONNECT (or RFC 8441 extended CONNECT) stream: a 2xx answer turns it into a tunnel. */
  #isConnect = false
  /** The tunnel the stream became: its events go there. */
  #tunnel: H2Tunnel | null = null
  #done = false
  /** Body chunks and the end, held until the head (and a paused handler) lets them through. */
  readonly #sequence = new ResponseSequence(this)
  readonly #timer: StreamTimer<H2Exchange>
  /**
   * `maxInformationalResponses` and `maxResponseSize`, counted for this stream; made by the first
   * 1xx head or body chunk that counts, so that most open streams hold none.
   */
  #limits: ResponseLimits | null = null
  #trailers: IncomingHeaders = {}
  /** The response's content-length, which its DATA must add up to (RFC 9113 section 8.1.1); -1 when none. */
  #expectedLength = -1
  #receivedLength = 0
  /** The session closed the stream: nothing is sent on it any more. */
  #streamGone = false

  constructor (req: ClientRequest, owner: ExchangeOwner, config: ConnectionConfig) {
    this.req = req
    this.#owner = owner
    this.#config = config
    this.#timer = new StreamTimer<H2Exchange>(H2Exchange.#onTimer, this)
  }

  /** When this attempt started (`monotonicNow()`): a request sent again keeps its first attempt's. */
  startedAt = 0

  /** The stream's id once the session sent its HEADERS frame; undefined before. */
  get streamId (): number | undefined {
    return this.#id === -1 ? undefined : this.#id
  }

  /** The session's sweep of its streams' timers, at `now` (`monotonicNow()`). */
  sweepTimer (now: number): void {
    this.#timer.sweep(now)
  }

  /** Opens the stream on `session` and sends the request. */
  start (session: H2Session, scheme: string): void {
    const req = this.req
    this.#isConnect = req.method === 'CONNECT' || isExtendedConnect(req)
    if (req.upgrade !== null && !this.#isConnect) {
      // HTTP/2 has no Upgrade (RFC 9113 section 8.6); only CONNECT, extended or not, opens a tunnel.
      this.#finish(new NotSupportedError(`upgrade to ${JSON.stringify(req.upgrade)} is not supported over HTTP/2: use an HTTP/1.1 connection (allowH2: false) for upgrades`))
      return
    }
    this.startedAt = monotonicNow()
    // headersTimeout counts from the first attempt: a request the server keeps refusing does not
    // get a fresh timeout with each new stream or session.
    const headersMs = headersTimeLeft(req, this.startedAt)
    if (headersMs < 0) {
      this.#finish(resendHeadersTimeoutError(req))
      return
    }
    const endStream = req.bodyKind === BODY_NONE && !this.#isConnect
    this.#session = session
    try {
      this.#id = session.request(h2RequestHeaders(req, scheme), endStream, this)
    } catch (err) {
      this.#finish(err instanceof LibraryError ? err : new SocketError(`HTTP/2 stream could not be opened: ${(err as Error).message}`, null, { cause: err }))
      return
    }
    req.headSent()
    publishSendHeaders(req, () => requestHeadText(req), this.#owner.socket)
    this.#timer.arm(T_HEADERS, headersMs)
    if (endStream || this.#isConnect) {
      this.#bodyDone = true
      if (endStream) req.requestSent()
      return
    }
    if (req.expectContinue) this.#awaitingContinue = true
    else this.#sendBody()
  }

  #sendBody (): void {
    if (this.#done) return
    const req = this.req
    const session = this.#session!
    if (req.bodyKind === BODY_BYTES) {
      const bytes = bodyBytes(req.body)
      req.bodyChunkSent(bytes)
      this.#bodyDone = true
      session.write(this.#id, typeof bytes === 'string' ? Buffer.from(bytes) : bytes, true)
      req.requestSent()
      return
    }
    this.#target = new StreamBodyTarget(session, this.#id)
    this.#body = new BodyWriter(this.#target, req.body, req.bodyKind, req.bodyLength, this, false)
    this.#body.start()
  }

  // --- body writer ---------------------------------------------------------------------------

  onBodyChunk (chunk: Uint8Array): void {
    this.req.bodyChunkSent(chunk)
  }

  onBodyWritten (): void {
    this.#bodyDone = true
    this.#body = null
    if (!this.#done) this.#target?.end()
    this.#target = null
    this.req.requestSent()
  }

  onBodyError (err: Error): void {
    this.#body = null
    this.fail(err)
  }

  // --- controller calls ----------------------------------------------------------------------

  /** The handler paused: what arrives now waits, unread, so the stream's window closes and the server waits. */
  pause (): void {
    if (this.#timer.kind === T_BODY) this.#timer.disarm()
  }

  /** The handler resumed: what arrived while it was paused comes first, and its window is returned. */
  resume (): void {
    if (this.#done) return
    this.#sequence.flush()
    if (this.#done || this.req.paused) return
    if (this.#sequence.headDelivered) this.#timer.arm(T_BODY, this.req.bodyTimeout)
  }

  // --- sequence sink -------------------------------------------------------------------------

  get paused (): boolean { return this.req.paused }

  get done (): boolean { return this.#done }

  deliverData (chunk: Buffer): void {
    this.req.onData(chunk)
    // Read by the handler: the server may send as much again.
    this.#session!.consumed(this.#id, chunk.length)
  }

  deliverEnd (): void {
    this.#done = true
    this.#timer.clear()
    if (!this.#bodyDone) {
      // The answer is complete before the body was sent: stop sending it (RFC 9113 section 8.1).
      // A stream body is destroyed a turn after the response is delivered: it may be a proxy's
      // own incoming request, whose socket must still carry that response back.
      this.#body?.abort(true)
      this.#body = null
      this.#session!.reset(this.#id, ErrorCode.NO_ERROR)
    }
    this.#owner.onExchangeDone(this)
    this.req.end(this.#trailers)
  }

  /** Ends the request with `err` and resets its stream with CANCEL. */
  fail (err: Error): void {
    this.#finish(err)
  }

  // --- stream listener (called by the session) ----------------------------------------------

  onHeaders (headers: HeaderList, kind: HeadKind, endStream: boolean): void {
    if (this.#tunnel !== null || this.#done) return
    try {
      if (kind === 'response') this.#onResponse(headers, endStream)
      else if (kind === 'informational') this.#onInformation(headers)
      else {
        this.#trailers = toIncomingHeaders(headers)
        this.#onEnd()
      }
    } catch (err) {
      // A handler that throws fails its request, not the session that called it.
      this.#finish(err as Error)
    }
  }

  onData (data: Buffer, endStream: boolean): void {
    if (this.#tunnel !== null) {
      this.#tunnel.onData(data, endStream)
      return
    }
    if (this.#done) {
      this.#session!.consumed(this.#id, data.length)
      return
    }
    try {
      if (data.length > 0) this.#onData(data)
      if (endStream && !this.#done) this.#onEnd()
    } catch (err) {
      this.#finish(err as Error)
    }
  }

  onWritable (): void {
    if (this.#tunnel !== null) this.#tunnel.onWritable()
    else this.#target?.drained()
  }

  onClose (error: LibraryError | null, notProcessed: boolean): void {
    if (this.#tunnel !== null) {
      this.#tunnel.onClose(error)
      return
    }
    const sequence = this.#sequence
    this.#streamGone = true
    // After the end, the stream may close while chunks still wait for a paused handler; and a
    // session that closes says why to its connection, which ends every request on it.
    if (this.#done || sequence.ended || this.#session!.closed) return
    if (error === null) {
      this.#finish(new SocketError('HTTP/2 stream ended without a response'))
      return
    }
    if (error instanceof H2ProtocolError && error.remote && error.errorCode === ErrorCode.NO_ERROR &&
      sequence.headDelivered && this.#expectedLength !== -1 && this.#receivedLength === this.#expectedLength) {
      // The whole body its content-length declared arrived, then RST_STREAM NO_ERROR instead of
      // END_STREAM (some servers do so when the connection window is short as they finish):
      // the server says nothing went wrong and the message is complete by its own framing.
      this.#sequence.onEnd()
      return
    }
    if (notProcessed && !sequence.headDelivered && error instanceof H2ProtocolError) {
      // RFC 9113 section 8.7: the server did not process it, so it may be sent again.
      this.#stop()
      this.#owner.onExchangeNotProcessed(this, error)
      return
    }
    this.#finish(this.#closeError(error))
  }

  /** The error a request fails with when its stream closed with `error` before the response ended. */
  #closeError (error: LibraryError): Error {
    if (error instanceof HpackError && error.problem === 'HEADER_LIST_TOO_LARGE') {
      const what = this.#sequence.headDelivered ? 'trailer' : 'response'
      return new HeadersOverflowError(`${what} headers from ${this.req.origin} exceed maxHeaderSize (${this.#config.maxHeaderSize} bytes)`)
    }
    if (error instanceof H2ProtocolError && error.remote) return new SocketError(describeStreamReset(error.errorCode), null, { cause: error })
    return new SocketError(`HTTP/2 stream reset by the client because the response from ${this.req.origin} broke the protocol: ${error.message}`, null, { cause: error })
  }

  // --- response ------------------------------------------------------------------------------

  #onInformation (headers: HeaderList): void {
    const status = statusOf(headers)
    if (status === 100) {
      // 100 Continue lets the body go; it is not information for the handler.
      if (this.#awaitingContinue) {
        this.#awaitingContinue = false
        this.#sendBody()
      }
      return
    }
    if (this.#sequence.headDelivered) return
    if (!this.#within(countInformational, 0)) return
    this.req.onInformation(status, toIncomingHeaders(headers))
  }

  #onResponse (headers: HeaderList, endStream: boolean): void {
    const req = this.req
    const status = statusOf(headers)
    const fields = toIncomingHeaders(headers)
    if (this.#isConnect && status >= 200 && status < 300) {
      this.#timer.clear()
      this.#done = true
      const tunnel = this.#tunnel = new H2Tunnel(this.#session!, this.#id, this.#owner.socket, this.#sequence.takeQueued())
      this.#owner.onExchangeDone(this)
      this.#owner.onTunnel(tunnel)
      if (endStream) tunnel.onData(EMPTY, true)
      req.upgraded(status, fields, tunnel)
      return
    }
    const length = fields['content-length']
    if (typeof length === 'string' && DIGITS.test(length) && req.method !== 'HEAD' && status !== 204 && status !== 304) this.#expectedLength = Number(length)
    this.#timer.arm(T_BODY, req.bodyTimeout)
    if (!req.completed) req.onHead(status, fields, '')
    if (this.#done || req.completed) return
    if (req.paused) this.pause()
    this.#sequence.onHeadDelivered()
    if (endStream && !this.#done) this.#onEnd()
  }

  /** The server ended the stream: the response is complete if its body is as long as it said. */
  #onEnd (): void {
    const expected = this.#expectedLength
    if (expected !== -1 && this.#receivedLength !== expected) {
      this.#malformed(`its body ended after ${this.#receivedLength} of the ${expected} bytes its content-length declared`)
      return
    }
    this.#sequence.onEnd()
  }

  /** The response breaks RFC 9113 section 8.1.1: the request fails and the stream is reset with PROTOCOL_ERROR. */
  #malformed (message: string): void {
    this.#finish(new SocketError(`HTTP/2 response from ${this.req.origin} is malformed (RFC 9113 section 8.1.1): ${message}`), ErrorCode.PROTOCOL_ERROR)
  }

  /**
   * Runs a limit check on this stream's counts (made by the first check); when it throws, the
   * request fails with its error and false is returned.
   */
  #within (check: LimitCheck, length: number): boolean {
    const config = this.#config
    try {
      check(this.#limits ??= new ResponseLimits(config.maxInformationalResponses, config.maxResponseSize), this.req, length)
      return true
    } catch (err) {
      this.#finish(err as Error)
      return false
    }
  }

  #onData (chunk: Buffer): void {
    this.#receivedLength += chunk.length
    if (this.#expectedLength !== -1 && this.#receivedLength > this.#expectedLength) {
      this.#session!.consumed(this.#id, chunk.length)
      this.#malformed(`its body is longer than the ${this.#expectedLength} bytes its content-length declared`)
      return
    }
    if (this.#config.maxResponseSize !== NO_SIZE_LIMIT && !this.#within(countBody, chunk.length)) {
      this.#session!.consumed(this.#id, chunk.length)
      return
    }
    if (this.#timer.kind === T_BODY) this.#timer.refresh()
    this.#sequence.onData(chunk)
  }

  /** The request's timer fired (called on the exchange: one function for every stream). */
  static #onTimer (this: H2Exchange, kind: number): void {
    if (this.#done) return
    const req = this.req
    if (kind === T_HEADERS) {
      this.#finish(resendHeadersTimeoutError(req))
    } else if (!req.paused) {
      this.#finish(bodyTimeoutError(req, this.#timer.ms))
    }
  }

  /** Fails the request with `err`: its stream, when still open, is reset with `code`. */
  #finish (err: Error, code: number = ErrorCode.CANCEL): void {
    if (this.#done) return
    this.#stop()
    this.#resetStream(code)
    this.#owner.onExchangeDone(this)
    this.req.fail(err)
  }

  /**
   * Gives the request up without ending it (the session is going away and the server never saw
   * the stream): the caller sends it again elsewhere.
   */
  release (): void {
    if (this.#done) return
    this.#stop()
    this.#resetStream()
  }

  #resetStream (code: number = ErrorCode.CANCEL): void {
    const session = this.#session
    if (session !== null && this.#id !== -1 && !this.#streamGone && !session.closed) session.reset(this.#id, code)
  }

  /** Marks the exchange done, stops its timer and body, and returns the window of chunks nobody will read. */
  #stop (): void {
    this.#done = true
    this.#timer.clear()
    this.#body?.abort()
    this.#body = null
    this.#target = null
    let unread = 0
    for (const chunk of this.#sequence.takeQueued()) unread += chunk.length
    if (unread > 0) this.#session!.consumed(this.#id, unread)
  }
}
