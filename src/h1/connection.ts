/**
 * One HTTP/1.1 connection of a Client: feeds the parser, matches responses to requests in order
 * (pipelining), runs the headers/body/idle timers, and hands the socket over on upgrade; the
 * request writer beside it puts the requests on the wire. The Client decides what to send; this
 * decides when the connection can take it.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import { socketInfo } from '../connection/socket-info.js'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { HTTPParserError, SocketError } from '../errors.js'
import { timerError } from '../connection/timeout-errors.js'
import { HEAD_BODY, HEAD_NO_BODY, HEAD_UPGRADE, ResponseParser } from './response-parser.js'
import type { ResponseParserSink } from './response-parser.js'
import { mayJoinPipeline } from './pipelining.js'
import type { ClientRequest, RequestRunner } from '../connection/client-request.js'
import type { ConnectionConfig } from '../connection/connection-config.js'
import { H1RequestWriter } from './request-writer.js'
import { releasingHeldWrites } from './write-batch.js'
import type { RequestWriterOwner } from './request-writer.js'
import { ConnectionTimer, T_BODY, T_HEADERS, T_IDLE } from '../connection/connection-timer.js'
import { handOver, partitionOnClose } from './connection-close.js'
import { LARGE_READ_BYTES, keepReadBuffersInHeap } from '../runtime/heap-settling.js'
import { ResponseLimits } from '../connection/response-limits.js'
import { applyTypeOfService } from '../connection/type-of-service.js'
import type { ClientConnection, ConnectionOwner } from '../connection/client-connection.js'
import { attachSharedReadSink, detachSharedReadSink } from '../connection/shared-read-buffer.js'
import type { SharedReadSink } from '../connection/shared-read-buffer.js'
import { keepAliveIdleMs } from './keep-alive-idle.js'

function noop (): void {}

/** An open HTTP/1.1 connection. */
export class H1Connection implements ClientConnection, ResponseParserSink, RequestRunner, RequestWriterOwner, SharedReadSink {
  readonly protocol = 'h1'
  readonly socket: Duplex
  readonly #owner: ConnectionOwner
  readonly #config: ConnectionConfig
  readonly #parser: ResponseParser
  readonly #writer: H1RequestWriter
  readonly #inflight: ClientRequest[] = []
  #blocked = false
  #reset = false
  #sent = 0
  #served = 0
  #dead = false
  /** The server ended the connection (its bytes may still wait in a paused parser). */
  #eof = false
  #error: Error | null = null
  #upgrade: { req: ClientRequest, statusCode: number, headers: IncomingHeaders } | null = null
  readonly #limits: ResponseLimits
  readonly #timer: ConnectionTimer
  readonly #idleTimer: ConnectionTimer
  #idleMs: number
  /** Waiting for a request: the socket is unref'd and the idle timer armed. */
  #idle = false
  /**
   * True while the parser works through received bytes. Those bytes were on their way before any
   * request written now, so none may be written until the parser is done with them: a response
   * that ended mid-read hands the connection on only afterwards (see {@link #afterParse}).
   */
  #parsing = false
  /** The connection became free, or turned a request away, while parsing: the owner hears after. */
  #readyPending = false
  /**
   * Index (among the requests written) of the first one held in the current turn's write batch.
   * While the socket stays corked, it and those after it have not left: no byte read can answer them.
   */
  #heldFrom = 0

