/**
 * The far end of a tunnel, and how to write it in a `CONNECT` request or a log line.
 * @module
 */

import { isIP } from 'node:net'

/** Where a tunnel leads. */
export interface TunnelTarget {
  /** Host name or address, IPv6 with or without brackets. */
  hostname: string
  port: number
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
