/**
 * TLS to the target over an established tunnel, verified with `requestTls` (its `ca`, `servername`...).
 * @module
 */

import { isIP } from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import type { ProxyTlsOptions } from './proxy-options.js'

/** Where the tunnel leads. */
export interface TunnelTarget {
  /** Host name or address, IPv6 with or without brackets. */
  hostname: string
  port: number
  /** Server name the transport asked for, if any. */
  servername?: string | null | undefined
}

/** Removes the brackets URL hostnames put around IPv6 addresses. */
export function bareHost (hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
}

/** `host:port` as a CONNECT request target and a log label; IPv6 is bracketed (RFC 9112 §3.2.3). */
export function authority (target: TunnelTarget): string {
  const host = bareHost(target.hostname)
  return `${isIP(host) === 6 ? `[${host}]` : host}:${target.port}`
}

/**
 * Starts TLS over `socket` and calls back once the handshake and certificate checks passed.
 * The server name defaults to the target host, except for IP literals, which SNI forbids
 * (the certificate is then checked against the address itself).
 */
export function connectTargetTls (
  socket: Duplex,
  target: TunnelTarget,
  options: ProxyTlsOptions | undefined,
  callback: (err: Error | null, socket?: tls.TLSSocket) => void
): void {
  const host = bareHost(target.hostname)
  const servername = options?.servername ?? (target.servername || undefined) ?? (isIP(host) === 0 ? host : undefined)
  const secure = tls.connect({ ALPNProtocols: ['http/1.1'], ...options, socket, host, servername })
  const onError = (err: Error): void => {
    secure.off('secureConnect', onSecure)
    secure.destroy()
    socket.destroy()
    callback(err)
  }
  const onSecure = (): void => {
    secure.off('error', onError)
    callback(null, secure)
  }
  secure.once('error', onError)
  secure.once('secureConnect', onSecure)
}
