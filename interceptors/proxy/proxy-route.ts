/**
 * One proxy, and how requests reach their targets through it. The connections to targets
 * (tunnels) belong to the Agent the interceptor is composed on: a request names a route (this
 * proxy and its target) and the Agent keeps a pool per route, with its own options, asking the
 * route to open each tunnel. Absolute-form requests go to the proxy's origin through the same
 * Agent. Only the `CONNECT` exchanges that open tunnels, and a `clientFactory` of your own, use
 * a client this route owns.
 * @module
 */

import type { EventEmitter } from 'node:events'
import type { Duplex } from 'node:stream'
import { buildConnector, copyOptions, Pool, ConnectTimeoutError, InvalidArgumentError, describeValue, redactHeaders, sensitiveHeaderNames, REDACTED, runtimeTimers } from '../../src/handler.js'
import type { CarriesRoute, ConnectCallback, ConnectOptions, Connector, AgentOptions, Dispatcher, DirectConnection, DispatchRoute, Dispatch, DispatchHandler, DispatchOptions, DispatchTarget } from '../../src/handler.js'
import { AbsoluteFormHandler, absoluteFormOptions } from './absolute-form.js'
import { defaultPort } from './proxy-options.js'
import type { ResolvedProxy } from './proxy-options.js'
import { publishTunnel } from './proxy-log.js'
import type { ProxyConnectParams } from './proxy-log.js'
import { openSocksTunnel } from './socks.js'
import { authority } from './tunnel-target.js'
import type { TunnelTarget } from './tunnel-target.js'

/** What a `clientFactory` returns: something that dispatches; events, close and destroy when it has them. */
type ProxyClient = DispatchTarget & Partial<Pick<Dispatcher, 'on' | 'close' | 'destroy'>>
import { connectHeaders, openConnectTunnel } from './tunnel.js'

/** Dispatcher events forwarded to whoever owns the proxy interceptor (a preset re-emits them). */
export const FORWARDED_EVENTS = ['drain', 'connect', 'disconnect', 'connectionError'] as const

/** A copy of `opts` sent over `route` (the Agent below keeps a pool per route). */
function routed (opts: DispatchOptions, route: DispatchRoute): DispatchOptions & CarriesRoute {
  const copy: DispatchOptions & CarriesRoute = copyOptions(opts)
  copy.route = route
  return copy
}

/** Routes requests through one proxy. */
export class ProxyRoute {
  /** The proxy this route uses. */
  readonly proxy: ResolvedProxy
  readonly #keepAlive: boolean
  readonly #events: EventEmitter
  readonly #tunnels = new Map<string, DispatchRoute>()
  #toProxy: DispatchRoute | null = null
  #client: ProxyClient | null = null
  #tls: Connector | null = null

  constructor (proxy: ResolvedProxy, agentOptions: AgentOptions, events: EventEmitter) {
    this.proxy = proxy
    this.#keepAlive = agentOptions.connections !== 0
    this.#events = events
    // undici asks a clientFactory for its proxy client when the agent is built, and callers rely
    // on that moment (a spy, a client set up before the first request); SOCKS proxies need none.
    if (proxy.clientFactory !== undefined && proxy.socks === null) this.#proxyClient(agentOptions.connectTimeout)
  }

  /**
   * True when a request goes through a tunnel rather than as an absolute-form request: SOCKS
   * proxies, `https:` targets, `proxyTunnel`, and protocol upgrades (proxies do not reliably
   * forward `Upgrade` on absolute-form requests, so WebSocket handshakes get a tunnel of their own).
   */
  tunnels (target: URL, request: DispatchOptions): boolean {
    return this.proxy.socks !== null || target.protocol === 'https:' || this.proxy.proxyTunnel || Boolean(request.upgrade)
  }

  /** How requests to `target` travel, for the debug log (the proxy by its label, never with credentials). */
  describe (target: URL, port: number, request: DispatchOptions): string {
    const socks = this.proxy.socks
    if (!this.tunnels(target, request)) return `via ${this.proxy.label}, absolute-form`
    return `via ${this.proxy.label}, ${socks === null ? 'CONNECT' : `SOCKS${socks.version}`} tunnel to ${authority({ hostname: target.hostname, port })}`
  }

