/**
 * One HTTP/2 session of a Client, on `node:http2` (its framing, HPACK and flow control): many
 * requests at once, one stream each ({@link H2Exchange}), up to the smaller of
 * `maxConcurrentStreams` and the server's own limit. Keeps the session alive with PINGs, closes
 * it when idle, and on GOAWAY gives the requests the server never processed back to the Client.
 * @module
 */

import http2 from 'node:http2'
import type { ClientHttp2Session, ClientHttp2Stream } from 'node:http2'
import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import { HeadersOverflowError, SocketError } from '../errors.js'
import type { ClientRequest, RequestRunner } from '../connection/client-request.js'
import type { ClientConnection, ConnectionOwner } from '../connection/client-connection.js'
import { socketInfo } from '../connection/socket-info.js'
import { H2Exchange } from './exchange.js'
import type { ExchangeOwner } from './exchange.js'
import { rstCodeName } from './error-codes.js'
import { goawayError, noteResend, RESEND_CLOSED, RESEND_GOAWAY, RESEND_REFUSED } from './resend-budget.js'
import { StallProbe, STALL_WINDOW_MS } from './stall-probe.js'
import { STREAM_SWEEP_MS } from './stream-timer.js'
import { WEBSOCKET } from './request-headers.js'
import type { StallProbeOwner } from './stall-probe.js'
import { clearInterval, clearTimeout, monotonicNow, setInterval, setTimeout } from '../runtime/timers.js'

function noop (): void {}

/** An open HTTP/2 session. */
export class H2Connection implements ClientConnection, RequestRunner, ExchangeOwner, StallProbeOwner {
  readonly protocol = 'h2'
  readonly socket: Duplex
  readonly #owner: ConnectionOwner
  readonly #session: ClientHttp2Session
  readonly #scheme: string
  readonly #exchanges = new Map<ClientRequest, H2Exchange>()
  readonly #tunnels = new Set<ClientHttp2Stream>()
  #dead = false
  /** GOAWAY received: no new streams; the session ends once the last one does. */
  #goingAway = false
  #error: Error | null = null
  #idleTimer: NodeJS.Timeout | null = null
  #pingTimer: NodeJS.Timeout | null = null
  /** Sweeps the streams' headers and body timers while any stream is open (see StreamTimer). */
  #sweepTimer: NodeJS.Timeout | null = null
  /** The server's first SETTINGS arrived: whether it allows extended CONNECT is known. */
  #settingsKnown = false
  /** Notices the session stopping silently while a request waits for its head. */
  readonly #probe: StallProbe

