/**
 * What a Client needs of a connection, whatever its protocol: the HTTP/1.1 connection and the
 * HTTP/2 session both implement it, and report back through {@link ConnectionOwner}.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { ConnectionConfig } from './connection-config.js'
import type { ClientRequest } from './client-request.js'

/** The wire protocols a connection can speak (see the Client's protocol table). */
export type WireProtocolName = 'h1' | 'h2'

/** A connection a Client sends requests over. */
export interface ClientConnection {
  /** The wire protocol it speaks. */
  readonly protocol: WireProtocolName
  readonly socket: Duplex
  /** Requests written and not yet answered. */
  readonly size: number
  /** Requests (and tunnels) in flight whose dispatch has not ended. */
  readonly live: number
  /** True once the connection can no longer be used. */
  readonly dead: boolean
  /** Requests the connection can hold in flight at once (pipelining, or concurrent streams). */
  readonly capacity: number
  /** Whether `req` may be written now. */
  canAccept (req: ClientRequest): boolean
  /** Sends `req`. */
  write (req: ClientRequest): void
  /** Closes the connection; see each protocol for what happens to requests in flight. */
  destroy (err: Error | null, requeue?: boolean): void
}

/** What a connection reports to its Client. */
export interface ConnectionOwner {
  readonly config: ConnectionConfig
  /** The connection can take more requests. */
  onConnectionReady (conn: ClientConnection): void
  /** The connection is gone; `requeue` lists requests to send again on a fresh one. */
  onConnectionClosed (conn: ClientConnection, err: Error | null, requeue: ClientRequest[]): void
  /**
   * The connection takes no new requests but still finishes some (HTTP/2 GOAWAY): the Client
   * opens a fresh connection for what comes next and still waits for this one on close.
   */
  onConnectionDraining (conn: ClientConnection): void
  /** Requests the server never processed, to send again (first in line) on another connection. */
  onConnectionRequeue (conn: ClientConnection, requeue: ClientRequest[]): void
  /**
   * The connection cannot carry this upgrade (an HTTP/2 session whose server did not enable
   * extended CONNECT, RFC 8441): the Client sends it over an HTTP/1.1 connection of its own.
   */
  onUpgradeFallback (conn: ClientConnection, req: ClientRequest): void
}
