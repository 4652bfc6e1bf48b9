/**
 * Pool: several Clients (connections) to one origin. A request goes to a client that is not
 * busy, else to a new client up to `connections`, else waits in the pool's queue.
 * @module
 */

import { poolStats } from './stats.js'
import type { PoolStats } from './stats.js'
import { emitSafely } from '../connection/user-callback.js'
import { DispatcherBase } from './dispatcher.js'
import type { Dispatcher } from './dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { failDispatch } from '../handlers/fail-dispatch.js'
import { DispatchQueue } from './dispatch-queue.js'
import { Client, clientWithConfig, parseOrigin } from './client.js'
import { resolveClientOptions } from './client-options.js'
import type { ClientOptions } from './client-options.js'
import type * as stats from './stats.js'
import { checkConnections, checkFunctionOption, checkOptionsObject } from './pool-options.js'

/** Builds the dispatcher for one connection of a pool. */
export type PoolFactory = (origin: URL, opts: ClientOptions) => Dispatcher

/** Options of a {@link Pool}: client options plus the fields below. */
export interface PoolOptions extends ClientOptions {
  /**
   * Most connections (clients) opened to the origin; null means no limit.
   * @defaultValue null
   */
  connections?: number | null | undefined
  /**
   * Builds each client.
   * @defaultValue `(origin, opts) => new Client(origin, opts)`
   */
  factory?: PoolFactory | undefined
}

const EVENTS = ['connect', 'disconnect', 'connectionError'] as const

/**
 * A dispatcher with several connections to one origin.
 * @example
 * const pool = new Pool('http://127.0.0.1:3000', { connections: 8 })
 * const { body } = await pool.request({ path: '/', method: 'GET' })
 * await body.dump()
 */