  constructor (owner: ConnectionOwner, socket: Duplex, origin: URL) {
    this.#owner = owner
    this.socket = socket
    this.#scheme = origin.protocol === 'https:' ? 'https' : 'http'
    const config = owner.config
    this.#session = http2.connect(origin, {
      createConnection: () => socket,
      peerMaxConcurrentStreams: config.maxConcurrentStreams,
      maxHeaderListPairs: 1_000,
      settings: {
        enablePush: false,
        initialWindowSize: config.initialWindowSize,
        maxHeaderListSize: config.maxHeaderSize
      }
    })
    const session = this.#session
    this.#probe = new StallProbe(session, socket, this)
    session.on('error', this.#onError)
    session.on('goaway', this.#onGoaway)
    session.on('close', this.#onClose)
    session.on('frameError', this.#onFrameError)
    session.on('remoteSettings', this.#onRemoteSettings)
    session.once('connect', () => {
      if (config.connectionWindowSize > 65_535 && !session.destroyed) session.setLocalWindowSize(config.connectionWindowSize)
    })
    if (config.pingInterval > 0) {
      this.#pingTimer = setInterval(this.#ping, config.pingInterval)
      this.#pingTimer.unref()
    }
    this.#startIdle()
  }

  /** Requests in flight. */
  get size (): number { return this.#exchanges.size }

  /** Requests in flight whose dispatch has not ended. */
  get live (): number { return this.#exchanges.size + this.#tunnels.size }

  get dead (): boolean { return this.#dead }

  /** Streams this session can hold at once: ours and the server's limit, whichever is lower. */
  get capacity (): number {
    const remote = this.#session.remoteSettings?.maxConcurrentStreams
    const local = this.#owner.config.maxConcurrentStreams
    return remote === undefined ? local : Math.max(1, Math.min(local, remote))
  }

  canAccept (req: ClientRequest): boolean {
    if (this.#dead || this.#goingAway || this.#session.destroyed || this.#session.closed) return false
    // Whether an upgrade can be an extended CONNECT stream or must go over HTTP/1.1 is known
    // from the server's SETTINGS (RFC 8441 section 3): it waits for them.
    if (req.upgrade !== null && !this.#settingsKnown) return false
    return this.#exchanges.size + this.#tunnels.size < this.capacity
  }

  write (req: ClientRequest): void {
    if (req.upgrade === WEBSOCKET && this.#session.remoteSettings.enableConnectProtocol !== true) {
      this.#owner.onUpgradeFallback(this, req)
      return
    }
    req.runner = this
    const exchange = new H2Exchange(req, this, this.#owner.config)
    this.#exchanges.set(req, exchange)
    this.#active()
    exchange.start(this.#session, this.#scheme)
    if (!this.#dead) this.#probe.start()
  }

  // --- controller calls ---------------------------------------------------------------------

  abortRequest (req: ClientRequest, reason: Error): void {
    const exchange = this.#exchanges.get(req)
    if (exchange !== undefined) exchange.fail(reason)
    else req.fail(reason)
  }

  pauseRequest (req: ClientRequest): void {
    this.#exchanges.get(req)?.pause()
  }

  resumeRequest (req: ClientRequest): void {
    this.#exchanges.get(req)?.resume()
  }

  // --- exchange calls -----------------------------------------------------------------------

  onExchangeDone (exchange: H2Exchange): void {
    if (this.#exchanges.get(exchange.req) !== exchange) return
    this.#exchanges.delete(exchange.req)
    this.#afterStreamEnded()
  }

  onExchangeRefused (exchange: H2Exchange): void {
    const req = exchange.req
    if (this.#exchanges.get(req) !== exchange) return
    this.#exchanges.delete(req)
    req.runner = null
    const giveUp = noteResend(req, exchange.startedAt, RESEND_REFUSED)
    if (giveUp === null) this.#owner.onConnectionRequeue(this, [req])
    else req.fail(giveUp)
    this.#afterStreamEnded()
  }

  onTunnel (stream: ClientHttp2Stream): void {
    this.#tunnels.add(stream)
    this.#active()
    stream.once('close', () => {
      this.#tunnels.delete(stream)
      this.#afterStreamEnded()
    })
  }

  #afterStreamEnded (): void {
    if (this.#dead) return
    if (this.live === 0) {
      if (this.#goingAway) {
        this.#teardown(null)
        return
      }
      this.#startIdle()
    }
    this.#owner.onConnectionReady(this)
  }

  // --- idle and liveness --------------------------------------------------------------------

  get awaitingHead (): boolean {
    for (const exchange of this.#exchanges.values()) if (exchange.awaitingHead) return true
    return false
  }

  onStalled (bytesUnanswered: number): void {
    if (this.#dead) return
    // Nothing new goes to this session while its requests fail.
    this.#goingAway = true
    const stopped = `the HTTP/2 session stopped (a PING went unanswered and nothing was read for ${STALL_WINDOW_MS} ms)`
    const maxHeaderSize = this.#owner.config.maxHeaderSize
    if (bytesUnanswered >= maxHeaderSize) {
      // node:http2 stops a session silently on a header block it cannot take: bytes enough for
      // an oversized head arrived and nothing came of them.
      for (const exchange of [...this.#exchanges.values()]) {
        if (!exchange.awaitingHead) continue
        exchange.fail(new HeadersOverflowError(`response headers from ${exchange.req.origin} exceed maxHeaderSize (${maxHeaderSize} bytes): ${bytesUnanswered} bytes arrived without a response head, then ${stopped}`))
      }
    }
    this.destroy(new SocketError(stopped, socketInfo(this.socket)))
  }

  #active (): void {
    if (this.#sweepTimer === null) {
      this.#sweepTimer = setInterval(this.#sweep, STREAM_SWEEP_MS)
      this.#sweepTimer.unref()
    }
    if (this.#idleTimer !== null) {
      clearTimeout(this.#idleTimer)
      this.#idleTimer = null
    }
    this.#session.ref()
    ;(this.socket as Socket).ref?.()
  }

  #startIdle (): void {
    this.#stopSweep()
    this.#session.unref()
    ;(this.socket as Socket).unref?.()
    const ms = this.#owner.config.keepAliveTimeout
    if (ms <= 0 || this.#idleTimer !== null) return
    this.#idleTimer = setTimeout(this.#onIdle, ms)
    this.#idleTimer.unref()
  }

  #stopSweep (): void {
    if (this.#sweepTimer !== null) clearInterval(this.#sweepTimer)
    this.#sweepTimer = null
  }

  readonly #sweep = (): void => {
    const now = monotonicNow()
    // A timer that fires ends its exchange, which leaves the map: iterating a Map allows that.
    for (const exchange of this.#exchanges.values()) exchange.sweepTimer(now)
  }

  readonly #onIdle = (): void => {
    this.#idleTimer = null
    if (this.live === 0) this.destroy(null)
  }

  readonly #ping = (): void => {
    const session = this.#session
    if (this.#dead || session.destroyed || session.connecting) return
    try {
      session.ping((err) => {
        if (err !== null && !this.#dead) this.destroy(new SocketError(`HTTP/2 PING failed: ${err.message}`, socketInfo(this.socket), { cause: err }))
      })
    } catch {
      // Too many PINGs in flight means the last ones were not answered either: the next tick decides.
    }
  }

  // --- session events -----------------------------------------------------------------------

  readonly #onGoaway = (errorCode: number, lastStreamID: number): void => {
    if (this.#dead) return
    this.#goingAway = true
    // RFC 9113 section 6.8: streams above lastStreamID (and those never sent) were not processed
    // and can be sent again on a new session, whatever their method.
    const requeue: ClientRequest[] = []
    const failing: Array<[H2Exchange, Error]> = []
    const code = rstCodeName(errorCode)
    for (const exchange of this.#exchanges.values()) {
      const id = exchange.streamId
      if (id !== undefined && id <= lastStreamID) continue
      const giveUp = exchange.req.replayable
        ? noteResend(exchange.req, exchange.startedAt, RESEND_GOAWAY, code)
        : goawayError(code, `the server sent GOAWAY (${code}) before processing the request`, socketInfo(this.socket))
      if (giveUp === null) requeue.push(exchange.req)
      else failing.push([exchange, giveUp])
    }
    for (const req of requeue) {
      this.#exchanges.get(req)!.release()
      this.#exchanges.delete(req)
      req.runner = null
    }
    for (const [exchange, err] of failing) exchange.fail(err)
    if (this.#dead) return
    if (this.live === 0) {
      this.#teardown(null, true, requeue)
      return
    }
    this.#owner.onConnectionDraining(this)
    if (requeue.length > 0) this.#owner.onConnectionRequeue(this, requeue)
  }

  readonly #onRemoteSettings = (): void => {
    if (this.#settingsKnown) return
    this.#settingsKnown = true
    if (!this.#dead) this.#owner.onConnectionReady(this)
  }

  readonly #onFrameError = (type: number, code: number, id: number): void => {
    if (id === 0) this.#error ??= new SocketError(`HTTP/2 frame error on the session (frame type ${type}, ${rstCodeName(code)})`, socketInfo(this.socket))
  }

  readonly #onError = (err: Error): void => {
    this.#error ??= new SocketError(`HTTP/2 session error: ${err.message}`, socketInfo(this.socket), { cause: err })
  }

  readonly #onClose = (): void => {
    this.#teardown(this.#error)
  }

  /**
   * Closes the session. With `err`, requests in flight fail with it; without, with a SocketError.
   * Requests the server never saw are given back to the Client when `requeue` allows.
   */
  destroy (err: Error | null, requeue = true): void {
    if (this.#dead) return
    this.#teardown(err, requeue)
  }

  #teardown (err: Error | null, requeue = true, retry: ClientRequest[] = []): void {
    if (this.#dead) return
    this.#dead = true
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer)
    if (this.#pingTimer !== null) clearInterval(this.#pingTimer)
    this.#stopSweep()
    this.#probe.stop()
    const session = this.#session
    session.off('error', this.#onError)
    session.off('goaway', this.#onGoaway)
    session.off('close', this.#onClose)
    session.off('frameError', this.#onFrameError)
    session.off('remoteSettings', this.#onRemoteSettings)
    session.on('error', noop)
    this.socket.on('error', noop)
    const failing: Array<[H2Exchange, Error | null]> = []
    for (const exchange of this.#exchanges.values()) {
      if (requeue && exchange.streamId === undefined && exchange.req.replayable) {
        // Never sent: it may go again, a bounded number of times (a server that drops every
        // session at once would otherwise be reconnected to forever).
        const giveUp = noteResend(exchange.req, exchange.startedAt, RESEND_CLOSED)
        if (giveUp === null) retry.push(exchange.req)
        else failing.push([exchange, giveUp])
      } else {
        failing.push([exchange, null])
      }
    }
    for (const req of retry) {
      this.#exchanges.get(req)?.release()
      req.runner = null
    }
    this.#exchanges.clear()
    const info = socketInfo(this.socket)
    const error = err ?? (failing.length > 0 ? new SocketError('other side closed the HTTP/2 session', info) : null)
    for (const tunnel of this.#tunnels) tunnel.destroy(error ?? undefined)
    this.#tunnels.clear()
    if (!session.destroyed) session.destroy()
    this.socket.destroy()
    this.#owner.onConnectionClosed(this, error, retry)
    for (const [exchange, own] of failing) exchange.fail(own ?? error!)
  }
}
