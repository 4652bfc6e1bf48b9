/**
 * Client: requests to one origin over one connection at a time (HTTP/1.1 kept alive and
 * optionally pipelined, or an HTTP/2 session; the protocol table picks which). Pool and Agent
 * are built from Clients.
 * @module
 */

import { DispatcherBase } from './dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { ClientClosedError, ClientDestroyedError, InvalidArgumentError, NotSupportedError, SocketError } from '../errors.js'
import { failDispatch } from '../handlers/fail-dispatch.js'
import { describeValue } from '../validation/describe-value.js'
import { describeUrl } from '../observability/redaction.js'
import { routeKeyOf, routeOf } from './route.js'
import type { DispatchRoute } from './route.js'
import type { Duplex } from 'node:stream'
import { ClientRequest } from '../connection/client-request.js'
import type { RequestRunner, RequestTarget } from '../connection/client-request.js'
import type { ClientConnection, ConnectionOwner, WireProtocolName } from '../connection/client-connection.js'
import { wireProtocolOf } from './wire-protocols.js'
import { resolveClientOptions } from './client-options.js'
import type { ClientConfig, ClientOptions } from './client-options.js'
import { connectOnce, connectOptionsOf } from './connect-options.js'
import { UpgradeFallback } from './upgrade-fallback.js'
import { publishConnectEvent } from '../observability/request-events.js'
import type { ConnectParams } from '../diagnostics.js'
import { installDebugLog } from '../observability/debug-log.js'
import { toUrl } from '../connection/url-like.js'
import type { UrlLike } from '../connection/url-like.js'
import { emitSafely } from '../connection/user-callback.js'
import type { ClientStats } from './stats.js'
import { connectionSetup } from '../observability/request-timings.js'
import type { ConnectTimes } from '../observability/request-timings.js'
import { monotonicNow } from '../runtime/timers.js'
import type * as clientOptions from './client-options.js'
import type * as errorTypes from '../errors.js'

installDebugLog()

/**
 * Parses and checks an origin given as a string, a URL or a URL-like object of parts; only
 * `http:` and `https:` are accepted.
 */
export function parseOrigin (origin: unknown, who: string): URL {
  if (origin !== null && typeof origin === 'object' && !(origin instanceof URL)) {
    origin = toUrl(who, origin as UrlLike)
  }
  let url: URL
  try {
    url = origin instanceof URL ? origin : new URL(String(origin))
  } catch {
    throw new InvalidArgumentError(`${who}: invalid origin ${describeUrl(String(origin))}`)
  }
  if ((typeof origin !== 'string' && !(origin instanceof URL)) || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidArgumentError(`${who}: origin must be an http: or https: URL, got ${describeUrl(String(origin))}`)
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new InvalidArgumentError(`${who}: origin must not have a path, query or fragment, got ${describeUrl(String(origin))}`)
  }
  return url
}

function unroutable (route: DispatchRoute): Error {
  // The route came on the options from outside: its key may be anything.
  const key = typeof route.key === 'string' ? route.key : describeValue(route)
  return new NotSupportedError(`Client: cannot send a request routed as ${key} (an interceptor such as proxy() routes requests through the Agent it is composed on; compose it on an Agent)`)
}

/** What a Client's requests and connections call back into. */
type ClientOwner = RequestRunner & ConnectionOwner
/** Set once by the Client class body, the only place that can reach a Client's private members. */
let newClientOwner: (client: Client, config: ClientConfig) => ClientOwner

/** A config its pool resolved already, on its way into the Client being constructed (see {@link clientWithConfig}). */
let handedConfig: ClientConfig | null = null

/**
 * A Client built on a config its pool resolved once: the connections of one pool share one
 * config and one connector (and so one TLS session cache), rather than each resolving the same
 * options again and keeping its own copies for as long as it lives.
 */
export function clientWithConfig (origin: URL, config: ClientConfig): Client {
  handedConfig = config
  try {
    return new Client(origin)
  } finally {
    handedConfig = null
  }
}

/**
 * A dispatcher for one origin.
 * @example
 * const client = new Client('http://127.0.0.1:3000', { pipelining: 4 })
 * const { body } = await client.request({ path: '/', method: 'GET' })
 * console.log(await body.text())
 * await client.close()
 */
