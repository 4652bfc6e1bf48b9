/**
 * What a {@link SocketError} reports about the socket that failed.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import type { SocketInfo } from '../errors.js'

/** Addresses and counters of a socket, for {@link SocketError}. */
export function socketInfo (socket: Duplex): SocketInfo {
  const s = socket as Socket
  return {
    localAddress: s.localAddress,
    localPort: s.localPort,
    remoteAddress: s.remoteAddress,
    remotePort: s.remotePort,
    remoteFamily: s.remoteFamily,
    timeout: s.timeout,
    bytesWritten: s.bytesWritten,
    bytesRead: s.bytesRead
  }
}
