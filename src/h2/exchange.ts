/**
 * One request over one HTTP/2 stream: sends the headers and the body (with the stream's flow
 * control as backpressure), turns the stream's events into the request's handler calls, and runs
 * the request's headers and body timers. The session it belongs to is {@link H2Connection}.
 * @module
 */

import http2 from 'node:http2'
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { HeadersOverflowError, NotSupportedError, SocketError } from '../errors.js'
import { bodyTimeoutError } from '../connection/timeout-errors.js'
import type { ClientRequest } from '../connection/client-request.js'
import { BODY_BYTES, BODY_NONE, bodyBytes } from '../connection/request-body.js'
import { BodyWriter } from '../connection/body-writer.js'
import type { BodyWriterOwner } from '../connection/body-writer.js'
import { T_BODY, T_HEADERS } from '../connection/connection-timer.js'
import { StreamTimer } from './stream-timer.js'
import { NO_SIZE_LIMIT, ResponseLimits } from '../connection/response-limits.js'
import type { ConnectionConfig } from '../connection/connection-config.js'
import { h2RequestHeaders, isExtendedConnect, requestHeadText } from './request-headers.js'
import { describeStreamReset } from './error-codes.js'
import { handOverTunnel, toIncomingHeaders } from './stream-shape.js'
import { countBody, countInformational } from './limit-checks.js'
import type { LimitCheck } from './limit-checks.js'
import { ResponseSequence } from './response-sequence.js'
import type { SequenceSink } from './response-sequence.js'
import { headersTimeLeft, resendHeadersTimeoutError } from './resend-budget.js'
import { publishSendHeaders } from '../observability/request-events.js'
import { monotonicNow } from '../runtime/timers.js'

const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR, NGHTTP2_REFUSED_STREAM } = http2.constants

/** What an exchange reports to its session. */
export interface ExchangeOwner {
  /** The exchange ended (response complete, failed or reset); its stream is no longer counted. */
  onExchangeDone (exchange: H2Exchange): void
  /** The stream was refused before the server processed it (REFUSED_STREAM): send the request again. */
  onExchangeRefused (exchange: H2Exchange): void
  /** A CONNECT stream became a tunnel: the session must stay open until it closes. */
  onTunnel (stream: ClientHttp2Stream): void
}

/** Where a stream keeps the exchange its listeners report to. */
const EXCHANGE = Symbol('h2 exchange')

/** A stream as this module tags it. */
type ExchangeStream = ClientHttp2Stream & { [EXCHANGE]?: H2Exchange | undefined }

/** The stream events an exchange listens to, attached in start() (set by H2Exchange). */
let STREAM_LISTENERS: ReadonlyArray<readonly [string, (this: ClientHttp2Stream, ...args: any[]) => void]>

/**
 * A request in flight on an HTTP/2 session. Its stream's events may arrive in any order (see
 * {@link ResponseSequence}); the handler still gets the head, then the body, then one end or one
 * error, and nothing once the request ended.
 */
export class H2Exchange implements BodyWriterOwner, SequenceSink {
  readonly req: ClientRequest
  readonly #owner: ExchangeOwner
  /** The session's limits: maxHeaderSize for each header (or trailer) block, and those counted in #limits. */
  readonly #config: ConnectionConfig
  #stream: ClientHttp2Stream | null = null
  #session: ClientHttp2Session | null = null
  #body: BodyWriter | null = null
  #bodyDone = false
  /** A CONNECT (or RFC 8441 extended CONNECT) stream: a 2xx answer turns it into a tunnel. */
  #tunnel = false
  #done = false
  /** Body chunks and the end, held until the head (and a paused handler) lets them through. */
  readonly #sequence = new ResponseSequence(this)
  readonly #timer: StreamTimer<H2Exchange>
  /**
   * `maxInformationalResponses` and `maxResponseSize`, counted for this stream; made by the first
   * 1xx head or body chunk that counts, so that most open streams hold none.
   */
  #limits: ResponseLimits | null = null

  constructor (req: ClientRequest, owner: ExchangeOwner, config: ConnectionConfig) {
    this.req = req
    this.#owner = owner
    this.#config = config
    this.#timer = new StreamTimer<H2Exchange>(H2Exchange.#onTimer, this)
  }

  /** When this attempt started (`monotonicNow()`): a request sent again keeps its first attempt's. */
  startedAt = 0

  /** True while the request is in flight and its response head has not arrived. */
  get awaitingHead (): boolean {
    return !this.#done && !this.#sequence.headDelivered
  }

  /** The stream's id once the session sent its HEADERS frame; undefined before. */
  get streamId (): number | undefined {
    return this.#stream?.id
  }

  /** The session's sweep of its streams' timers, at `now` (`monotonicNow()`). */
  sweepTimer (now: number): void {
    this.#timer.sweep(now)
  }

