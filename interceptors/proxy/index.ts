/**
 * The proxy interceptor: sends requests through an HTTP, HTTPS or SOCKS proxy.
 *
 * Routing, per request:
 * - a target matching `noProxy`, or whose protocol has no proxy, goes direct (to the composed dispatcher);
 * - `https:` targets, protocol upgrades, and `http:` ones when `proxyTunnel` is true, go through a `CONNECT` tunnel
 *   (after TLS to the proxy when it is `https:`), with TLS to the target verified by `requestTls`;
 * - other `http:` targets go to the proxy as absolute-form requests (RFC 9112 §3.2.2);
 * - `socks*:` proxies always tunnel, through a SOCKS handshake.
 * Each decision is logged under `NODE_DEBUG=conduit:proxy`.
 * @module
 */

import { EventEmitter } from 'node:events'
import { ClientClosedError, InvalidArgumentError, failDispatch, normalizeHeaders, describeValue, describeUrl, showRequest } from '../../src/handler.js'
import type { AgentOptions, Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { assertNoProxyAuthorization } from './proxy-auth.js'
import type { ProxyEnvOptions } from './proxy-env.js'
import { proxyDebug, proxyDebugEnabled } from './proxy-log.js'
import { PROXY_OPTION_KEYS } from './proxy-options.js'
import type { ProxyOptions } from './proxy-options.js'
import { ProxyRouter } from './proxy-router.js'

export { parseNoProxy } from './no-proxy.js'
export type { NoProxyMatcher } from './no-proxy.js'
export { readProxyEnv } from './proxy-env.js'
export type { ProxyEnvOptions, ResolvedProxyEnv } from './proxy-env.js'
export { PROXY_CONNECTED_CHANNEL, PROXY_DEBUG_NAMESPACE } from './proxy-log.js'
export type { ProxyConnectedMessage, ProxyConnectParams } from './proxy-log.js'
export type { ProxyClientFactory, ProxyOptions, ProxyTlsOptions } from './proxy-options.js'
export { parseProxyUri } from './proxy-options.js'
export { FORWARDED_EVENTS } from './proxy-route.js'

/**
 * Options of {@link proxy}: the proxy options, per-protocol proxies and a NO_PROXY list, and the
 * options of the agent that carries tunnelled requests (`connections`, timeouts...; `connect` is the tunnel's own).
 */
export interface ProxyInterceptorOptions extends ProxyOptions, ProxyEnvOptions, Omit<AgentOptions, 'connect' | 'factory'> {}

/** The interceptor {@link proxy} returns; it owns the connections to the proxy, so close it with the dispatcher. */
export interface ProxyInterceptor extends Interceptor {
  /** Waits for proxied requests in flight, then closes tunnels and proxy connections. */
  close (): Promise<void>
  /** Fails proxied requests in flight with `err` and closes at once. */
  destroy (err?: Error | null): Promise<void>
  /** Emits `'drain'`, `'connect'`, `'disconnect'` and `'connectionError'` of the dispatchers behind the proxy. */
  readonly events: EventEmitter
}

function toOptions (options: unknown): ProxyInterceptorOptions {
  if (typeof options === 'string' || options instanceof URL) return { uri: options }
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(`proxy(): expected a proxy URI or an options object, got ${describeValue(options)}`)
  }
  const opts = options as ProxyInterceptorOptions
  if (opts.uri === undefined && !('httpProxy' in opts) && !('httpsProxy' in opts)) {
    throw new InvalidArgumentError('proxy(): uri is required (a proxy URL string or URL), got undefined')
  }
  return opts
}

/** The options meant for the agent: everything that is not a proxy option (the presets build their base Agent from them). */
export function agentOptionsOf (options: ProxyInterceptorOptions): AgentOptions {
  const rest: Record<string, unknown> = { ...options }
  for (const key of PROXY_OPTION_KEYS) delete rest[key]
  return rest as AgentOptions
}

/**
 * Creates the proxy interceptor. Closing or destroying a dispatcher it is composed on closes its
 * proxy connections too; `close()` / `destroy()` on the interceptor itself do the same directly.
 * @example
 * const proxied = interceptors.proxy({ uri: 'http://proxy.internal:3128', token: `Bearer ${key}` })
 * const agent = new Agent().compose(proxied)
 * await agent.request({ origin: 'https://example.org', path: '/', method: 'GET' })
 * await agent.close() // also closes the tunnels and proxy connections
 * @example
 * // Per protocol, with exceptions that go direct through the composed agent:
 * interceptors.proxy({ httpProxy: 'http://proxy:3128', httpsProxy: 'http://proxy:3128', noProxy: 'localhost,.internal' })
 */
export function proxy (options: string | URL | ProxyInterceptorOptions): ProxyInterceptor {
  const opts = toOptions(options)
  const agentOptions = agentOptionsOf(opts)
  const events = new EventEmitter()
  const router = new ProxyRouter(opts, agentOptions, events)
  let closed = false

  const interceptor = (dispatch: Dispatch): Dispatch => Object.assign((request: DispatchOptions, handler: DispatchHandler): boolean => {
    const { target, origin, host, port, route, why } = router.decide(request)
    if (route === null) {
      if (proxyDebugEnabled()) proxyDebug(`${showRequest({ method: request.method, origin, path: request.path })}: direct (${why})`)
      return dispatch(request, handler)
    }
    const headers = normalizeHeaders(request.headers)
    assertNoProxyAuthorization(headers)
    if (closed) {
      failDispatch(handler, new ClientClosedError('proxy(): the proxy interceptor is closed'))
      return true
    }
    headers.host ??= host
    if (proxyDebugEnabled()) proxyDebug(`${showRequest({ method: request.method, origin, path: request.path })}: ${route.describe(target, port, request)}`)
    return route.dispatch(dispatch, request, handler, target, origin, headers)
  }, {
    // compose() calls these, so closing the composed dispatcher closes the proxy connections too.
    onClose: () => self.close(),
    onDestroy: (reason: Error) => { void self.destroy(reason) }
  })

  const self: ProxyInterceptor = Object.assign(interceptor, {
    events,
    async close (): Promise<void> {
      closed = true
      await Promise.all(router.routes().map((route) => route.close()))
    },
    async destroy (err?: Error | null): Promise<void> {
      closed = true
      await Promise.all(router.routes().map((route) => route.destroy(err ?? null)))
    }
  })
  return self
}
