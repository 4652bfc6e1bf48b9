/**
 * One proxy and the dispatchers that reach targets through it: the client that talks to the
 * proxy itself (absolute-form requests and `CONNECT`), and an agent whose connector opens a
 * tunnel per target connection. Both are created on first use, so an unused proxy costs nothing.
 * @module
 */

import type { EventEmitter } from 'node:events'
import type { Duplex } from 'node:stream'
import { buildConnector, DEFAULT_CONNECT_TIMEOUT } from '../../src/connect.js'
import type { ConnectCallback, ConnectOptions, Connector } from '../../src/connect.js'
import { Agent } from '../../src/dispatcher/agent.js'
import type { AgentOptions } from '../../src/dispatcher/agent.js'
import { Pool } from '../../src/dispatcher/pool.js'
import type { Dispatcher } from '../../src/dispatcher/dispatcher.js'
import { ConnectTimeoutError } from '../../src/errors.js'
import type { DispatchHandler, DispatchOptions } from '../../src/handler.js'
import { AbsoluteFormHandler, absoluteFormOptions } from './absolute-form.js'
import { defaultPort } from './proxy-options.js'
import type { ResolvedProxy } from './proxy-options.js'
import { publishTunnel } from './proxy-log.js'
import { openSocksTunnel } from './socks.js'
import { authority } from './tunnel-target.js'
import type { TunnelTarget } from './tunnel-target.js'
import { openConnectTunnel } from './tunnel.js'

/** Dispatcher events forwarded to whoever owns the proxy interceptor (a preset re-emits them). */
export const FORWARDED_EVENTS = ['drain', 'connect', 'disconnect', 'connectionError'] as const

/** Routes requests through one proxy. */
export class ProxyRoute {
  /** The proxy this route uses. */
  readonly proxy: ResolvedProxy
  readonly #agentOptions: AgentOptions
  readonly #events: EventEmitter
  #client: Dispatcher | null = null
  #agent: Dispatcher | null = null
  #tls: Connector | null = null

  constructor (proxy: ResolvedProxy, agentOptions: AgentOptions, events: EventEmitter) {
    this.proxy = proxy
    this.#agentOptions = agentOptions
    this.#events = events
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

  /** Sends one request to `target` through the proxy; `headers` are normalized and carry `host`. */
  dispatch (opts: DispatchOptions, handler: DispatchHandler, target: URL, targetOrigin: string, headers: Record<string, string | string[]>): boolean {
    if (this.tunnels(target, opts)) return this.#tunnelAgent().dispatch({ ...opts, headers }, handler)
    const options = absoluteFormOptions(opts, targetOrigin, headers, this.proxy)
    return this.#proxyClient().dispatch(options, new AbsoluteFormHandler(handler, this.proxy, `${opts.method} ${options.path}`))
  }

  /** Waits for requests in flight, then closes the tunnels and the proxy connections. */
  async close (): Promise<void> {
    await this.#agent?.close()
    await this.#client?.close()
  }

  /** Fails everything in flight with `err` and closes at once. */
  async destroy (err: Error | null): Promise<void> {
    await Promise.all([this.#agent?.destroy(err), this.#client?.destroy(err)])
  }

  #forward (dispatcher: Dispatcher): Dispatcher {
    for (const event of FORWARDED_EVENTS) {
      dispatcher.on(event, (...args: unknown[]) => this.#events.emit(event, ...args))
    }
    return dispatcher
  }

  #proxyClient (): Dispatcher {
    if (this.#client === null) {
      const connect = this.proxy.proxyTls === undefined ? undefined : { ...this.proxy.proxyTls }
      const factory = this.proxy.clientFactory ?? ((origin: URL, opts: { connect?: object | undefined }) => new Pool(origin, opts))
      this.#client = this.#forward(factory(new URL(this.proxy.origin), { connect }))
    }
    return this.#client
  }

  #tunnelAgent (): Dispatcher {
    this.#agent ??= this.#forward(new Agent({
      ...this.#agentOptions,
      connect: (request: ConnectOptions, callback: ConnectCallback) => this.#connect(request, callback)
    }))
    return this.#agent
  }

  #connect (request: ConnectOptions, callback: ConnectCallback): void {
    const port = Number(request.port) || defaultPort(request.protocol)
    const target: TunnelTarget = { hostname: request.hostname, port }
    const socks = this.proxy.socks
    const timeoutMs = this.#agentOptions.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT
    let settled = false
    let timer: NodeJS.Timeout | null = null
    const finish = (err: Error | null, socket: Duplex | null): void => {
      if (settled) {
        socket?.destroy()
        return
      }
      settled = true
      if (timer !== null) clearTimeout(timer)
      request.signal?.removeEventListener('abort', onAbort)
      callback(err, socket)
    }
    const opened = (err: Error | null, socket?: Duplex): void => {
      if (settled || err !== null || socket === undefined) {
        finish(err ?? new Error('tunnel produced no socket'), socket ?? null)
        return
      }
      publishTunnel({ socket, proxy: this.proxy.label, target: authority(target), via: socks === null ? 'connect' : socks.version === 4 ? 'socks4' : 'socks5' })
      if (request.protocol !== 'https:') {
        finish(null, socket)
        return
      }
      // TLS to the target runs over the tunnel, verified with requestTls (ca, servername...).
      const servername = this.proxy.requestTls?.servername ?? request.servername
      this.#targetConnector()({ ...request, servername, httpSocket: socket }, finish)
    }
    let cancel: ((reason: Error) => void) | null = null
    // A custom connector gets no deadline from the transport, so the whole tunnel setup has one here.
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
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
      cancel = openConnectTunnel(this.#proxyClient(), this.proxy, target, { keepAlive: this.#agentOptions.connections !== 0, timeoutMs }, opened)
    }
  }

  #targetConnector (): Connector {
    // allowH2 offers h2 by ALPN to the target through the tunnel, as on a direct connection.
    this.#tls ??= buildConnector({ allowH2: this.#agentOptions.allowH2, ...this.proxy.requestTls })
    return this.#tls
  }
}
