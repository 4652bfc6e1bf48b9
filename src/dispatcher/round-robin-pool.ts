/**
 * RoundRobinPool: several connections (Clients) to one origin, taking requests in turn rather
 * than filling the first free one as {@link Pool} does, so load spreads evenly over the
 * connections (and over the servers behind a load balancer that pins each connection).
 * @module
 */

import type { Dispatcher } from './dispatcher.js'
import { MemberPool } from './member-pool.js'
import type { PoolMember } from './member-pool.js'
import { Client, parseOrigin } from './client.js'
import { checkClientOptions } from './client-options.js'
import type { ClientOptions } from './client-options.js'
import type { PoolOptions } from './pool.js'
import type * as stats from './stats.js'
import { failOption } from '../validation/options.js'
import { checkConnections, checkFunctionOption, checkOptionsObject } from './pool-options.js'

/** Options of a {@link RoundRobinPool}: pool options plus `clientTtl`. */
export interface RoundRobinPoolOptions extends PoolOptions {
  /**
   * Milliseconds a connection serves after it connected; once older it is closed (after its
   * running requests) and a new one takes its place. null means no limit.
   * @defaultValue null
   */
  clientTtl?: number | null | undefined
  /**
   * The clock `clientTtl` is measured with, in milliseconds.
   * @defaultValue `Date.now`
   */
  now?: (() => number) | undefined
}

interface Connection extends PoolMember {
  /** When the connection came up (by the pool's clock); null until then. */
  connectedAt: number | null
}

function defaultFactory (origin: URL, opts: ClientOptions): Dispatcher {
  return new Client(origin, opts)
}

/**
 * A dispatcher with several connections to one origin, used in turn.
 * @example
 * const pool = new RoundRobinPool('http://127.0.0.1:3000', { connections: 4 })
 * const { body } = await pool.request({ path: '/', method: 'GET' })
 * await body.dump()
 */
export class RoundRobinPool extends MemberPool<Connection> {
  readonly #url: URL
  readonly #options: ClientOptions
  readonly #connections: number
  readonly #factory: (origin: URL, opts: ClientOptions) => Dispatcher
  readonly #clientTtl: number | null
  readonly #now: () => number
  #index = -1

  /**
   * @param origin - `http://host:port` or `https://host:port`
   * @param options - see {@link RoundRobinPoolOptions}
   * @throws InvalidArgumentError for a bad option or origin
   */
  constructor (origin: string | URL, options: RoundRobinPoolOptions = {}) {
    super()
    this.#url = parseOrigin(origin, 'RoundRobinPool')
    checkOptionsObject('RoundRobinPool', options)
    const { connections, factory, clientTtl, now, ...clientOptions } = options
    checkConnections('RoundRobinPool', connections)
    checkFunctionOption('RoundRobinPool', 'factory', factory)
    if (clientTtl != null && (typeof clientTtl !== 'number' || Number.isNaN(clientTtl) || clientTtl < 0)) {
      failOption('RoundRobinPool', 'clientTtl', 'a non-negative number of milliseconds or null', clientTtl)
    }
    checkFunctionOption('RoundRobinPool', 'now', now)
    checkClientOptions(clientOptions, 'RoundRobinPool')
    this.#connections = connections == null || connections === 0 ? Infinity : connections
    this.#factory = factory ?? defaultFactory
    this.#options = clientOptions
    this.#clientTtl = clientTtl == null || clientTtl === 0 ? null : clientTtl
    this.#now = now ?? Date.now
  }

  /** This pool's origin, which requests without one go to. */
  override get defaultOrigin (): string {
    return this.#url.origin
  }

  /** Connections (clients) the pool holds now. */
  get clientCount (): number { return this.members.length }

  /** @internal The next connection in turn, a new one while under `connections`. */
  protected override pick (): Connection | null {
    const members = this.members
    for (let checked = 0, count = members.length; checked < count && members.length > 0; checked++) {
      this.#index = (this.#index + 1) % members.length
      const member = members[this.#index]!
      if (this.#expired(member)) {
        this.removeMember(member, 'close')
        this.#index--
        continue
      }
      if (!member.needDrain) return member
    }
    return members.length < this.#connections ? this.#open() : null
  }

  #expired (member: Connection): boolean {
    return this.#clientTtl !== null && member.connectedAt !== null && this.#now() - member.connectedAt > this.#clientTtl
  }

  #open (): Connection {
    const member: Connection = { dispatcher: this.#factory(this.#url, this.#options), needDrain: false, connectedAt: null }
    const { dispatcher } = member
    dispatcher.on('connect', () => { member.connectedAt = this.#now() })
    // A connection that could not be made is dropped; the next request opens a new one.
    dispatcher.on('connectionError', () => this.removeMember(member, 'close'))
    this.addMember(member)
    return member
  }
}

/** undici's names for the RoundRobinPool's types (`RoundRobinPool.Options`). */
export declare namespace RoundRobinPool {
  /** {@link RoundRobinPoolOptions}. */
  export type Options = RoundRobinPoolOptions
  /** {@link stats.PoolStats}. */
  export type RoundRobinPoolStats = stats.PoolStats
}
