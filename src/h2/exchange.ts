/**
 * One request over one HTTP/2 stream: sends the headers and the body (with the stream's flow
 * control as backpressure), turns the stream's events into the request's handler calls, and runs
 * the request's headers and body timers. The session it belongs to is {@link H2Connection}.
 * @module
 */

import http2 from 'node:http2'
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2'
import type { IncomingHeaders } from '../handler.js'
import { BodyTimeoutError, HeadersTimeoutError, NotSupportedError, SocketError } from '../errors.js'
import type { ClientRequest } from '../h1/client-request.js'
import { BODY_BYTES, BODY_NONE, bodyBytes } from '../h1/request-body.js'
import { BodyWriter } from '../h1/body-writer.js'
import type { BodyWriterOwner } from '../h1/body-writer.js'
import { ConnectionTimer, T_BODY, T_HEADERS } from '../h1/connection-timer.js'
import { h2RequestHeaders } from './request-headers.js'
import { rstCodeName } from './error-codes.js'

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

/** Copies an HTTP/2 header block into conduit's shape: lower-case names, no pseudo-headers. */
function toIncomingHeaders (headers: IncomingHttpHeaders): IncomingHeaders {
  const out: IncomingHeaders = {}
  for (const name of Object.keys(headers)) {
    if (name.charCodeAt(0) === 58 /* ':' */) continue
    const value = headers[name]
    if (value !== undefined) out[name] = value
  }
  return out
}

/** A request in flight on an HTTP/2 session. */
export class H2Exchange implements BodyWriterOwner {
  readonly req: ClientRequest
  readonly #owner: ExchangeOwner
  #stream: ClientHttp2Stream | null = null
  #body: BodyWriter | null = null
  #bodyDone = false
  #responded = false
  #done = false
  readonly #timer: ConnectionTimer

  constructor (req: ClientRequest, owner: ExchangeOwner) {
    this.req = req
    this.#owner = owner
    this.#timer = new ConnectionTimer(this.#onTimer)
  }

  /** The stream's id once the session sent its HEADERS frame; undefined before. */
  get streamId (): number | undefined {
    return this.#stream?.id
  }

