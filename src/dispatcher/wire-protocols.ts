/**
 * The protocol table: the wire protocols a Client can speak over a connected socket, each with
 * how it is recognised and how its connection is opened. A new protocol (HTTP/3, say) is a new
 * folder beside h1/ and h2/ and one entry here; the Client only looks the socket up.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import type { ClientConnection, ConnectionOwner, WireProtocolName } from '../connection/client-connection.js'
import { H1Connection } from '../h1/connection.js'
import { H2Connection } from '../h2/connection.js'
import type { ClientConfig } from './client-options.js'

/** One wire protocol of the table. */
export interface WireProtocol {
  /** How the Client and diagnostics name it. */
  readonly name: WireProtocolName
  /** Whether `socket`, connected for `origin` with `config`, speaks this protocol (ALPN, or prior knowledge). */
  speaks (socket: Duplex, config: ClientConfig, origin: URL): boolean
  /** The connection of this protocol over `socket`, reporting to `owner`. */
  open (owner: ConnectionOwner, socket: Duplex, origin: URL): ClientConnection
}

const HTTP2: WireProtocol = {
  name: 'h2',
  speaks: (socket, config, origin) => (socket as TLSSocket).alpnProtocol === 'h2' || (config.h2c && origin.protocol === 'http:'),
  open: (owner, socket, origin) => new H2Connection(owner, socket, origin)
}

const HTTP1: WireProtocol = {
  name: 'h1',
  speaks: () => true,
  open: (owner, socket) => new H1Connection(owner, socket)
}

/** The table, asked in order: the first protocol that recognises the socket serves it; HTTP/1.1 takes the rest. */
const WIRE_PROTOCOLS: readonly WireProtocol[] = [HTTP2, HTTP1]

/** An HTTP/1.1 connection over `socket`, whatever the socket could speak (an upgrade HTTP/2 cannot carry). */
export function openHttp1 (owner: ConnectionOwner, socket: Duplex, origin: URL): ClientConnection {
  return HTTP1.open(owner, socket, origin)
}

/** The protocol a freshly connected socket speaks. */
export function wireProtocolOf (socket: Duplex, config: ClientConfig, origin: URL): WireProtocol {
  for (const protocol of WIRE_PROTOCOLS) if (protocol.speaks(socket, config, origin)) return protocol
  return HTTP1
}
