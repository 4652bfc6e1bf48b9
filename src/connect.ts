/**
 * The connector: opens the net or tls socket a Client talks over, with a connect timeout and
 * TLS session reuse. A connector is any function `(options, callback(err, socket))`, so proxies
 * and tests can supply their own.
 * @module
 */

import * as net from 'node:net'
import * as tls from 'node:tls'
import type { Duplex } from 'node:stream'
import { ConnectTimeoutError, InvalidArgumentError, RequestAbortedError } from './errors.js'
import { describeValue } from './validation/describe-value.js'
import { markSharedReads, sharedReadOption } from './connection/shared-read-buffer.js'
import { timerMilliseconds } from './validation/timer-limit.js'
import { clearTimeout, monotonicNow, nextTick, setTimeout } from './runtime/timers.js'
import { attachConnectTimes, ConnectTimes } from './observability/request-timings.js'

/** Where to connect, as a Client asks its connector. */
export interface ConnectOptions {
  /** Host name or address without brackets, e.g. `127.0.0.1` or `::1`. */
  hostname: string
  /** `host[:port]` as in the URL. */
  host: string
  /** `http:` or `https:`. */
  protocol: string
  /** Port as a string; empty for the scheme's default. */
  port: string
  /** TLS server name (SNI and certificate check), or null to derive it from `hostname`. */
  servername?: string | null | undefined
  /** Local interface to bind to. */
  localAddress?: string | null | undefined
  /** The Client's `socketPath` option, given to a custom connector (a built one has its own). */
  socketPath?: string | null | undefined
  /**
   * Offer h2 by ALPN on this TLS connection (the Client's `allowH2`); overrides the connector's
   * own `allowH2`, so a connector shared by routes (proxy tunnels) follows the Client.
   */
  allowH2?: boolean | undefined
  /** An already connected socket to run TLS over (a proxy tunnel). */
  httpSocket?: Duplex | undefined
  /**
   * Aborted when the Client no longer needs the connection (closed or destroyed with no request
   * waiting for it): a connector stops the attempt and calls back with the signal's reason.
   */
  signal?: AbortSignal | undefined
}

/** Called once with the connected socket or the failure. */
export type ConnectCallback = (err: Error | null, socket: Duplex | null) => void

/** A connector function. */
export type Connector = (options: ConnectOptions, callback: ConnectCallback) => void

/** Options of {@link buildConnector}: TLS options for `https:` plus the fields below. */
export interface BuildOptions extends Omit<tls.ConnectionOptions, 'timeout' | 'host' | 'port' | 'path' | 'socket'>, Pick<net.TcpSocketConnectOpts, 'family' | 'hints' | 'autoSelectFamily' | 'autoSelectFamilyAttemptTimeout' | 'localPort'> {
  /**
   * Milliseconds allowed to establish the connection (TCP and TLS); 0 disables.
   * @defaultValue 10000
   */
  timeout?: number | null | undefined
  /** Connect to this unix domain socket instead of host and port. */
  socketPath?: string | null | undefined
  /**
   * TLS sessions cached for resumption, per server name and port; 0 disables reuse.
   * @defaultValue 100
   */
  maxCachedSessions?: number | null | undefined
  /**
   * Enable TCP keep-alive probes on the socket.
   * @defaultValue true
   */
  keepAlive?: boolean | null | undefined
  /**
   * Delay before the first keep-alive probe, in milliseconds.
   * @defaultValue 60000
   */
  keepAliveInitialDelay?: number | null | undefined
  /**
   * Offer HTTP/2 by ALPN (`h2`, then `http/1.1`) on TLS connections, unless `ALPNProtocols` is
   * given; `false` offers `http/1.1` only.
   * @defaultValue true
   */
  allowH2?: boolean | null | undefined
  /**
   * Mark cleartext connections as HTTP/2 with prior knowledge (h2c), so a Client speaks HTTP/2
   * on them without negotiation.
   * @defaultValue false
   */
  useH2c?: boolean | null | undefined
  /**
   * A TLS session to resume on every connection (from `tlsSocket.getSession()`), before the
   * sessions this connector caches itself.
   */
  session?: Buffer | undefined
}

