/**
 * Upgrades an HTTP/2 session cannot carry: a WebSocket handshake to a server whose SETTINGS do
 * not enable extended CONNECT (RFC 8441) goes over an HTTP/1.1 connection of its own, opened
 * with the Client's connector without offering h2. The connection serves that one request: it
 * becomes the WebSocket's socket on a 101, and is closed once any other answer ended.
 * @module
 */

import { connectionSetup } from '../observability/request-timings.js'
import { monotonicNow } from '../runtime/timers.js'
import type { ClientConfig } from './client-options.js'
import type { ConnectParams } from '../diagnostics.js'
import type { ClientRequest } from '../connection/client-request.js'
import type { ClientConnection, ConnectionOwner } from '../connection/client-connection.js'
import { SocketError } from '../errors.js'
import { publishConnectEvent } from '../observability/request-events.js'
import { connectOnce, connectOptionsOf } from './connect-options.js'
import { openHttp1 } from './wire-protocols.js'

/** The HTTP/1.1 connections a Client opened for upgrades, from connecting until they are handed over or closed. */
export class UpgradeFallback {
  readonly #config: ClientConfig
  readonly #url: URL
  readonly #params: ConnectParams
  /** Called when the last connection is gone (the Client may finish closing). */
  readonly #onIdle: () => void
  /** Connection attempts under way, with the request each is for. */
  readonly #connecting = new Map<AbortController, ClientRequest>()
  readonly #connections = new Set<ClientConnection>()
  readonly #owner: ConnectionOwner

  constructor (config: ClientConfig, url: URL, params: ConnectParams, onIdle: () => void) {
    this.#config = config
    this.#url = url
    this.#params = { ...params, version: 'h1' }
    this.#onIdle = onIdle
    this.#owner = {
      config,
      // The connection carried its one request: one that did not upgrade is not kept.
      onConnectionReady: (conn) => { if (conn.live === 0) conn.destroy(null, false) },
      onConnectionClosed: (conn, err, requeue) => this.#onClosed(conn, err, requeue),
      onConnectionDraining: () => {},
      onConnectionRequeue: (_conn, requeue) => this.#failAll(requeue, null),
      onUpgradeFallback: (_conn, req) => this.#failAll([req], null)
    }
  }

  /** Connections opening or open. */
  get size (): number {
    return this.#connecting.size + this.#connections.size
  }

  /** Opens an HTTP/1.1 connection for `req` and sends it there. */
  send (req: ClientRequest): void {
    const params = this.#params
    const connector = this.#config.connector
    const caller = req.callerTag
    publishConnectEvent('beforeConnect', () => ({ connectParams: params, connector, caller }))
    const abort = new AbortController()
    const startedAt = monotonicNow()
    this.#connecting.set(abort, req)
    connectOnce(connector, connectOptionsOf(params, this.#config, req.servername, abort.signal, false), (err, socket) => {
      this.#connecting.delete(abort)
      if (err !== null || socket === null) {
        const error = err ?? new SocketError('connector returned no socket')
        publishConnectEvent('connectError', () => ({ connectParams: params, connector, error, caller }))
        req.fail(error)
      } else if (req.completed) {
        // Aborted while connecting: nobody waits for this socket.
        socket.destroy()
      } else {
        const conn = openHttp1(this.#owner, socket, this.#url)
        this.#connections.add(conn)
        publishConnectEvent('connected', () => ({ connectParams: params, connector, socket, caller }))
        req.assigned(connectionSetup(socket, startedAt))
        conn.write(req)
        return
      }
      this.#afterChange()
    })
  }

  /** Gives up every connection attempt and closes every connection not yet handed over. */
  destroy (err: Error): void {
    const connecting = [...this.#connecting]
    this.#connecting.clear()
    for (const [abort, req] of connecting) {
      abort.abort(err)
      req.fail(err)
    }
    for (const conn of [...this.#connections]) conn.destroy(err, false)
  }

  #onClosed (conn: ClientConnection, err: Error | null, requeue: ClientRequest[]): void {
    this.#connections.delete(conn)
    this.#failAll(requeue, err)
    this.#afterChange()
  }

  #failAll (requests: ClientRequest[], err: Error | null): void {
    for (const req of requests) req.fail(err ?? new SocketError(`the HTTP/1.1 connection to ${this.#url.origin} for an upgrade closed before it was sent`))
  }

  #afterChange (): void {
    if (this.size === 0) this.#onIdle()
  }
}
