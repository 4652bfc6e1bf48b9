/**
 * The options a Client hands its connector, for its own connections and for the HTTP/1.1
 * connections it opens for upgrades.
 * @module
 */

import type { ConnectCallback, ConnectOptions, Connector } from '../connect.js'
import type { ConnectParams } from '../diagnostics.js'
import type { ClientConfig } from './client-options.js'

/**
 * The connector options for one connection to `params`' origin.
 * @param servername - the request's TLS server name (the dns interceptor resolved its host), or null
 * @param allowH2 - whether to offer h2 by ALPN
 */
export function connectOptionsOf (params: ConnectParams, config: ClientConfig, servername: string | null, signal: AbortSignal, allowH2: boolean): ConnectOptions & { signal: AbortSignal } {
  return {
    hostname: params.hostname,
    host: params.host,
    protocol: params.protocol,
    port: params.port,
    servername: params.servername ?? servername,
    localAddress: config.localAddress,
    allowH2,
    signal
  }
}

/**
 * Calls `connector` and `done` at most once with its outcome; a socket that arrives after the
 * attempt was aborted (or a second time) is destroyed, since nobody waits for it.
 */
export function connectOnce (connector: Connector, options: ConnectOptions & { signal: AbortSignal }, done: ConnectCallback): void {
  let called = false
  const onConnected: ConnectCallback = (err, socket) => {
    if (called || options.signal.aborted) {
      socket?.destroy()
      return
    }
    called = true
    done(err, socket)
  }
  try {
    connector(options, onConnected)
  } catch (err) {
    onConnected(err as Error, null)
  }
}