/** Default milliseconds allowed to connect. */
export const DEFAULT_CONNECT_TIMEOUT = 10_000
/** Default number of TLS sessions kept for resumption. */
export const DEFAULT_MAX_CACHED_SESSIONS = 100
const DEFAULT_KEEP_ALIVE_INITIAL_DELAY = 60_000

/** A small insertion-ordered cache of TLS sessions; the oldest goes first when full. */
class SessionCache {
  readonly #max: number
  /** Made with the first session: a connector that never opens TLS holds no empty map. */
  #sessions: Map<string, Buffer> | null = null

  constructor (max: number) {
    this.#max = max
  }

  get (key: string): Buffer | undefined {
    return this.#sessions?.get(key)
  }

  set (key: string, session: Buffer): void {
    if (this.#max === 0) return
    this.#sessions ??= new Map()
    this.#sessions.delete(key)
    if (this.#sessions.size >= this.#max) {
      const oldest = this.#sessions.keys().next()
      if (oldest.done !== true) this.#sessions.delete(oldest.value)
    }
    this.#sessions.set(key, session)
  }

  delete (key: string): void {
    this.#sessions?.delete(key)
  }
}

/**
 * Builds a connector for net/tls sockets with the given TLS options and timeout.
 * @example
 * const connect = buildConnector({ ca: myCa, timeout: 5000 })
 * const client = new Client('https://localhost:8443', { connect })
 */
export function buildConnector (options: BuildOptions = {}): Connector {
  const { timeout, socketPath, maxCachedSessions, keepAlive, keepAliveInitialDelay, allowH2, useH2c, session: sharedSession, ...tlsOptions } = options
  timerMilliseconds('buildConnector()', 'timeout', timeout, undefined)
  timerMilliseconds('buildConnector()', 'keepAliveInitialDelay', keepAliveInitialDelay, undefined)
  if (maxCachedSessions != null && (!Number.isInteger(maxCachedSessions) || maxCachedSessions < 0)) {
    throw new InvalidArgumentError(`buildConnector(): maxCachedSessions must be a non-negative integer, got ${describeValue(maxCachedSessions)}`)
  }
  if (sharedSession != null && !Buffer.isBuffer(sharedSession)) {
    throw new InvalidArgumentError(`buildConnector(): session must be a Buffer from tlsSocket.getSession(), got ${describeValue(sharedSession)}`)
  }
  const timeoutMs = timeout ?? DEFAULT_CONNECT_TIMEOUT
  const sessions = new SessionCache(maxCachedSessions ?? DEFAULT_MAX_CACHED_SESSIONS)
  const probe = keepAlive ?? true
  const probeDelay = keepAliveInitialDelay ?? DEFAULT_KEEP_ALIVE_INITIAL_DELAY

  return function connect (opts: ConnectOptions, callback: ConnectCallback): void {
    const port = opts.port !== '' ? Number(opts.port) : (opts.protocol === 'https:' ? 443 : 80)
    const hostname = opts.hostname.startsWith('[') ? opts.hostname.slice(1, -1) : opts.hostname
    const times = new ConnectTimes(monotonicNow())
    let socket: net.Socket
    let sessionKey = ''
    if (opts.protocol === 'https:') {
      const servername = opts.servername ?? tlsOptions.servername ?? (net.isIP(hostname) === 0 ? hostname : undefined)
      sessionKey = `${servername ?? hostname}:${port}`
      const session = sharedSession ?? sessions.get(sessionKey)
      const offerH2 = (opts.allowH2 ?? allowH2) !== false
      // Cleartext reads land in the shared buffer when the connection can only speak HTTP/1.1 and
      // has a socket of its own (over a tunnel, tls ignores the option).
      const sharedReads = !offerH2 && opts.httpSocket === undefined && !('onread' in tlsOptions)
      socket = tls.connect({
        ALPNProtocols: offerH2 ? ['h2', 'http/1.1'] : ['http/1.1'],
        ...tlsOptions,
        ...(sharedReads ? { onread: sharedReadOption() } : undefined),
        servername,
        session,
        localAddress: opts.localAddress ?? undefined,
        socket: opts.httpSocket as net.Socket | undefined,
        // Over a tunnel `host` only names the peer for the certificate check, which would
        // otherwise be made against "localhost" when the target is an IP address.
        ...(opts.httpSocket === undefined ? (socketPath != null ? { path: socketPath } : { host: hostname, port }) : { host: hostname })
      } as unknown as tls.ConnectionOptions)
      socket.on('session', (session: Buffer) => sessions.set(sessionKey, session))
      if (sharedReads) markSharedReads(socket)
    } else {
      if (opts.httpSocket !== undefined) {
        nextTick(callback, null, opts.httpSocket)
        return
      }
      // Reads land in the shared buffer; the HTTP/1.1 connection parses them in place. The socket
      // options (family, autoSelectFamily, lookup...) reach net.connect as they reach tls.connect.
      socket = socketPath != null
        ? net.connect({ path: socketPath, onread: sharedReadOption() })
        : net.connect({ ...tlsOptions, host: hostname, port, localAddress: opts.localAddress ?? undefined, onread: sharedReadOption() } as net.TcpNetConnectOpts)
      markSharedReads(socket)
      if (useH2c === true) (socket as net.Socket & { alpnProtocol?: string }).alpnProtocol = 'h2'
    }
    watchSetup(socket, times, opts.protocol === 'https:', opts.httpSocket !== undefined, socketPath == null && net.isIP(hostname) === 0)
    if (probe && opts.httpSocket === undefined) socket.setKeepAlive(true, probeDelay)
    socket.setNoDelay(true)

    let timer: NodeJS.Timeout | null = null
    let done = false
    const signal = opts.signal
    const finish = (err: Error | null): void => {
      if (done) return
      done = true
      if (timer !== null) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      socket.off('error', onError)
      socket.off(opts.protocol === 'https:' ? 'secureConnect' : 'connect', onConnect)
      if (err !== null) {
        if (sessionKey !== '') sessions.delete(sessionKey)
        socket.destroy()
        callback(err, null)
      } else {
        callback(null, socket)
      }
    }
    const onConnect = (): void => finish(null)
    const onError = (err: Error): void => finish(err)
    const onAbort = (): void => finish(abortReason(signal!))
    socket.once(opts.protocol === 'https:' ? 'secureConnect' : 'connect', onConnect)
    socket.on('error', onError)
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        const where = socketPath != null ? socketPath : `${hostname}:${port}`
        finish(new ConnectTimeoutError(`connect timeout: no connection to ${where} after ${timeoutMs} ms`))
      }, timeoutMs)
      timer.unref()
    }
    if (signal != null) {
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    }
  }
}