  /**
   * Sends one request to `target` through the proxy, over `next` (the dispatch below the
   * interceptor, ending at the Agent that owns the connections); `headers` carry `host`.
   */
  dispatch (next: Dispatch, opts: DispatchOptions, handler: DispatchHandler, target: URL, targetOrigin: string, headers: Record<string, string | string[]>): boolean {
    if (this.tunnels(target, opts)) {
      const tunnelled: DispatchOptions & CarriesRoute = routed(opts, this.#tunnelRoute(targetOrigin))
      tunnelled.headers = headers
      return next(tunnelled, handler)
    }
    const options = absoluteFormOptions(opts, targetOrigin, headers, this.proxy)
    const absolute = new AbsoluteFormHandler(handler, this.proxy, `${opts.method} ${options.path}`)
    if (this.proxy.clientFactory !== undefined) return this.#proxyClient().dispatch(options, absolute)
    return next(routed(options, this.#proxyRoute()), absolute)
  }

  /** Waits for the tunnel handshakes in flight, then closes the connections this route owns. */
  async close (): Promise<void> {
    if (typeof this.#client?.close === 'function') await this.#client.close()
  }

  /** Fails the tunnel handshakes in flight with `err` and closes at once. */
  async destroy (err: Error | null): Promise<void> {
    if (typeof this.#client?.destroy === 'function') await this.#client.destroy(err)
  }

  // A factory may return any object that dispatches (undici takes one that is no EventEmitter):
  // its events are relayed when it has them.
  #relayEvents (dispatcher: ProxyClient): ProxyClient {
    if (dispatcher === null || typeof dispatcher !== 'object' || typeof dispatcher.dispatch !== 'function') {
      throw new InvalidArgumentError(`ProxyAgent: clientFactory must return a dispatcher (an object with dispatch()), got ${describeValue(dispatcher)}`)
    }
    if (typeof dispatcher.on !== 'function') return dispatcher
    for (const event of FORWARDED_EVENTS) {
      dispatcher.on(event, (...args: unknown[]) => this.#events.emit(event, ...args))
    }
    return dispatcher
  }

  // The factory gets what undici's gets: the proxy URL (credentials left out: they travel in
  // proxy-authorization) and a connector to the proxy, bounded by connectTimeout, TLS per proxyTls.
  #proxyClient (connectTimeout?: number): ProxyClient {
    if (this.#client === null) {
      const connect = buildConnector({ timeout: connectTimeout, ...this.proxy.proxyTls })
      const factory = this.proxy.clientFactory ?? ((origin: URL, opts: { connect: Connector }) => new Pool(origin, opts))
      this.#client = this.#relayEvents(factory(new URL(this.proxy.url.href), { connect }))
    }
    return this.#client
  }

  /** The route of absolute-form requests: the Agent's pool for the proxy, TLS to it per `proxyTls`. */
  #proxyRoute (): DispatchRoute {
    if (this.#toProxy === null) {
      const proxyTls = this.proxy.proxyTls
      let own: Connector | null = null
      this.#toProxy = {
        key: `proxy ${this.proxy.url.href}`,
        origin: this.proxy.origin,
        connect: (options, callback, direct) => {
          if (proxyTls === undefined) return direct.connector(options, callback)
          own ??= buildConnector({ ...proxyTls, timeout: direct.timeoutMs })
          own(options, callback)
        }
      }
    }
    return this.#toProxy
  }

  /** The route of tunnelled requests to one target origin. */
  #tunnelRoute (targetOrigin: string): DispatchRoute {
    let route = this.#tunnels.get(targetOrigin)
    if (route === undefined) {
      route = {
        key: `tunnel ${this.proxy.url.href} ${targetOrigin}`,
        origin: targetOrigin,
        connect: (options, callback, direct) => this.#connect(options, callback, direct)
      }
      this.#tunnels.set(targetOrigin, route)
    }
    return route
  }

  #connect (request: ConnectOptions, callback: ConnectCallback, direct: DirectConnection): void {
    const port = Number(request.port) || defaultPort(request.protocol)
    const target: TunnelTarget = { hostname: request.hostname, port }
    const socks = this.proxy.socks
    const timeoutMs = direct.timeoutMs
    let settled = false
    let timer: NodeJS.Timeout | null = null
    const finish = (err: Error | null, socket: Duplex | null): void => {
      if (settled) {
        socket?.destroy()
        return
      }
      settled = true
      if (timer !== null) runtimeTimers.clearTimeout(timer)
      request.signal?.removeEventListener('abort', onAbort)
      callback(err, socket)
    }
    const opened = (err: Error | null, socket?: Duplex): void => {
      if (settled || err !== null || socket === undefined) {
        finish(err ?? new Error('tunnel produced no socket'), socket ?? null)
        return
      }
      publishTunnel({
        socket,
        proxy: this.proxy.label,
        target: authority(target),
        via: socks === null ? 'connect' : socks.version === 4 ? 'socks4' : 'socks5',
        connectParams: this.#connectParams(target)
      })
      if (request.protocol !== 'https:') {
        finish(null, socket)
        return
      }
      // TLS to the target runs over the tunnel: the Agent's TLS options, or requestTls when given.
      const servername = this.proxy.requestTls?.servername ?? request.servername
      const tls = this.proxy.requestTls === undefined ? direct.connector : this.#targetConnector()
      tls({ ...request, servername, httpSocket: socket }, finish)
    }
    let cancel: ((reason: Error) => void) | null = null
    // A custom connector gets no deadline from the transport, so the whole tunnel setup has one here.
    if (timeoutMs > 0) {
      timer = runtimeTimers.setTimeout(() => {
        const err = new ConnectTimeoutError(`connect timeout: no tunnel to ${authority(target)} through proxy ${this.proxy.label} after ${timeoutMs} ms`)
        cancel?.(err)
        finish(err, null)
      }, timeoutMs)
      timer.unref()
    }
    // The client gave up on this connection (closed or destroyed with nothing waiting for it).
    const onAbort = (): void => {
      const reason = request.signal!.reason as Error
      cancel?.(reason)
      finish(reason, null)
    }
    if (request.signal != null) {
      if (request.signal.aborted) {
        finish(request.signal.reason as Error, null)
        return
      }
      request.signal.addEventListener('abort', onAbort, { once: true })
    }
    if (socks !== null) {
      openSocksTunnel(this.proxy, target, timeoutMs, opened)
    } else {
      // CONNECT goes to the proxy through the Agent (its pool for the proxy), unless a
      // clientFactory of your own talks to the proxy.
      const toProxy: DispatchTarget = this.proxy.clientFactory === undefined
        ? { dispatch: (o, h) => direct.dispatch(routed(o, this.#proxyRoute()), h) }
        : this.#proxyClient()
      cancel = openConnectTunnel(toProxy, this.proxy, target, { keepAlive: this.#keepAlive, timeoutMs }, opened)
    }
  }

  /** What a tunnel to `target` is asked with, proxy header values redacted (for the diagnostics message). */
  #connectParams (target: TunnelTarget): ProxyConnectParams {
    const path = authority(target)
    const sent = this.proxy.socks === null ? connectHeaders(this.proxy, path, this.#keepAlive) : {}
    // The proxy headers are the caller's (credentials, API keys): their names are shown, not their values.
    const headers = redactHeaders(sent, sensitiveHeaderNames(Object.keys(this.proxy.headers))) as Record<string, string>
    const servername = this.proxy.url.protocol === 'https:' ? (this.proxy.proxyTls?.servername ?? this.proxy.url.hostname) : null
    return { origin: this.proxy.origin, port: this.proxy.port, path, headers, servername }
  }

  #targetConnector (): Connector {
    this.#tls ??= buildConnector({ ...this.proxy.requestTls })
    return this.#tls
  }
}
