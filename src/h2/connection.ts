/**
 * One HTTP/2 session of a Client, on conduit's own engine ({@link H2Session}: framing, flow
 * control and limits; HPACK through {@link HpackCodec}) over the socket the connection layer
 * hands over (TLS after ALPN h2, h2c by prior knowledge, or a tunnel through a proxy): many
 * requests at once, one stream each ({@link H2Exchange}), up to the smaller of
 * `maxConcurrentStreams` and the server's own limit. The session keeps itself alive with PINGs;
 * this closes it when idle, and on GOAWAY gives the requests the server never processed back to
 * the Client.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import { SocketError } from '../errors.js'
import type { ClientRequest, RequestRunner } from '../connection/client-request.js'
import type { ClientConnection, ConnectionOwner } from '../connection/client-connection.js'
import type { ConnectionConfig } from '../connection/connection-config.js'
import { socketInfo } from '../connection/socket-info.js'
import { H2Session } from './framing/session.js'
import type { SessionListener } from './framing/session.js'
import type { H2SessionInit } from './framing/session-options.js'
import type { H2ProtocolError } from './framing/protocol-error.js'
import { HpackCodec } from './hpack-codec.js'
import { H2Exchange } from './exchange.js'
import type { ExchangeOwner } from './exchange.js'
import type { H2Tunnel } from './tunnel-stream.js'
import { describeStreamReset, rstCodeName } from './error-codes.js'
import { goawayError, noteResend, RESEND_CLOSED, RESEND_GOAWAY, RESEND_REFUSED } from './resend-budget.js'
import { STREAM_SWEEP_MS } from './stream-timer.js'
import { WEBSOCKET } from './request-headers.js'
import { clearInterval, clearTimeout, monotonicNow, queueMicrotask, setInterval, setTimeout } from '../runtime/timers.js'

/** The session options a Client's settings map onto; the rest keep the session's defaults. */
function sessionInit (config: ConnectionConfig): H2SessionInit {
  return {
    maxHeaderListSize: config.maxHeaderSize,
    initialWindowSize: config.initialWindowSize,
    connectionWindowSize: config.connectionWindowSize,
    pingInterval: config.pingInterval
  }
}

/** An open HTTP/2 session. */
export class H2Connection implements ClientConnection, RequestRunner, ExchangeOwner {
  readonly protocol = 'h2'
  readonly socket: Duplex
  readonly #owner: ConnectionOwner
  readonly #session: H2Session
  readonly #scheme: string
  readonly #exchanges = new Map<ClientRequest, H2Exchange>()
  /** Exchanges accepted while the server's SETTINGS lowered its stream limit: they wait for a stream. */
  readonly #waiting: H2Exchange[] = []
  readonly #tunnels = new Set<H2Tunnel>()
  #dead = false
  /** GOAWAY received: no new streams; the session ends once the last one does. */
  #goingAway = false
  /** Requests a GOAWAY left unprocessed that may go again, collected until its listener call. */
  #goawayRequeue: ClientRequest[] = []
  #idleTimer: NodeJS.Timeout | null = null
  /** Sweeps the streams' headers and body timers while any stream is open (see StreamTimer). */
  #sweepTimer: NodeJS.Timeout | null = null