export class Pool extends DispatcherBase {
  readonly #url: URL
  readonly #options: ClientOptions
  readonly #connections: number
  readonly #factory: PoolFactory
  readonly #clients: Dispatcher[] = []
  /**
   * Per client, at its index in #clients (clients are never removed): it refused a request and
   * waits for its 'drain'. An array, not a Set, since the pick scans it for every request and a
   * hash lookup per client cost more than the rest of the pick.
   */
  readonly #busy: boolean[] = []
  #busyCount = 0
  readonly #queue = new DispatchQueue()
  #needDrain = false
  /** Whether connections may speak HTTP/2 (one session can then carry many requests). */
  readonly #mayH2: boolean
  /**
   * The first client, while it connects and connections may be HTTP/2: requests wait for it
   * rather than open more connections, since an h2 session would carry them all.
   */
  #probe: Dispatcher | null = null
  /** Re-emit a client's connection events as the pool's: one listener per event, shared by every client. */
  readonly #forwarders = EVENTS.map((event) => [event, (origin: unknown, targets: Dispatcher[], err?: Error): void => {
    emitSafely(this, event, origin, [this, ...targets], err)
  }] as const)

  /**
   * @param origin - `http://host:port` or `https://host:port`
   * @param options - see {@link PoolOptions}
   */
  constructor (origin: string | URL, options: PoolOptions = {}) {
    super()
    this.#url = parseOrigin(origin, 'Pool')
    checkOptionsObject('Pool', options)
    const { connections, factory, ...clientOptions } = options
    checkConnections('Pool', connections)
    checkFunctionOption('Pool', 'factory', factory)
    // Resolved here, where a bad option should fail, and shared by every client the default factory builds.
    const config = resolveClientOptions(clientOptions, 'Pool')
    this.#connections = connections == null || connections === 0 ? Infinity : connections
    this.#factory = factory ?? ((clientOrigin) => clientWithConfig(clientOrigin, config))
    this.#options = clientOptions
    this.#mayH2 = (config.allowH2 && this.#url.protocol === 'https:') || (config.h2c && this.#url.protocol === 'http:')
  }

  /** Requests waiting in the pool's own queue (all clients busy). */
  get pending (): number { return this.#queue.length }
  /** Clients (connections) created so far. */
  get clientCount (): number { return this.#clients.length }
  /** Clients with an open connection. */
  get connected (): number {
    let n = 0
    for (const c of this.#clients) if ((c as Partial<Client>).connected === true) n++
    return n
  }

  /** Requests queued or in flight, over all clients (clients that do not report a size count as 0). */
  get size (): number {
    let n = this.#queue.length
    for (const c of this.#clients) n += (c as Partial<Client>).size ?? 0
    return n
  }

  /** Load figures over all clients, as undici's `PoolStats` reports them. */
  get stats (): PoolStats { return poolStats(this.#clients, this.#queue.length) }

  /** This dispatcher's origin, which requests without one go to. */
  override get defaultOrigin (): string {
    return this.#url.origin
  }

  protected override acceptDispatch (opts: DispatchOptions, h: DispatchHandler): boolean {
    if (this.#queue.length === 0) {
      const i = this.#pick()
      if (i !== -1) {
        if (!DispatcherBase.forward(this.#clients[i]!, opts, h)) this.#setBusy(i)
        if (!this.#hasCapacity()) this.#needDrain = true
        return !this.#needDrain
      }
    }
    this.#queue.push(opts, h)
    this.#needDrain = true
    return false
  }

  /** Whether a request dispatched now would go to a client at once (free, or new within the limit). */
  #hasCapacity (): boolean {
    return this.#busyCount < this.#clients.length || this.#clients.length < this.#connections
  }

  #setBusy (i: number): void {
    if (this.#busy[i] === true) return
    this.#busy[i] = true
    this.#busyCount++
  }

  #setFree (i: number): void {
    if (this.#busy[i] !== true) return
    this.#busy[i] = false
    this.#busyCount--
  }

  /**
   * The index of a client that can take a request now, creating one when the limit allows; -1
   * when none.
   */
  #pick (): number {
    const clients = this.#clients
    // Under load every client is busy; knowing that from the count skips the scan.
    if (this.#busyCount < clients.length) {
      const busy = this.#busy
      for (let i = 0; i < clients.length; i++) {
        if (busy[i] !== true) return i
      }
    }
    if (clients.length >= this.#connections || this.#probe !== null) return -1
    const client = this.#factory(this.#url, this.#options)
    const index = clients.length
    clients.push(client)
    this.#busy.push(false)
    client.on('drain', () => this.#onClientDrain(client, index))
    for (const [event, forward] of this.#forwarders) client.on(event, forward)
    if (this.#mayH2 && clients.length === 1) {
      this.#probe = client
      const settled = (): void => this.#onProbeSettled(client)
      client.once('connect', settled)
      client.once('connectionError', settled)
      client.once('disconnect', settled)
    }
    return index
  }

  /** The first connection is up (or failed): an HTTP/1.1 one leaves the queue to more connections. */
  #onProbeSettled (client: Dispatcher): void {
    if (this.#probe !== client) return
    this.#probe = null
    // An HTTP/2 session takes the queue itself, through its 'drain'.
    if ((client as Partial<Client>).protocol === 'h2') return
    const queue = this.#queue
    while (queue.length > 0 && !this.closed) {
      const next = this.#pick()
      if (next === -1) break
      const { opts, handler } = queue.shift()!
      try {
        if (!DispatcherBase.forward(this.#clients[next]!, opts, handler)) this.#setBusy(next)
      } catch (err) {
        failDispatch(handler, err as Error)
      }
    }
  }

  #onClientDrain (client: Dispatcher, index: number): void {
    this.#setFree(index)
    const queue = this.#queue
    while (queue.length > 0 && this.#busy[index] !== true) {
      const { opts, handler } = queue.shift()!
      try {
        if (!DispatcherBase.forward(client, opts, handler)) this.#setBusy(index)
      } catch (err) {
        // Queued requests were accepted already; a late validation failure reaches their handler.
        failDispatch(handler, err as Error)
      }
    }
    if (queue.length === 0) {
      if (this.#needDrain && !this.closed && this.#hasCapacity()) {
        this.#needDrain = false
        emitSafely(this, 'drain', this.#url, [this, client])
      }
    }
  }

  protected override closeGracefully (): Promise<void> {
    return this.#queue.whenEmpty().then(() => this.#closeClients())
  }

  /**
   * Closes every client. A destroy() that came first already settled them all, and a close()
   * still pending then resolves like the destroy (as a Client's does) instead of rejecting.
   */
  async #closeClients (): Promise<void> {
    if (this.destroyed) return
    await Promise.all(this.#clients.map((c) => c.close().catch((err: unknown) => {
      if (!this.destroyed) throw err
    })))
  }

  protected override destroyNow (error: Error): Promise<void> {
    this.#queue.failAll(error)
    return Promise.all(this.#clients.map((c) => c.destroy(error))).then(() => undefined)
  }
}

/** undici's names for the Pool's types (`Pool.Options`). */
export declare namespace Pool {
  /** {@link PoolOptions}. */
  export type Options = PoolOptions
  /** {@link stats.PoolStats}. */
  export type PoolStats = stats.PoolStats
}