  /** Opens the stream and sends the request. */
  start (session: ClientHttp2Session, scheme: string): void {
    const req = this.req
    if (req.upgrade !== null) {
      // HTTP/2 has no Upgrade (RFC 9113 section 8.6); only CONNECT opens a tunnel.
      this.#finish(new NotSupportedError(`upgrade to ${JSON.stringify(req.upgrade)} is not supported over HTTP/2: use an HTTP/1.1 connection (allowH2: false) for upgrades`))
      return
    }
    const endStream = req.bodyKind === BODY_NONE && req.method !== 'CONNECT'
    let stream: ClientHttp2Stream
    try {
      stream = session.request(h2RequestHeaders(req, scheme), { endStream })
    } catch (err) {
      this.#finish(new SocketError(`HTTP/2 stream could not be opened: ${(err as Error).message}`, null, { cause: err }))
      return
    }
    this.#stream = stream
    stream.on('response', this.#onResponse)
    stream.on('headers', this.#onInformation)
    stream.on('data', this.#onData)
    stream.on('trailers', this.#onTrailers)
    stream.on('end', this.#onEnd)
    stream.on('error', this.#onError)
    stream.on('close', this.#onClose)
    this.#timer.arm(T_HEADERS, req.headersTimeout)
    if (req.paused) stream.pause()
    if (endStream || req.method === 'CONNECT') {
      this.#bodyDone = true
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

  resume (): void {
    if (this.#done) return
    if (this.#responded) this.#timer.arm(T_BODY, this.req.bodyTimeout)
    this.#stream?.resume()
  }

  /** Ends the request with `err` and resets its stream with CANCEL. */
  fail (err: Error): void {
    this.#finish(err)
  }

  // --- stream events -------------------------------------------------------------------------

  readonly #onInformation = (headers: IncomingHttpHeaders): void => {
    const status = Number(headers[':status'])
    // 100 Continue is consumed by the stream ('continue'); the others are information for the handler.
    if (status > 100 && status < 200) this.req.onInformation(status, toIncomingHeaders(headers))
  }

  readonly #onResponse = (headers: IncomingHttpHeaders): void => {
    if (this.#done) return
    const req = this.req
    const status = Number(headers[':status'])
    this.#responded = true
    if (req.method === 'CONNECT' && status >= 200 && status < 300) {
      this.#timer.clear()
      const stream = this.#stream!
      this.#detach()
      this.#done = true
      this.#owner.onExchangeDone(this)
      this.#owner.onTunnel(stream)
      req.upgraded(status, toIncomingHeaders(headers), stream)
      return
    }
    this.#timer.arm(T_BODY, req.bodyTimeout)
    if (!req.completed) req.onHead(status, toIncomingHeaders(headers), '')
    if (this.#done || req.completed) return
    if (req.paused) this.pause()
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#done) return
    if (this.#timer.kind === T_BODY) this.#timer.refresh()
    this.req.onData(chunk)
  }

  #trailers: IncomingHeaders = {}

  readonly #onTrailers = (headers: IncomingHttpHeaders): void => {
    this.#trailers = toIncomingHeaders(headers)
  }

  readonly #onEnd = (): void => {
    if (this.#done) return
    if (!this.#responded) {
      this.#finish(new SocketError('HTTP/2 stream ended without a response'))
      return
    }
    const stream = this.#stream!
    this.#done = true
    this.#timer.clear()
    if (!this.#bodyDone) {
      // The answer is complete before the body was sent: stop sending it (RFC 9113 section 8.1).
      this.#body?.abort()
      this.#body = null
      stream.close(NGHTTP2_NO_ERROR)
    }
    this.#detach()
    this.#owner.onExchangeDone(this)
    this.req.end(this.#trailers)
  }

  readonly #onError = (err: Error & { code?: string }): void => {
    this.#finish(new SocketError(`HTTP/2 stream error: ${err.message}`, null, { cause: err }))
  }

  readonly #onClose = (): void => {
    if (this.#done) return
    const code = this.#stream?.rstCode ?? NGHTTP2_NO_ERROR
    if (code === NGHTTP2_REFUSED_STREAM && !this.#responded && this.req.replayable) {
      // RFC 9113 section 8.7: a refused stream was not processed, so it is safe to send again.
      this.#done = true
      this.#timer.clear()
      this.#detach()
      this.#owner.onExchangeRefused(this)
      return
    }
    const reason = code === NGHTTP2_NO_ERROR
      ? 'HTTP/2 stream closed before the response ended'
      : `HTTP/2 stream reset by the server (RST_STREAM ${rstCodeName(code)})`
    this.#finish(new SocketError(reason))
  }

  readonly #onTimer = (kind: number): void => {
    if (this.#done) return
    const req = this.req
    if (kind === T_HEADERS) {
      this.#finish(new HeadersTimeoutError(`no response head from ${req.origin} for ${req.method} ${req.path} within ${this.#timer.ms} ms (headersTimeout)`))
    } else if (!req.paused) {
      this.#finish(new BodyTimeoutError(`no response body data from ${req.origin} for ${req.method} ${req.path} within ${this.#timer.ms} ms (bodyTimeout)`))
    }
  }

  /** Fails the request with `err`: its stream, when still open, is reset with CANCEL. */
  #finish (err: Error): void {
    if (this.#done) return
    this.#done = true
    this.#timer.clear()
    this.#body?.abort()
    this.#body = null
    const stream = this.#stream
    this.#detach()
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
    this.#done = true
    this.#timer.clear()
    this.#body?.abort()
    this.#body = null
    const stream = this.#stream
    this.#detach()
    if (stream !== null && !stream.destroyed) stream.destroy()
  }

  /** Ends the request because its session failed. */
  abortWithSession (err: Error): void {
    this.#finish(err)
  }

  #detach (): void {
    const stream = this.#stream
    if (stream === null) return
    stream.off('response', this.#onResponse)
    stream.off('headers', this.#onInformation)
    stream.off('data', this.#onData)
    stream.off('trailers', this.#onTrailers)
    stream.off('end', this.#onEnd)
    stream.off('close', this.#onClose)
    stream.off('error', this.#onError)
    // Errors after the request ended have nobody to fail.
    stream.on('error', noop)
  }
}

function noop (): void {}
