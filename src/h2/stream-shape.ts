/**
 * What an HTTP/2 stream's header blocks and tunnels look like to the rest of conduit: a header
 * block in the dispatch contract's shape, and a tunnel stream that answers where it leads as a
 * socket does.
 * @module
 */

import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'

/**
 * Copies an HTTP/2 header block into conduit's shape (lower-case names, no pseudo-headers), or
 * returns null when it is larger than `max` bytes, counted as RFC 9113 section 6.5.2 does (name,
 * value and 32 bytes per field): the peer may ignore the limit the client advertised.
 */
export function toIncomingHeaders (headers: IncomingHttpHeaders, max: number): IncomingHeaders | null {
  const out: IncomingHeaders = {}
  let size = 0
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) size += name.length + v.length + 32
    else size += name.length + String(value).length + 32
    if (name.charCodeAt(0) === 58 /* ':' */) continue
    out[name] = value
  }
  return size > max ? null : out
}

const PEER_ADDRESS = ['remoteAddress', 'remotePort', 'remoteFamily'] as const

/**
 * Hands a CONNECT stream over as a tunnel: without the exchange's `listeners` (its 'data' one would
 * read the tunnel), with errors nobody listens to swallowed, the bytes read before the head put
 * back in order (they belong to the tunnel) and the peer's address exposed.
 */
export function handOverTunnel (stream: ClientHttp2Stream, listeners: ReadonlyArray<readonly [string, (...args: any[]) => void]>, early: Buffer[]): void {
  for (const [event, listener] of listeners) stream.off(event, listener)
  stream.on('error', noop)
  for (let i = early.length - 1; i >= 0; i--) stream.unshift(early[i])
  exposePeerAddress(stream)
}

function noop (): void {}

/**
 * A tunnel is handed over as a Duplex: it answers where it leads as a socket does (the
 * session's peer), so whoever takes it (a WebSocket's open event and debug line) needs to
 * know nothing of HTTP/2.
 */
export function exposePeerAddress (stream: ClientHttp2Stream): void {
  const socket = stream.session?.socket
  if (socket === undefined) return
  for (const name of PEER_ADDRESS) Object.defineProperty(stream, name, { get: () => socket[name], configurable: true })
}