/**
 * Records when the socket's lookup, TCP connection and TLS handshake happen. Over a tunnel only
 * the handshake is the connector's; the Client counts reaching the proxy as the TCP step.
 * @param tunnelled - TLS runs over a socket already connected (a proxy tunnel)
 * @param lookup - whether the host is a name the socket resolves
 */
function watchSetup (socket: net.Socket, times: ConnectTimes, secure: boolean, tunnelled: boolean, lookup: boolean): void {
  attachConnectTimes(socket, times)
  if (tunnelled) {
    times.tlsStart = times.connectStart
  } else if (lookup) {
    times.dnsStart = times.connectStart
    socket.once('lookup', () => {
      times.dnsEnd = times.tcpStart = monotonicNow()
    })
  } else {
    times.tcpStart = times.connectStart
  }
  if (!tunnelled) {
    socket.once('connect', () => {
      const now = monotonicNow()
      if (times.tcpStart === -1) times.dnsEnd = times.tcpStart = now
      times.tcpEnd = now
      if (secure) times.tlsStart = now
    })
  }
  if (secure) socket.once('secureConnect', () => { times.tlsEnd = monotonicNow() })
}

function abortReason (signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new RequestAbortedError('connection attempt aborted')
}

/** undici's names for the connector's types (`buildConnector.Options`). */
export declare namespace buildConnector {
  /** The options of `buildConnector()`. */
  export type BuildOptions = NonNullable<Parameters<typeof buildConnector>[0]>
  /** What a connector is called with ({@link ConnectOptions}). */
  export type Options = ConnectOptions
  /** {@link ConnectCallback}. */
  export type Callback = ConnectCallback
  /** The arguments a connector calls back with. */
  export type CallbackArgs = Parameters<ConnectCallback>
  /** {@link Connector}. */
  export type connector = Connector
}
