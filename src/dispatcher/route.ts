/**
 * Routes: how an interceptor sends a request over connections it does not open directly (a
 * proxy tunnel, say) while the Agent below keeps owning them. The interceptor names a route on
 * the dispatch; the Agent keeps one pool per route, built with its own options, and asks the
 * route to open each connection of that pool.
 * @module
 */

import type { ConnectCallback, ConnectOptions, Connector } from '../connect.js'
import type { Dispatch } from '../contracts/dispatch-contract.js'

/** The Agent's own way to connect, handed to a route for the hops it makes directly. */
export interface DirectConnection {
  /** The Agent's connector: its `connect` options (TLS, socket options, session reuse). */
  connector: Connector
  /** The Agent's connect deadline in milliseconds (`connect.timeout`, else `connectTimeout`); 0: none. */
  timeoutMs: number
  /**
   * Dispatches on the Agent itself, below every interceptor: for the requests that set up a
   * connection (a proxy's `CONNECT`), so the Agent owns their connections too.
   */
  dispatch: Dispatch
}

/**
 * A route, set as `route` on the dispatch options. Requests with the same `key` share a pool.
 * @example
 * dispatch({ ...opts, route: { key: `tunnel ${proxyUrl} ${target}`, origin: target, connect: openTunnel } }, handler)
 */
export interface DispatchRoute {
  /** Everything that makes the route's connections differ (the proxy and the target, say). */
  readonly key: string
  /** The origin the pool is built for: where requests appear to go (Host, TLS servername). */
  readonly origin: string
  /** Opens one connection of the route; `direct` is how the Agent would connect by itself. */
  connect (options: ConnectOptions, callback: ConnectCallback, direct: DirectConnection): void
}

/** Dispatch options that name a {@link DispatchRoute}: state a layer above the Agent passes down, not a caller's option. */
export interface CarriesRoute {
  /** How the request travels; requests without one go straight to their origin. */
  route?: DispatchRoute | undefined
}

/** The route `opts` names, if any. */
export function routeOf (opts: object): DispatchRoute | undefined {
  return (opts as CarriesRoute).route ?? undefined
}

// Marks the connector of a route's pool, so its clients know which route's requests are theirs.
const ROUTE_KEY = Symbol('conduit.routeKey')

/** The connector of a route's pool: opens each connection through the route. */
export function routeConnector (route: DispatchRoute, direct: DirectConnection): Connector {
  const connect = (options: ConnectOptions, callback: ConnectCallback): void => route.connect(options, callback, direct)
  return Object.assign(connect, { [ROUTE_KEY]: route.key })
}

/** The key of the route a connector was made for, or undefined for any other connector. */
export function routeKeyOf (connector: Connector): string | undefined {
  return (connector as { [ROUTE_KEY]?: string })[ROUTE_KEY]
}