export class Client extends DispatcherBase {
  readonly #config: ClientConfig
  /** What requests and connections call back into; kept off the public surface. */
  readonly #owner: RequestRunner & ConnectionOwner
  readonly #url: URL
  readonly #origin: string
  /** What every request of this client shares. */
  readonly #target: RequestTarget
  readonly #connectParams: ConnectParams
  #queue: ClientRequest[] = []
  #conn: ClientConnection | null = null
  /** How the current connection was set up, until its first request takes it (then null: later ones reuse it). */
  #setup: ConnectTimes | null = null
  /** When the connection attempt under way began. */
  #connectStartedAt = 0
  /**
   * Connections that take no new requests but still finish some (HTTP/2 after GOAWAY); made with
   * the first one, so that the many clients that never see a GOAWAY hold no empty set.
   */
  #draining: Set<ClientConnection> | null = null
  /** The protocol of the last connection, null before the first one. */
  #protocol: WireProtocolName | null = null
  #connecting = false
  /** Cancels the connection attempt under way (null when none is). */
  #connectAbort: AbortController | null = null
  /** The caller tag of the request the connection being opened is for, passed on to diagnostics. */
  #connectCaller: string | null = null
  #needDrain = false
  #resuming = false
  #resumeAgain = false
  #closeWaiters: Array<() => void> = []
  /** HTTP/1.1 connections for upgrades the HTTP/2 session cannot carry; made with the first such upgrade. */
  #upgrades: UpgradeFallback | null = null
  /** The route this client's connections follow (set by the Agent that built it), if any. */
  readonly #routeKey: string | undefined