  constructor (owner: ConnectionOwner, socket: Duplex, origin: URL) {
    this.#owner = owner
    this.socket = socket
    this.#scheme = origin.protocol === 'https:' ? 'https' : 'http'
    const config = owner.config
    const listener: SessionListener = {
      onRemoteSettings: () => { this.#onRemoteSettings() },
      onGoaway: (errorCode) => { this.#onGoaway(errorCode) },
      onClose: (error) => { this.#teardown(error) }
    }
    this.#session = new H2Session(socket, new HpackCodec(config.maxHeaderSize), listener, sessionInit(config))
    this.#startIdle()
  }

  /** Requests in flight. */
  get size (): number { return this.#exchanges.size }

  /** Requests in flight whose dispatch has not ended. */
  get live (): number { return this.#exchanges.size + this.#tunnels.size }

  get dead (): boolean { return this.#dead }

  /** Streams this session can hold at once: ours and the server's limit, whichever is lower. */
  get capacity (): number {
    const remote = this.#session.remoteSettings.maxConcurrentStreams
    return Math.max(1, Math.min(this.#owner.config.maxConcurrentStreams, remote))
  }

  canAccept (req: ClientRequest): boolean {
    if (this.#dead || this.#goingAway || this.#session.closed) return false
    // Whether an upgrade can be an extended CONNECT stream or must go over HTTP/1.1 is known
    // from the server's SETTINGS (RFC 8441 section 3): it waits for them.
    if (req.upgrade !== null && !this.#session.remoteSettings.received) return false
    return this.live < this.capacity
  }

  write (req: ClientRequest): void {
    if (req.upgrade === WEBSOCKET && !this.#session.remoteSettings.enableConnectProtocol) {
      this.#owner.onUpgradeFallback(this, req)
      return
    }
    req.runner = this
    const exchange = new H2Exchange(req, this, this.#owner.config)
    this.#exchanges.set(req, exchange)
    this.#active()
    if (this.#waiting.length === 0 && this.#session.canOpenStream) {
      exchange.start(this.#session, this.#scheme)
      return
    }
    this.#waiting.push(exchange)
    this.#scheduleWaiting()
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

  onExchangeNotProcessed (exchange: H2Exchange, error: H2ProtocolError): void {
    const req = exchange.req
    if (this.#exchanges.get(req) !== exchange) return
    this.#exchanges.delete(req)
    const last = this.#session.goawayLastStreamId
    if (last !== -1 && (exchange.streamId ?? 0) > last) {
      // Collected for the GOAWAY's own call, which comes next and hands them over at once.
      const giveUp = this.#goawayGiveUp(exchange, error.errorCode)
      if (giveUp === null) {
        req.runner = null
        this.#goawayRequeue.push(req)
      } else {
        req.fail(giveUp)
      }
      return
    }
    const giveUp = req.replayable
      ? noteResend(req, exchange.startedAt, RESEND_REFUSED)
      : new SocketError(describeStreamReset(error.errorCode), null, { cause: error })
    if (giveUp === null) {
      req.runner = null
      this.#owner.onConnectionRequeue(this, [req])
    } else {
      req.fail(giveUp)
    }
    this.#afterStreamEnded()
  }

  onTunnel (tunnel: H2Tunnel): void {
    this.#tunnels.add(tunnel)
    this.#active()
    tunnel.once('close', () => {
      this.#tunnels.delete(tunnel)
      this.#afterStreamEnded()
    })
  }

  #afterStreamEnded (): void {
    if (this.#dead) return
    this.#scheduleWaiting()
    if (this.live === 0) {
      if (this.#goingAway) {
        this.#teardown(null)
        return
      }
      this.#startIdle()
    }
    this.#owner.onConnectionReady(this)
  }

  /**
   * Opens streams for waiting exchanges once the current session event is over: a stream whose
   * response just ended is still counted by the session until its listener calls return.
   */
  #scheduleWaiting (): void {
    if (this.#waitingScheduled || this.#waiting.length === 0) return
    this.#waitingScheduled = true
    queueMicrotask(this.#startWaitingLater)
  }

  #waitingScheduled = false

  readonly #startWaitingLater = (): void => {
    this.#waitingScheduled = false
    this.#startWaiting()
  }

  /** Opens streams for the exchanges that waited for the server's limit, as far as it allows now. */
  #startWaiting (): void {
    while (this.#waiting.length > 0 && this.#session.canOpenStream && !this.#dead) {
      const exchange = this.#waiting.shift()!
      if (this.#exchanges.get(exchange.req) === exchange) exchange.start(this.#session, this.#scheme)
    }
  }

  // --- idle ---------------------------------------------------------------------------------

  #active (): void {
    if (this.#sweepTimer === null) {
      this.#sweepTimer = setInterval(this.#sweep, STREAM_SWEEP_MS)
      this.#sweepTimer.unref()
    }
    if (this.#idleTimer !== null) {
      clearTimeout(this.#idleTimer)
      this.#idleTimer = null
    }
    ;(this.socket as Socket).ref?.()
  }

  #startIdle (): void {
    this.#stopSweep()
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

  // --- session events -----------------------------------------------------------------------

  /** Why a request a GOAWAY left unprocessed cannot go again, or null when it may. */
  #goawayGiveUp (exchange: H2Exchange, errorCode: number): Error | null {
    const code = rstCodeName(errorCode)
    return exchange.req.replayable
      ? noteResend(exchange.req, exchange.startedAt, RESEND_GOAWAY, code)
      : goawayError(code, `the server sent GOAWAY (${code}) before processing the request`, socketInfo(this.socket))
  }

  #onGoaway (errorCode: number): void {
    if (this.#dead) return
    this.#goingAway = true
    // The session closed the streams the server did not process before saying so here; those
    // still waiting for a stream were never sent at all (RFC 9113 section 6.8).
    const requeue = this.#goawayRequeue
    this.#goawayRequeue = []
    for (const exchange of this.#waiting.splice(0)) {
      const req = exchange.req
      if (this.#exchanges.get(req) !== exchange) continue
      this.#exchanges.delete(req)
      exchange.release()
      const giveUp = this.#goawayGiveUp(exchange, errorCode)
      if (giveUp === null) {
        req.runner = null
        requeue.push(req)
      } else {
        req.fail(giveUp)
      }
    }
    if (this.#dead) return
    if (this.live === 0) {
      this.#teardown(null, true, requeue)
      return
    }
    this.#owner.onConnectionDraining(this)
    if (requeue.length > 0) this.#owner.onConnectionRequeue(this, requeue)
  }

  #onRemoteSettings (): void {
    if (this.#dead) return
    this.#startWaiting()
    this.#owner.onConnectionReady(this)
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
    // A GOAWAY that closed the session's last stream ends it before its own call comes: the
    // requests it left unprocessed go again from here.
    for (const req of this.#goawayRequeue.splice(0)) retry.push(req)
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer)
    this.#stopSweep()
    this.#waiting.length = 0
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
    // GOAWAY NO_ERROR: the client chose to close; a protocol error already sent its own code.
    this.#session.destroy(null)
    if (err !== null) this.socket.destroy()
    this.socket.on('error', noop)
    this.#owner.onConnectionClosed(this, error, retry)
    for (const [exchange, own] of failing) exchange.fail(own ?? error!)
  }
}

function noop (): void {}
