/**
 * Agent: the dispatcher for any origin. It keeps one Pool (or Client) per origin, created on
 * first use and dropped again once it has no connection and no request left.
 * @module
 */

import { DispatcherBase } from './dispatcher.js'
import type { Dispatcher } from './dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError, MaxOriginsReachedError } from '../errors.js'
import { emitSafely } from '../connection/user-callback.js'
import type { ClientStats, PoolStats } from './stats.js'
import { describeValue } from '../validation/describe-value.js'
import { Client, parseOrigin } from './client.js'
import { Pool } from './pool.js'
import type { PoolOptions } from './pool.js'
import { checkClientOptions, directConnection } from './client-options.js'
import { routeConnector, routeOf } from './route.js'
import type { DirectConnection, DispatchRoute } from './route.js'
import type * as contract from '../contracts/dispatch-contract.js'
import { failOption } from '../validation/options.js'
import { checkConnections, checkFunctionOption, checkOptionsObject } from './pool-options.js'

/** Builds the dispatcher of one origin. */
export type AgentFactory = (origin: string, opts: PoolOptions) => Dispatcher

/** Options of an {@link Agent}: pool options (applied to every origin) plus `factory`. */
export interface AgentOptions extends Omit<PoolOptions, 'factory'> {
  /**
   * Most origins served at a time; a request to one more fails with `MaxOriginsReachedError`
   * until an origin's dispatcher is dropped (no connection and no request left).
   * @defaultValue `Infinity`
   */
  maxOrigins?: number | undefined
  /**
   * Builds the dispatcher for an origin.
   * @defaultValue a {@link Pool}, or a {@link Client} when `connections` is 1
   */
  factory?: AgentFactory | undefined
}

/** Prefix of the keys under which routes (proxy tunnels) keep their dispatcher. */
const ROUTE_KEY_PREFIX = 'route '

const EVENTS = ['connect', 'disconnect', 'connectionError', 'drain'] as const

function defaultFactory (origin: string, opts: PoolOptions): Dispatcher {
  return opts.connections === 1 ? new Client(origin, opts) : new Pool(origin, opts)
}

/**
 * A dispatcher for every origin; `opts.origin` picks the pool.
 * @example
 * const agent = new Agent({ connections: 16, keepAliveTimeout: 10_000 })
 * const { statusCode, body } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
 * console.log(statusCode, await body.text())
 */
export class Agent extends DispatcherBase {
  readonly #options: PoolOptions
  readonly #factory: AgentFactory
  readonly #maxOrigins: number
  /** Canonical origin (`url.origin`), or `route <key>` for a route, to its dispatcher. */
  readonly #byOrigin = new Map<string, Dispatcher>()
  #direct: DirectConnection | null = null
  /** Origin strings as callers wrote them, to skip URL parsing on the hot path. */
  readonly #byKey = new Map<string, Dispatcher>()

  /** @param options - see {@link AgentOptions} */
  constructor (options: AgentOptions = {}) {
    super()
    checkOptionsObject('Agent', options)
    const { factory, maxOrigins, ...poolOptions } = options
    if (maxOrigins !== undefined && (typeof maxOrigins !== 'number' || Number.isNaN(maxOrigins) || maxOrigins <= 0)) {
      failOption('Agent', 'maxOrigins', 'a number greater than 0', maxOrigins)
    }
    this.#maxOrigins = maxOrigins ?? Infinity
    checkFunctionOption('Agent', 'factory', factory)
    const { connections, ...clientOptions } = poolOptions
    checkConnections('Agent', connections)
    checkClientOptions(clientOptions, 'Agent')
    this.#factory = factory ?? defaultFactory
    this.#options = poolOptions
  }

  /** Number of origins (and routes, such as proxy tunnels) with a live dispatcher. */
  get origins (): number {
    return this.#byOrigin.size
  }

  /** Load figures of each origin's dispatcher, by origin (dispatchers without `stats` are left out). */
  get stats (): Record<string, ClientStats | PoolStats> {
    const all: Record<string, ClientStats | PoolStats> = {}
    for (const [origin, dispatcher] of this.#byOrigin) {
      const stats = (dispatcher as { stats?: ClientStats | PoolStats }).stats
      if (stats !== undefined) all[origin] = stats
    }
    return all
  }