  static {
    // One small object per client whose methods reach the client's private state, rather than a
    // closure per callback: every connection of a pool has a Client, and it lives as long.
    class Owner implements ClientOwner {
      readonly #client: Client
      readonly config: ClientConfig
      constructor (client: Client, config: ClientConfig) {
        this.#client = client
        this.config = config
      }

      abortRequest (req: ClientRequest, reason: Error): void { this.#client.#abortQueued(req, reason) }
      pauseRequest (): void {}
      resumeRequest (): void {}
      onConnectionReady (): void { this.#client.#resume() }
      onConnectionClosed (conn: ClientConnection, err: Error | null, requeue: ClientRequest[]): void { this.#client.#onConnectionClosed(conn, err, requeue) }
      onConnectionDraining (conn: ClientConnection): void { this.#client.#onConnectionDraining(conn) }
      onConnectionRequeue (_conn: ClientConnection, requeue: ClientRequest[]): void { this.#client.#requeue(requeue) }
      onUpgradeFallback (_conn: ClientConnection, req: ClientRequest): void { this.#client.#upgradeFallback(req) }
    }
    newClientOwner = (client, config) => new Owner(client, config)
  }

  /**
   * @param origin - `http://host:port` or `https://host:port`, as a string, URL or URL-like object
   * @param options - see {@link ClientOptions}
   */
  constructor (origin: string | URL | UrlLike, options?: ClientOptions) {
    super()
    this.#url = parseOrigin(origin, 'Client')
    const config = handedConfig ?? resolveClientOptions(options)
    handedConfig = null
    this.#config = config
    this.#routeKey = routeKeyOf(config.connector)
    this.#owner = newClientOwner(this, config)
    this.#origin = this.#url.origin
    this.#target = {
      runner: this.#owner,
      origin: this.#origin,
      hostHeader: this.#url.host,
      defaults: config,
      startContext: config.maxResponseSize === -1 ? undefined : Object.freeze({ maxResponseSize: config.maxResponseSize })
    }
    this.#connectParams = {
      host: this.#url.host,
      hostname: this.#url.hostname,
      protocol: this.#url.protocol,
      port: this.#url.port,
      servername: null,
      // Known in advance only for h2c; with allowH2 the server picks by ALPN during the handshake.
      version: config.h2c && this.#url.protocol === 'http:' ? 'h2' : 'h1',
      localAddress: config.localAddress
    }
  }

  /** Requests in flight per connection: the pipelining depth, or the concurrent streams of an HTTP/2 session. */
  get pipelining (): number { return this.#conn?.capacity ?? this.#config.pipelining }
  /**
   * The protocol spoken: `'h1'` or `'h2'` (negotiated by ALPN with `allowH2`, or `h2c`); null
   * before the first connection.
   */
  get protocol (): 'h1' | 'h2' | null { return this.#protocol }
  /** Requests waiting to be written. */
  get pending (): number { return this.#queue.length }
  /** Requests written and waiting for their response to complete. */
  get running (): number {
    let n = this.#conn?.size ?? 0
    // Checked before iterating: `busy` reads this once or twice per request, and an iterator
    // over the (nearly always empty) set would be garbage each time.
    if (this.#draining !== null && this.#draining.size > 0) for (const conn of this.#draining) n += conn.size
    return n
  }
  /** Requests pending or running. */
  get size (): number { return this.#queue.length + this.running }
  /** True while a connection is open. */
  get connected (): boolean { return this.#conn !== null }
  /** True when more requests would only wait in the queue; `dispatch` then returns false. */
  get busy (): boolean { return this.size >= this.pipelining || this.#queue.length > 0 }
  /** Load figures, as undici's `ClientStats` reports them. */
  get stats (): ClientStats { return { connected: this.connected, pending: this.pending, running: this.running, size: this.size } }
  /** This dispatcher's origin, which requests without one go to. */
  override get defaultOrigin (): string {
    return this.#origin
  }

  protected override acceptDispatch (opts: DispatchOptions, h: DispatchHandler): boolean {
    // A routed request (a proxy tunnel) that reached a client of another route, or of none, would
    // go straight to this client's origin: refused rather than sent around the proxy.
    const route = routeOf(opts)
    if (route != null && route.key !== this.#routeKey) return failDispatch(h, unroutable(route))
    const req = new ClientRequest(this.#target, opts, h)
    if (req.start()) {
      this.#queue.push(req)
      this.#resume()
    }
    if (this.busy) this.#needDrain = true
    return !this.#needDrain
  }

  // --- callbacks from requests in the queue and from the connection -------------------------

  #abortQueued (req: ClientRequest, reason: Error): void {
    const i = this.#queue.indexOf(req)
    if (i !== -1) this.#queue.splice(i, 1)
    req.fail(reason)
    this.#resume()
  }

  #onConnectionClosed (conn: ClientConnection, err: Error | null, requeue: ClientRequest[]): void {
    if (this.#draining?.delete(conn) === true) {
      this.#requeue(requeue)
      return
    }
    if (this.#conn !== conn) return
    this.#conn = null
    // A connection the client itself ends on close() is reported as undici reports it.
    emitSafely(this, 'disconnect', this.#url, [this], err ?? (this.closed ? new ClientDestroyedError() : new SocketError('closed')))
    this.#requeue(requeue)
  }

  #onConnectionDraining (conn: ClientConnection): void {
    if (this.#conn !== conn) return
    this.#conn = null
    this.#draining ??= new Set()
    this.#draining.add(conn)
    this.#resume()
  }

  /** Puts requests a connection could not send back at the head of the queue. */
  /** An upgrade the HTTP/2 session cannot carry goes over HTTP/1.1 connections made with the first one. */
  #upgradeFallback (req: ClientRequest): void {
    this.#upgrades ??= new UpgradeFallback(this.#config, this.#url, this.#connectParams, () => this.#resume())
    this.#upgrades.send(req)
  }

  #requeue (requests: ClientRequest[]): void {
    for (const req of requests) req.runner = this.#owner
    if (requests.length > 0) this.#queue.unshift(...requests)
    this.#resume()
  }

  // --- scheduling ---------------------------------------------------------------------------

  #resume (): void {
    if (this.#resuming) {
      this.#resumeAgain = true
      return
    }
    this.#resuming = true
    try {
      do {
        this.#resumeAgain = false
        this.#drainQueue()
      } while (this.#resumeAgain)
    } finally {
      this.#resuming = false
    }
    if (this.#needDrain && !this.busy) {
      this.#needDrain = false
      if (this.listenerCount('drain') > 0) emitSafely(this, 'drain', this.#url, [this])
    }
    if (this.closed && this.#queue.length === 0 && (this.#conn === null || this.#conn.live === 0) && (this.#draining === null || this.#draining.size === 0) && (this.#upgrades === null || this.#upgrades.size === 0)) {
      // A connection still being set up serves nobody once the client closed with nothing
      // left to send: waiting for it could take the whole connect timeout. Nor does the
      // answer to an aborted pipelined request, which only kept the connection's framing.
      if (this.#connecting) this.#abortConnect(new ClientClosedError())
      this.#finishClose()
    }
  }

  /** Gives up the connection attempt under way; a socket it still produces is destroyed. */
  #abortConnect (reason: Error): void {
    const abort = this.#connectAbort
    this.#connectAbort = null
    this.#connecting = false
    abort?.abort(reason)
  }

  #drainQueue (): void {
    const queue = this.#queue
    while (queue.length > 0) {
      const req = queue[0]!
      if (req.completed) {
        queue.shift()
        continue
      }
      const conn = this.#conn
      if (conn === null) {
        if (!this.#connecting && !this.destroyed) this.#connect()
        return
      }
      if (!conn.canAccept(req)) return
      queue.shift()
      req.assigned(this.#setup)
      this.#setup = null
      conn.write(req)
    }
  }

  #connect (): void {
    this.#connecting = true
    this.#connectStartedAt = monotonicNow()
    this.#connectCaller = this.#queue[0]?.callerTag ?? null
    const params = this.#connectParams
    const connector = this.#config.connector
    publishConnectEvent('beforeConnect', () => ({ connectParams: params, connector, caller: this.#connectCaller }))
    const abort = new AbortController()
    this.#connectAbort = abort
    // A request resolved to an address (the dns interceptor) names the host the certificate is for.
    const options = connectOptionsOf(params, this.#config, this.#queue[0]?.servername ?? null, abort.signal, this.#config.allowH2)
    connectOnce(connector, options, (err, socket) => {
      this.#connectAbort = null
      this.#onConnected(err, socket)
    })
  }

  #onConnected (err: Error | null, socket: Duplex | null): void {
    this.#connecting = false
    if (this.destroyed) {
      socket?.destroy()
      this.#resume()
      return
    }
    if (err !== null || socket === null) {
      const error = err ?? new SocketError('connector returned no socket')
      publishConnectEvent('connectError', () => ({ connectParams: this.#connectParams, connector: this.#config.connector, error, caller: this.#connectCaller }))
      // Nothing was sent, so every waiting request fails with the connect error itself
      // (ECONNREFUSED, ConnectTimeoutError, ...): retry logic matches on these codes.
      const failed = this.#queue.splice(0)
      emitSafely(this, 'connectionError', this.#url, [this], error)
      for (const req of failed) req.fail(error)
      this.#resume()
      return
    }
    this.#setup = connectionSetup(socket, this.#connectStartedAt)
    const protocol = wireProtocolOf(socket, this.#config, this.#url)
    this.#protocol = protocol.name
    this.#conn = protocol.open(this.#owner, socket, this.#url)
    publishConnectEvent('connected', () => ({
      connectParams: protocol.name === this.#connectParams.version ? this.#connectParams : { ...this.#connectParams, version: protocol.name },
      connector: this.#config.connector,
      socket,
      caller: this.#connectCaller
    }))
    emitSafely(this, 'connect', this.#url, [this])
    this.#resume()
  }

  // --- close / destroy ----------------------------------------------------------------------

  #finishClose (): void {
    const conn = this.#conn
    if (conn !== null) conn.destroy(null, false)
    const waiters = this.#closeWaiters
    this.#closeWaiters = []
    for (const resolve of waiters) resolve()
  }

  protected override closeGracefully (): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#closeWaiters.push(resolve)
      this.#resume()
    })
  }

  protected override destroyNow (error: Error): Promise<void> {
    if (this.#connecting) this.#abortConnect(error)
    const queued = this.#queue.splice(0)
    for (const req of queued) req.fail(error)
    const conn = this.#conn
    if (conn !== null) conn.destroy(error, false)
    if (this.#draining !== null) for (const draining of [...this.#draining]) draining.destroy(error, false)
    this.#upgrades?.destroy(error)
    this.#finishClose()
    return Promise.resolve()
  }
}

/** undici's names for the Client's types (`Client.Options`). */
export declare namespace Client {
  /** {@link clientOptions.ClientOptions}. */
  export type Options = clientOptions.ClientOptions
  /** {@link clientOptions.H2Options}. */
  export type H2Options = clientOptions.H2Options
  /** What a `SocketError` tells of its socket ({@link errorTypes.SocketInfo}). */
  export type SocketInfo = errorTypes.SocketInfo
}