  /** Opens the stream and sends the request. */
  start (session: ClientHttp2Session, scheme: string): void {
    const req = this.req
    this.#tunnel = req.method === 'CONNECT' || isExtendedConnect(req)
    if (req.upgrade !== null && !this.#tunnel) {
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
    const endStream = req.bodyKind === BODY_NONE && !this.#tunnel
    this.#session = session
    let stream: ClientHttp2Stream
    try {
      stream = session.request(h2RequestHeaders(req, scheme), { endStream })
    } catch (err) {
      this.#finish(new SocketError(`HTTP/2 stream could not be opened: ${(err as Error).message}`, null, { cause: err }))
      return
    }
    this.#stream = stream
    publishSendHeaders(req, () => requestHeadText(req), session.socket)
    ;(stream as ExchangeStream)[EXCHANGE] = this
    for (const [event, listener] of STREAM_LISTENERS) stream.on(event, listener)
    this.#timer.arm(T_HEADERS, headersMs)
    if (req.paused) stream.pause()
    if (endStream || this.#tunnel) {
      this.#bodyDone = true
      if (endStream) req.requestSent()
      return
    }
    if (req.expectContinue) stream.once('continue', () => this.#sendBody(stream))
    else this.#sendBody(stream)
  }

  #sendBody (stream: ClientHttp2Stream): void {
    if (this.#done) return
    const req = this.req
    if (req.bodyKind === BODY_BYTES) {
      const bytes = bodyBytes(req.body)
      req.bodyChunkSent(bytes)
      this.#bodyDone = true
      stream.end(bytes)
      req.requestSent()
      return
    }
    this.#body = new BodyWriter(stream, req.body, req.bodyKind, req.bodyLength, this, false)
    this.#body.start()
  }

  // --- body writer ---------------------------------------------------------------------------

  onBodyChunk (chunk: Uint8Array): void {
    this.req.bodyChunkSent(chunk)
  }

  onBodyWritten (): void {
    this.#bodyDone = true
    this.#body = null
    this.#stream?.end()
    this.req.requestSent()
  }

  onBodyError (err: Error): void {
    this.#body = null
    this.fail(err)
  }

  // --- controller calls ----------------------------------------------------------------------

  /** The handler paused: stop reading, so the stream's window closes and the server waits. */
  pause (): void {
    this.#stream?.pause()
    if (this.#timer.kind === T_BODY) this.#timer.disarm()
  }

  /** The handler resumed: what arrived while it was paused comes first, then the stream reads again. */
  resume (): void {
    if (this.#done) return
    this.#sequence.flush()
    if (this.#done || this.req.paused) return
    if (this.#sequence.headDelivered) this.#timer.arm(T_BODY, this.req.bodyTimeout)
    this.#stream?.resume()
  }

  // --- sequence sink -------------------------------------------------------------------------

  get paused (): boolean { return this.req.paused }

  get done (): boolean { return this.#done }

  deliverData (chunk: Buffer): void {
    this.req.onData(chunk)
  }

  deliverEnd (): void {
    const stream = this.#stream!
    this.#done = true
    this.#timer.clear()
    if (!this.#bodyDone) {
      // The answer is complete before the body was sent: stop sending it (RFC 9113 section 8.1).
      // A stream body is destroyed a turn after the response is delivered: it may be a proxy's
      // own incoming request, whose socket must still carry that response back.
      this.#body?.abort(true)
      this.#body = null
      if (!stream.closed) stream.close(NGHTTP2_NO_ERROR)
    }
    this.#detach()
    this.#owner.onExchangeDone(this)
    this.req.end(this.#trailers)
  }

  /** Ends the request with `err` and resets its stream with CANCEL. */
  fail (err: Error): void {
    this.#finish(err)
  }

  // --- stream events -------------------------------------------------------------------------

  #onInformation (headers: IncomingHttpHeaders): void {
    const status = Number(headers[':status'])
    // 100 Continue is consumed by the stream ('continue'); the others are information for the
    // handler, and only before the final head.
    if (status <= 100 || status >= 200 || this.#done || this.#sequence.headDelivered) return
    if (!this.#within(countInformational, 0)) return
    const fields = this.#checked(headers, 'informational response')
    if (fields !== null) this.req.onInformation(status, fields)
  }

  /** The block as IncomingHeaders; null (and the request failed) when it is over maxHeaderSize. */
  #checked (headers: IncomingHttpHeaders, what: string): IncomingHeaders | null {
    const max = this.#config.maxHeaderSize
    const fields = toIncomingHeaders(headers, max)
    if (fields === null) this.#finish(new HeadersOverflowError(`${what} headers from ${this.req.origin} exceed maxHeaderSize (${max} bytes)`))
    return fields
  }

  #onResponse (headers: IncomingHttpHeaders): void {
    // A second final head on one stream is not HTTP: the first one stands.
    if (this.#done || this.#sequence.headDelivered) return
    const req = this.req
    const status = Number(headers[':status'])
    const fields = this.#checked(headers, 'response')
    if (fields === null) return
    if (this.#tunnel && status >= 200 && status < 300) {
      this.#timer.clear()
      const stream = this.#stream!
      this.#detach()
      this.#done = true
      handOverTunnel(stream, STREAM_LISTENERS, this.#sequence.takeQueued())
      this.#owner.onExchangeDone(this)
      this.#owner.onTunnel(stream)
      req.upgraded(status, fields, stream)
      return
    }
    this.#timer.arm(T_BODY, req.bodyTimeout)
    if (!req.completed) req.onHead(status, fields, '')
    if (this.#done || req.completed) return
    if (req.paused) this.pause()
    this.#sequence.onHeadDelivered()
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
    if (this.#done) return
    if (this.#config.maxResponseSize !== NO_SIZE_LIMIT && !this.#within(countBody, chunk.length)) return
    if (this.#timer.kind === T_BODY) this.#timer.refresh()
    this.#sequence.onData(chunk)
  }

  #trailers: IncomingHeaders = {}

  #onTrailers (headers: IncomingHttpHeaders): void {
    if (this.#done) return
    this.#trailers = this.#checked(headers, 'trailer') ?? {}
  }

  #onEnd (): void {
    // node:http2 also ends the readable side of a stream it destroys (reset, or its session went
    // away): only an end that leaves the stream alive is the server's END_STREAM. For the
    // others, 'close' says what happened.
    if (this.#done || this.#sequence.ended || this.#stream!.destroyed) return
    this.#sequence.onEnd()
  }

  #onError (err: Error & { code?: string }): void {
    // A reset by the peer is reported again by 'close', with the code that decides what to do;
    // a response whose end arrived is complete, whatever happens to its stream afterwards.
    if (err.code === 'ERR_HTTP2_STREAM_ERROR' || this.#sequence.ended) return
    this.#finish(new SocketError(`HTTP/2 stream error: ${err.message}`, null, { cause: err }))
  }

  #onClose (): void {
    // After the end, the stream may close while chunks still wait for a paused handler.
    if (this.#done || (this.#sequence.ended && this.#sequence.headDelivered)) return
    if (this.#sequence.ended) {
      this.#finish(new SocketError('HTTP/2 stream ended without a response'))
      return
    }
    const code = this.#stream?.rstCode ?? NGHTTP2_NO_ERROR
    if (code === NGHTTP2_REFUSED_STREAM && !this.#sequence.headDelivered && this.req.replayable) {
      // RFC 9113 section 8.7: a refused stream was not processed, so it is safe to send again.
      this.#done = true
      this.#timer.clear()
      this.#detach()
      this.#owner.onExchangeRefused(this)
      return
    }
    this.#finish(new SocketError(this.#session?.destroyed === true
      ? `the HTTP/2 session with ${this.req.origin} closed before the response ended`
      : describeStreamReset(code)))
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

  /** Fails the request with `err`: its stream, when still open, is reset with CANCEL. */
  #finish (err: Error): void {
    if (this.#done) return
    const stream = this.#stop()
    if (stream !== null && !stream.closed) stream.close(NGHTTP2_CANCEL)
    this.#owner.onExchangeDone(this)
    this.req.fail(err)
  }

  /**
   * Gives the request up without ending it (the session is going away and the server never saw
   * the stream): the caller sends it again elsewhere.
   */
  release (): void {
    if (this.#done) return
    const stream = this.#stop()
    if (stream !== null && !stream.destroyed) stream.destroy()
  }

  static {
    // One set of listener functions for every stream: each finds its exchange on the stream, so
    // a stream costs no closure per event.
    // Undefined once detached: an emit under way still calls the listeners it started with.
    const on = (stream: ClientHttp2Stream): H2Exchange | undefined => (stream as ExchangeStream)[EXCHANGE]
    STREAM_LISTENERS = [
      ['response', function (this: ClientHttp2Stream, headers: IncomingHttpHeaders) { const x = on(this); if (x !== undefined) x.#onResponse(headers) }],
      ['headers', function (this: ClientHttp2Stream, headers: IncomingHttpHeaders) { const x = on(this); if (x !== undefined) x.#onInformation(headers) }],
      ['data', function (this: ClientHttp2Stream, chunk: Buffer) { const x = on(this); if (x !== undefined) x.#onData(chunk) }],
      ['trailers', function (this: ClientHttp2Stream, headers: IncomingHttpHeaders) { const x = on(this); if (x !== undefined) x.#onTrailers(headers) }],
      ['end', function (this: ClientHttp2Stream) { const x = on(this); if (x !== undefined) x.#onEnd() }],
      ['error', function (this: ClientHttp2Stream, err: Error & { code?: string }) { const x = on(this); if (x !== undefined) x.#onError(err) }],
      ['close', function (this: ClientHttp2Stream) { const x = on(this); if (x !== undefined) x.#onClose() }]
    ]
  }

  /** Marks the exchange done, stops its timer and body, and detaches from its stream (returned). */
  #stop (): ClientHttp2Stream | null {
    this.#done = true
    this.#timer.clear()
    this.#body?.abort()
    this.#body = null
    const stream = this.#stream
    this.#detach()
    return stream
  }

  /**
   * Unhooks the exchange from its stream. The listeners stay: a finished stream does not need
   * seven removals and a no-op added for errors; without an exchange the listeners do nothing,
   * and the 'error' one keeps a late error from being thrown.
   */
  #detach (): void {
    const stream = this.#stream
    if (stream !== null) (stream as ExchangeStream)[EXCHANGE] = undefined
  }
}