  protected override acceptDispatch (opts: DispatchOptions, h: DispatchHandler): boolean {
    const route = routeOf(opts)
    if (route != null) return DispatcherBase.forward(this.#forRoute(route), opts, h)
    const origin = opts.origin
    let dispatcher = typeof origin === 'string' ? this.#byKey.get(origin) : undefined
    if (dispatcher === undefined) {
      if (origin == null || (typeof origin !== 'string' && !(origin instanceof URL))) {
        throw new InvalidArgumentError(`Agent: dispatch needs opts.origin as a string or URL, got ${describeValue(origin)}`)
      }
      dispatcher = this.#forOrigin(origin)
    }
    return DispatcherBase.forward(dispatcher, opts, h)
  }

  #forOrigin (origin: string | URL): Dispatcher {
    const url = parseOrigin(typeof origin === 'string' ? origin : new URL(origin.origin), 'Agent')
    const canonical = url.origin
    let dispatcher = this.#byOrigin.get(canonical)
    if (dispatcher === undefined) {
      if (this.#originCount() >= this.#maxOrigins) {
        throw new MaxOriginsReachedError(`Agent: already serving maxOrigins (${this.#maxOrigins}) origins, cannot add ${canonical}`)
      }
      dispatcher = this.#create(canonical, canonical, this.#options)
    }
    if (typeof origin === 'string') this.#byKey.set(origin, dispatcher)
    return dispatcher
  }

  /**
   * The pool of a route: built with this Agent's options (connections, pipelining, timeouts),
   * its connections opened by the route, which gets this Agent's own connector for direct hops.
   */
  #forRoute (route: DispatchRoute): Dispatcher {
    const key = `${ROUTE_KEY_PREFIX}${route.key}`
    const found = this.#byOrigin.get(key)
    if (found !== undefined) return found
    const direct = this.#direct ??= { ...directConnection(this.#options, 'Agent'), dispatch: (o, h) => DispatcherBase.forward(this, o, h) }
    return this.#create(key, route.origin, { ...this.#options, connect: routeConnector(route, direct) })
  }

  #create (key: string, origin: string, options: PoolOptions): Dispatcher {
    const created = this.#factory(origin, options)
    this.#byOrigin.set(key, created)
    for (const event of EVENTS) {
      created.on(event, (eventOrigin: unknown, targets: Dispatcher[], err?: Error) => {
        // 'drain' comes once per request under load: with no listener here, build no arguments.
        if (this.listenerCount(event) > 0) emitSafely(this, event, eventOrigin, [this, ...(Array.isArray(targets) ? targets : [])], err)
        if (event === 'disconnect' || event === 'connectionError') this.#dropIfIdle(key, created)
      })
    }
    return created
  }

  /** Origins served now; routes (proxy tunnels) do not count against `maxOrigins`. */
  #originCount (): number {
    let n = 0
    for (const key of this.#byOrigin.keys()) if (!key.startsWith(ROUTE_KEY_PREFIX)) n++
    return n
  }

  /** Forgets an origin's dispatcher once it holds no connection and no request. */
  #dropIfIdle (canonical: string, dispatcher: Dispatcher): void {
    const d = dispatcher as Partial<Pool>
    if (typeof d.size !== 'number' || d.size > 0) return
    if (typeof d.connected === 'number' ? d.connected > 0 : (d as Partial<Client>).connected === true) return
    if (this.#byOrigin.get(canonical) !== dispatcher) return
    this.#byOrigin.delete(canonical)
    for (const [key, value] of this.#byKey) if (value === dispatcher) this.#byKey.delete(key)
    dispatcher.close().catch(() => {})
  }

  protected override closeGracefully (): Promise<void> {
    return Promise.all([...this.#byOrigin.values()].map((d) => d.close())).then(() => undefined)
  }

  protected override destroyNow (error: Error): Promise<void> {
    return Promise.all([...this.#byOrigin.values()].map((d) => d.destroy(error))).then(() => undefined)
  }
}

/** undici's names for the Agent's types (`Agent.Options`). */
export declare namespace Agent {
  /** {@link AgentOptions}. */
  export type Options = AgentOptions
  /** The options of one dispatch ({@link contract.DispatchOptions}). */
  export type DispatchOptions = contract.DispatchOptions
}