  constructor (owner: ConnectionOwner, socket: Duplex) {
    this.#owner = owner
    this.#config = owner.config
    this.socket = socket
    this.#idleMs = this.#config.keepAliveTimeout
    this.#timer = new ConnectionTimer(this.#onTimer)
    this.#idleTimer = new ConnectionTimer(this.#onIdleTimer)
    this.#parser = new ResponseParser(this, this.#config.maxHeaderSize)
    this.#limits = new ResponseLimits(this.#config.maxInformationalResponses, this.#config.maxResponseSize)
    this.#writer = new H1RequestWriter(socket, this)
    // Bytes read before this connection took the socket, or while it was paused, come as 'data'.
    socket.on('data', this.#onData)
    attachSharedReadSink(socket, this)
    socket.on('end', this.#onEnd)
    socket.on('error', this.#onError)
    socket.on('close', this.#onClose)
  }

  /** Requests written and not yet answered. */
  get size (): number { return this.#inflight.length }

  /** Requests in flight whose dispatch has not ended (an aborted pipelined one still awaits its answer). */
  get live (): number {
    let n = 0
    for (const req of this.#inflight) if (!req.completed) n++
    return n
  }

  /** True once the connection can no longer be used. */
  get dead (): boolean { return this.#dead }

  /** Requests in flight at once: the pipelining depth. */
  get capacity (): number { return this.#config.pipelining }

  /** Whether `req` may be written now (pipelining, blocking and body rules). */
  canAccept (req: ClientRequest): boolean {
    if (this.#dead || this.#reset || this.#blocked || this.#writer.busy) return false
    // Destroyed by an error whose 'close' is still to come: the request waits for a fresh connection.
    if (this.socket.destroyed) return false
    if (this.#parsing) {
      // The rest of the bytes being parsed could otherwise be taken as this request's answer.
      this.#readyPending = true
      return false
    }
    const n = this.#inflight.length
    if (n === 0) return true
    return n < this.#config.pipelining && mayJoinPipeline(req)
  }

  /** Writes `req` (head, and the body when it is in memory). */
  write (req: ClientRequest): void {
    req.runner = this
    const inflight = this.#inflight
    inflight.push(req)
    this.#sent++
    const max = this.#config.maxRequestsPerClient
    if ((max > 0 && this.#sent >= max) || req.reset) this.#reset = true
    if (req.blocking) this.#blocked = true
    if (inflight.length === 1) {
      if (this.#idle) {
        this.#idle = false
        this.#idleTimer.disarm()
        ;(this.socket as Socket).ref?.()
      }
      this.#timer.arm(T_HEADERS, req.headersTimeout)
      if (req.paused) this.pauseRequest(req)
    }
    applyTypeOfService(this.socket, req.typeOfService)
    if (this.#writer.write(req)) this.#heldFrom = this.#sent - 1
  }

  /**
   * Whether the request first in line has left for the server. A request is held in the turn's
   * write batch until the turn ends, and a second read of the same turn must not answer it.
   */
  #firstOnWire (): boolean {
    return this.#sent - this.#inflight.length < this.#heldFrom || !this.#holdingBatch()
  }

  /** True while the turn's write batch still holds this socket's latest writes back. */
  #holdingBatch (): boolean {
    return this.socket.writableCorked > 0 && !releasingHeldWrites()
  }

  /** Tells the owner the connection can take a request, once the parser left the bytes it reads. */
  #ready (): void {
    if (this.#parsing) this.#readyPending = true
    else this.#owner.onConnectionReady(this)
  }

  // --- request writer calls -----------------------------------------------------------------

  /** A streamed or held-back body is out: the next request may be written. */
  onRequestWritten (): void {
    if (!this.#dead) this.#ready()
  }

  /** The body of `req` failed while it was being streamed. */
  onRequestBodyFailed (req: ClientRequest, err: Error): void {
    this.#failOne(req, err)
  }

  // --- controller calls ---------------------------------------------------------------------

  abortRequest (req: ClientRequest, reason: Error): void {
    this.#failOne(req, reason)
  }

  /** Fails one in-flight request and drops the connection: its bytes are on the wire already. */
  #failOne (req: ClientRequest, err: Error): void {
    const i = this.#inflight.indexOf(req)
    if (i > 0 && this.#writer.writing !== req) {
      // Pipelined behind another response: its own answer is still to come and will be read
      // and dropped, so the requests around it keep their connection. The client hears of it:
      // a close() may be waiting for nothing but that answer.
      req.fail(err)
      if (!this.#dead) this.#ready()
      return
    }
    // It stays in the list (completed, so skipped) while the connection closes: the requests
    // pipelined behind it keep their place after it and are sent again, as untouched requests.
    req.fail(err)
    this.destroy(null)
  }

  pauseRequest (req: ClientRequest): void {
    if (this.#inflight[0] !== req || this.#dead) return
    this.#parser.pause()
    this.socket.pause()
    if (this.#timer.kind === T_BODY) this.#timer.disarm()
  }

  resumeRequest (req: ClientRequest): void {
    if (this.#inflight[0] !== req || this.#dead) return
    if (req.responseStarted) this.#timer.arm(T_BODY, req.bodyTimeout)
    this.socket.resume()
    // Resumed from inside a parse (a handler's own callback): that parse finishes the work.
    if (this.#parsing) {
      this.#parser.resume()
      return
    }
    this.#parsing = true
    try {
      this.#parser.resume()
    } catch (err) {
      this.#parsing = false
      this.destroy(err as Error)
      return
    }
    if (this.#eof && !this.#dead && !this.#parser.paused && this.#upgrade === null) {
      this.#parsing = false
      this.#finishEof()
      return
    }
    this.#afterParse()
  }

  // --- parser sink --------------------------------------------------------------------------

  onHead (statusCode: number, headers: IncomingHeaders, statusText: string): number {
    const req = this.#inflight[0]
    if (req === undefined) throw new HTTPParserError(`unexpected response (HTTP ${statusCode}): no request is waiting for one`, 'LIB_ERR_HTTP_PARSER', statusText)
    if (!this.#firstOnWire()) throw new SocketError(`unexpected response (HTTP ${statusCode}) from the server before the next request was sent`, socketInfo(this.socket))
    if (statusCode < 200) {
      if (statusCode === 101 && req.upgrade !== null) {
        this.#upgrade = { req, statusCode, headers }
        return HEAD_UPGRADE
      }
      this.#limits.informational(req)
      if (statusCode === 100) this.#writer.continue(req)
      else req.onInformation(statusCode, headers)
      // The headers timer keeps running: it bounds the whole wait for the final head, so a
      // server cannot hold the request forever by sending 1xx heads.
      return HEAD_BODY
    }
    this.#limits.finalHead()
    if (req.method === 'CONNECT' && statusCode < 300) {
      this.#upgrade = { req, statusCode, headers }
      return HEAD_UPGRADE
    }
    // The server answered without asking for the body: it will not be sent, so the
    // connection's framing is unknown to the server and it cannot be reused.
    if (this.#writer.skipHeldBody(req)) this.#reset = true
    this.#timer.arm(T_BODY, req.bodyTimeout)
    if (!req.completed) req.onHead(statusCode, headers, statusText)
    if (this.#blocked && req.blocking && !this.#dead) {
      this.#blocked = false
      this.#ready()
    }
    return req.method === 'HEAD' ? HEAD_NO_BODY : HEAD_BODY
  }

  onBody (chunk: Buffer): void {
    if (this.#timer.kind === T_BODY) this.#timer.refresh()
    const req = this.#inflight[0]!
    this.#limits.body(req, chunk.length)
    if (!req.completed) req.onData(chunk)
  }

  onEnd (trailers: IncomingHeaders): void {
    const parser = this.#parser
    const req = this.#inflight.shift()!
    this.#served++
    this.#timer.disarm()
    // The response is complete before the body was: the connection is not reused, and the body
    // stops once the response was delivered (as undici does), not before.
    const cutShort = this.#writer.writing === req
    if (cutShort) this.#reset = true
    if (!parser.keepAlive) {
      this.#reset = true
    } else if (parser.keepAliveHintMs >= 0) {
      const hinted = keepAliveIdleMs(parser.keepAliveHintMs, this.#idleMs, this.#config)
      if (hinted === 0) this.#reset = true
      else this.#idleMs = hinted
    }
    req.end(trailers)
    if (cutShort) this.#writer.stopBodyOf(req)
    if (this.#dead) return
    const next = this.#inflight[0]
    if (next !== undefined && !parser.keepAlive) {
      // RFC 9112 section 9.6: a server that answers with `close` processes nothing after it, so
      // the requests pipelined behind will never be answered here; they go to a fresh connection.
      this.#teardown(null, true)
      return
    }
    if (next !== undefined) {
      this.#timer.arm(T_HEADERS, next.headersTimeout)
      if (next.paused) this.pauseRequest(next)
    } else if (this.#reset && this.#writer.writing === null) {
      this.destroy(null)
      return
    }
    this.#ready()
    if (!this.#parsing) this.#idleUnlessWriting()
  }

  /**
   * Idle only if the client had nothing to send: a request written meanwhile would otherwise
   * undo the unref and the idle timer at once.
   */
  #idleUnlessWriting (): void {
    if (!this.#dead && this.#inflight.length === 0) this.#startIdle()
  }

  // --- timers -------------------------------------------------------------------------------

  readonly #onTimer = (kind: number): void => {
    const req = this.#inflight[0]
    if (this.#dead || req === undefined) return
    const err = timerError(kind, req, this.#timer.ms)
    if (err !== null) this.destroy(err)
  }

  #startIdle (): void {
    this.#idle = true
    ;(this.socket as Socket).unref?.()
    this.#idleTimer.arm(T_IDLE, this.#idleMs)
  }

  readonly #onIdleTimer = (): void => {
    if (this.#inflight.length === 0 && !this.#dead) this.destroy(null)
  }

  // --- socket events ------------------------------------------------------------------------

  readonly #onData = (chunk: Buffer): void => this.#read(chunk, false)

  /** A read into the shared buffer: parsed in place, copied only where bytes outlive the call. */
  onSharedRead (bytes: Buffer): void {
    this.#read(bytes, true)
  }

  #read (chunk: Buffer, reused: boolean): void {
    if (this.#inflight.length === 0) {
      // Bytes nobody asked for would be taken as the answer to the next request.
      this.destroy(new SocketError(`unexpected data from the server on an idle connection: ${JSON.stringify(chunk.toString('latin1', 0, 32))}`, socketInfo(this.socket)))
      return
    }
    if (chunk.length >= LARGE_READ_BYTES) keepReadBuffersInHeap()
    const timer = this.#timer
    timer.startBatch()
    this.#parsing = true
    try {
      this.#parser.execute(chunk, reused)
    } catch (err) {
      this.#parsing = false
      this.destroy(err as Error)
      return
    } finally {
      timer.endBatch()
    }
    this.#afterParse()
  }

  /**
   * The parser is done with the bytes it was given. Bytes left over once every request in flight
   * is answered (a body on a 204 or 304, or on an answer to HEAD, a longer body than its
   * content-length) arrived before any later request was sent, so they can answer none: the
   * connection closes and what waits goes out on a fresh one. Otherwise the connection is handed
   * on now, if it became free.
   */
  #afterParse (): void {
    this.#parsing = false
    if (this.#dead) return
    if (this.#upgrade !== null) {
      this.#detachForUpgrade()
      return
    }
    if (this.#inflight.length === 0 && !this.#parser.idle) {
      this.#readyPending = false
      this.destroy(new SocketError('unexpected data from the server after the last response', socketInfo(this.socket)))
      return
    }
    if (!this.#readyPending) return
    this.#readyPending = false
    this.#owner.onConnectionReady(this)
    this.#idleUnlessWriting()
  }

  readonly #onEnd = (): void => {
    if (this.#dead) return
    this.#eof = true
    // A paused handler still has bytes to take from the parser; the end waits for them.
    if (!this.#parser.paused) this.#finishEof()
  }

  #finishEof (): void {
    this.#parsing = true
    try {
      this.#parser.finish()
    } catch (err) {
      this.#error ??= new SocketError(`other side closed: ${(err as Error).message}`, socketInfo(this.socket), { cause: err })
    }
    this.#parsing = false
    this.#teardown(this.#error, true)
  }

  readonly #onError = (err: Error): void => {
    this.#error ??= new SocketError(`socket error: ${err.message}`, socketInfo(this.socket), { cause: err })
  }

  readonly #onClose = (): void => {
    if (this.#parser.paused && !this.#dead) {
      // The bytes a paused handler has yet to take may complete its response; whether the
      // close (or the socket error) fails the request is known once they are parsed.
      this.#eof = true
      return
    }
    this.#teardown(this.#error, true)
  }

  /**
   * Closes the connection. With `err`, the request being answered fails with it; without,
   * requests still in flight fail with a SocketError. Others pipelined behind are re-sent elsewhere
   * when `requeue` allows and they are safe to repeat.
   */
  destroy (err: Error | null, requeue = true): void {
    if (this.#dead) return
    this.#teardown(err, requeue, true)
  }

  #teardown (err: Error | null, requeue: boolean, local = false): void {
    if (this.#dead) return
    this.#dead = true
    const parserIdle = this.#parser.idle
    this.#parser.destroy()
    this.#timer.clear()
    this.#idleTimer.clear()
    this.#writer.abort()
    const socket = this.socket
    this.#unlisten()
    // Errors after this point have nobody left to fail; swallow them instead of crashing.
    socket.on('error', noop)
    const requests = this.#inflight.splice(0)
    const info = requests.length > 0 && err === null ? socketInfo(socket) : null
    // Requests held in this turn's write batch never leave once the socket is destroyed.
    const unsentFrom = this.#holdingBatch() ? Math.max(0, this.#heldFrom - (this.#sent - requests.length)) : requests.length
    socket.destroy()
    let error = err
    if (error === null && info !== null) error = new SocketError('other side closed', info)
    const { retry, failing } = partitionOnClose(requests, { requeue, local, served: this.#served, parserIdle, unsentFrom })
    this.#owner.onConnectionClosed(this, error, retry)
    for (const req of failing) req.fail(error!)
  }

  #unlisten (): void {
    const socket = this.socket
    detachSharedReadSink(socket)
    socket.off('data', this.#onData)
    socket.off('end', this.#onEnd)
    socket.off('close', this.#onClose)
    socket.off('error', this.#onError)
  }

  #detachForUpgrade (): void {
    const { req, statusCode, headers } = this.#upgrade!
    this.#upgrade = null
    this.#dead = true
    const rest = this.#parser.takeRest()
    this.#timer.clear()
    this.#idleTimer.clear()
    this.#unlisten()
    this.#inflight.splice(0)
    this.#owner.onConnectionClosed(this, null, [])
    handOver(this.socket, rest, (socket) => req.upgraded(statusCode, headers, socket))
  }
}
