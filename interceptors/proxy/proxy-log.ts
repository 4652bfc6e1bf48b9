/**
 * What the proxy interceptor tells the outside world: one debug line per routing decision
 * and tunnel (`NODE_DEBUG=conduit:proxy`), and a diagnostics channel event per tunnel.
 * Nothing here ever receives credentials: proxies are named by their label (`scheme//host:port`).
 * @module
 */

import { debuglog } from 'node:util'
import type { Duplex } from 'node:stream'
import { activeUndiciChannel, channels, undiciChannels } from '../../src/handler.js'

/** Debug namespace of the proxy interceptor. */
export const PROXY_DEBUG_NAMESPACE = 'conduit:proxy'

/** Name of the diagnostics channel published once per established tunnel. */
export const PROXY_CONNECTED_CHANNEL = String(channels.proxyConnected.name)

/** Payload of a `conduit:proxy:connected` diagnostics channel event. */
export interface ProxyConnectedMessage {
  /** The tunnel socket (before TLS to the target, when the target is `https:`). */
  socket: Duplex
  /** The proxy, as `scheme//host:port` (never with credentials). */
  proxy: string
  /** The tunnel's far end, `host:port`. */
  target: string
  /** How the tunnel was made: an HTTP `CONNECT`, or a SOCKS4/5 handshake. */
  via: 'connect' | 'socks4' | 'socks5'
  /** What the tunnel was asked with, as undici's message carries it (proxy header values redacted). */
  connectParams: ProxyConnectParams
}

/** The request that opened a tunnel: to which proxy, for which target. */
export interface ProxyConnectParams {
  /** The proxy's origin (never with credentials). */
  origin: string
  /** The proxy's port. */
  port: number
  /** The tunnel target, `host:port`. */
  path: string
  /** Headers of the `CONNECT` request, the proxy headers' values (credentials included) redacted (empty for SOCKS). */
  headers: Record<string, string | string[]>
  /** TLS server name of an `https:` proxy, when one applies. */
  servername: string | null
}

let log: ReturnType<typeof debuglog> | undefined
const connectedChannel = channels.proxyConnected

/** True when `NODE_DEBUG` names `conduit:proxy`; the namespace is looked up on first use, as the runtime expects. */
export function proxyDebugEnabled (): boolean {
  log ??= debuglog(PROXY_DEBUG_NAMESPACE)
  return log.enabled
}

/** Writes one line under `conduit:proxy` (callers build costly messages only when {@link proxyDebugEnabled}). */
export function proxyDebug (message: string): void {
  if (proxyDebugEnabled()) (log as ReturnType<typeof debuglog>)('%s', message)
}

/** Publishes a tunnel on the diagnostics channel and logs it. */
export function publishTunnel (message: ProxyConnectedMessage): void {
  proxyDebug(`tunnel to ${message.target} established through ${message.proxy} (${message.via})`)
  if (connectedChannel.hasSubscribers) connectedChannel.publish(message)
  const undici = activeUndiciChannel(undiciChannels.proxyConnected)
  if (undici !== null) undici.publish({ socket: message.socket, connectParams: message.connectParams })
}
