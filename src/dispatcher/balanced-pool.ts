/**
 * BalancedPool: one logical origin served by several upstreams, each a Pool. Requests are spread
 * by weighted round robin; an upstream's weight drops by `errorPenalty` when connecting to it
 * fails, a connection to it breaks or a request to it times out, and grows again by as much with
 * each connection that succeeds, so a failing upstream gets few requests and a recovered one gets
 * its share back. An upstream that holds more unanswered requests than its share is passed over
 * until it answers: one that accepts connections but never responds (a stopped process) holds a
 * few requests, not a third of the load, while its first timeouts are still to come.
 * @module
 */

import type { Duplex } from 'node:stream'
import { BalancedPoolMissingUpstreamError, BodyTimeoutError, HeadersTimeoutError } from '../errors.js'
import { LIBRARY_ERROR_CODES, fromUndiciCode } from '../error-codes.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { DecoratorHandler } from '../handlers/decorator-handler.js'
import type { Dispatcher } from './dispatcher.js'
import { MemberPool } from './member-pool.js'
import type { PoolMember } from './member-pool.js'
import { Pool } from './pool.js'
import type { PoolOptions } from './pool.js'
import { parseOrigin } from './client.js'
import { nextWeightedTurn } from './weighted-turns.js'
import type { WeightedTurns } from './weighted-turns.js'
import { failOption } from '../validation/options.js'
import { checkFunctionOption, checkOptionsObject } from './pool-options.js'

/** Builds the dispatcher of one upstream. */
export type BalancedPoolFactory = (origin: string, opts: PoolOptions) => Dispatcher

/** Options of a {@link BalancedPool}: pool options (given to every upstream) plus the fields below. */
export interface BalancedPoolOptions extends Omit<PoolOptions, 'factory'> {
  /**
   * Builds each upstream's dispatcher.
   * @defaultValue `(origin, opts) => new Pool(origin, opts)`
   */
  factory?: BalancedPoolFactory | undefined
  /**
   * The weight of a healthy upstream, and the most any upstream reaches.
   * @defaultValue 100
   */
  maxWeightPerServer?: number | undefined
  /**
   * How much one failure takes from an upstream's weight (never below 1), and one successful connection gives back.
   * @defaultValue 15
   */
  errorPenalty?: number | undefined
}

interface Upstream extends PoolMember {
  readonly origin: string
  weight: number
  /** Requests started on this upstream that have not ended yet. */
  unanswered: number
  /** Takes one penalty from the weight: a request to this upstream timed out. */
  readonly timedOut: () => void
}

const SOCKET_ERROR_CODE = LIBRARY_ERROR_CODES.SocketError

/**
 * How many unanswered requests an upstream may hold beyond its share (by weight, measured
 * against the least loaded upstream) before it is passed over. Small, so a stalled upstream
 * captures few requests; not zero, so the usual jitter between healthy ones changes nothing.
 */
export const UNANSWERED_ALLOWANCE = 4

/** Follows one request on one upstream: counts it while it runs, and reports its timeout. */
class UpstreamHandler extends DecoratorHandler {
  readonly #upstream: Upstream
  #counted = false

  constructor (handler: DispatchHandler, upstream: Upstream) {
    super(handler)
    this.#upstream = upstream
  }

  #release (): void {
    if (!this.#counted) return
    this.#counted = false
    this.#upstream.unanswered--
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.#counted = true
    this.#upstream.unanswered++
    try {
      super.onRequestStart(controller, context)
    } catch (err) {
      // The request does not go ahead: the dispatch throws this back to its caller.
      this.#release()
      throw err
    }
  }

  override onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.#release()
    super.onRequestUpgrade(controller, statusCode, headers, socket)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    this.#release()
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    this.#release()
    // Timeouts say nothing about the socket (an upstream that accepts and then never answers
    // breaks no connection), so they are counted here, for HTTP/1.1 and HTTP/2 alike.
    if (error instanceof HeadersTimeoutError || error instanceof BodyTimeoutError) this.#upstream.timedOut()
    super.onResponseError(controller, error)
  }
}

function defaultFactory (origin: string, opts: PoolOptions): Dispatcher {
  return new Pool(origin, opts)
}

function positiveOption (value: unknown, name: string, fallback: number): number {
  if (value == null || value === 0) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    failOption('BalancedPool', name, 'a positive integer', value)
  }
  return value
}

/**
 * A dispatcher for one logical origin served by several upstreams.
 * @example
 * const pool = new BalancedPool(['http://10.0.0.1:8080', 'http://10.0.0.2:8080'])
 * pool.addUpstream('http://10.0.0.3:8080')
 * const { body } = await pool.request({ path: '/', method: 'GET' })
 */
export class BalancedPool extends MemberPool<Upstream> {
  readonly #factory: BalancedPoolFactory
  readonly #options: PoolOptions
  readonly #turns: WeightedTurns
  // The least unanswered requests per unit of weight among the upstreams a pick may choose.
  #leastLoad = 0
  readonly #canTakeTurn = (m: Upstream): boolean => isOpen(m) && m.unanswered <= this.#leastLoad * m.weight + UNANSWERED_ALLOWANCE

  /**
   * @param upstreams - the upstream origins (`http://host:port`), one or a list
   * @param options - see {@link BalancedPoolOptions}
   * @throws InvalidArgumentError for a bad option or an upstream that is not an http(s) origin
   */
  constructor (upstreams: string | URL | ReadonlyArray<string | URL> = [], options: BalancedPoolOptions = {}) {
    super()
    checkOptionsObject('BalancedPool', options)
    const { factory, maxWeightPerServer, errorPenalty, ...poolOptions } = options
    checkFunctionOption('BalancedPool', 'factory', factory)
    this.#factory = factory ?? defaultFactory
    this.#options = poolOptions
    const maxWeight = positiveOption(maxWeightPerServer, 'maxWeightPerServer', 100)
    this.#turns = { index: -1, currentWeight: 0, maxWeight, step: maxWeight, penalty: positiveOption(errorPenalty, 'errorPenalty', 15) }
    for (const upstream of Array.isArray(upstreams) ? upstreams : [upstreams]) this.addUpstream(upstream)
  }

  /**
   * Adds an upstream (nothing happens when it is there already). Every upstream's weight is
   * reset to the full weight, as undici does.
   * @throws InvalidArgumentError when `upstream` is not an http(s) origin
   */
  addUpstream (upstream: string | URL): this {
    const origin = parseOrigin(upstream, 'BalancedPool').origin
    if (this.#find(origin) !== undefined) return this
    const member: Upstream = {
      origin,
      dispatcher: this.#factory(origin, this.#options),
      needDrain: false,
      weight: this.#turns.maxWeight,
      unanswered: 0,
      timedOut: () => this.#reweigh(member, -1)
    }
    const { dispatcher } = member
    dispatcher.on('connect', () => this.#reweigh(member, +1))
    dispatcher.on('connectionError', () => this.#reweigh(member, -1))
    dispatcher.on('disconnect', (_origin: unknown, _targets: unknown, err?: { code?: unknown }) => {
      if (typeof err?.code === 'string' && fromUndiciCode(err.code) === SOCKET_ERROR_CODE) this.#reweigh(member, -1)
    })
    this.addMember(member)
    for (const m of this.members) m.weight = this.#turns.maxWeight
    this.#updateStep()
    return this
  }

  /**
   * Removes an upstream; requests already sent to it finish, new ones go elsewhere.
   * @throws InvalidArgumentError when `upstream` is not an http(s) origin
   */
  removeUpstream (upstream: string | URL): this {
    const member = this.#find(parseOrigin(upstream, 'BalancedPool').origin)
    if (member !== undefined) {
      this.removeMember(member, 'close')
      this.#updateStep()
    }
    return this
  }

  /**
   * The Pool of an upstream, or undefined when it is not one of this pool's. Typed `Pool` as
   * undici types it: a `factory` that builds another kind of dispatcher gets that one back.
   * @throws InvalidArgumentError when `upstream` is not an http(s) origin
   */
  getUpstream (upstream: string | URL): Pool | undefined {
    return this.#find(parseOrigin(upstream, 'BalancedPool').origin)?.dispatcher as Pool | undefined
  }

  /** The origins of the upstreams, in the order they were added. */
  get upstreams (): string[] {
    return this.#usable().map((m) => m.origin)
  }

  /** The current weight of each upstream, by origin: how the next requests will be spread. */
  get weights (): Record<string, number> {
    const weights: Record<string, number> = {}
    for (const m of this.#usable()) weights[m.origin] = m.weight
    return weights
  }

  #usable (): Upstream[] {
    return this.members.filter((m) => !(m.dispatcher as { closed?: boolean }).closed)
  }

  #find (origin: string): Upstream | undefined {
    return this.#usable().find((m) => m.origin === origin)
  }

  #reweigh (member: Upstream, direction: 1 | -1): void {
    const { maxWeight, penalty } = this.#turns
    member.weight = Math.max(1, Math.min(maxWeight, member.weight + direction * penalty))
    this.#updateStep()
  }

  /** The turns step down by the greatest common divisor of the weights, so no turn is wasted. */
  #updateStep (): void {
    let divisor = 0
    for (const m of this.members) divisor = greatestCommonDivisor(m.weight, divisor)
    this.#turns.step = divisor === 0 ? this.#turns.maxWeight : divisor
  }

  /** @internal The upstream whose turn it is, by weight, among those not holding more than their share. */
  protected override pick (): Upstream | null {
    if (this.members.length === 0) {
      throw new BalancedPoolMissingUpstreamError('BalancedPool: no upstream to send the request to (add one with addUpstream())')
    }
    let least = Infinity
    for (const m of this.members) {
      if (isOpen(m)) least = Math.min(least, m.unanswered / m.weight)
    }
    // The least loaded upstream always passes the test, so a pick fails only when none is open.
    this.#leastLoad = least
    return nextWeightedTurn(this.members, this.#turns, this.#canTakeTurn)
  }

  /** @internal Each request an upstream takes is followed, for its unanswered count and timeouts. */
  protected override handlerFor (member: Upstream, handler: DispatchHandler): DispatchHandler {
    return new UpstreamHandler(handler, member)
  }
}

function isOpen (m: Upstream): boolean {
  return !m.needDrain && !(m.dispatcher as { closed?: boolean }).closed
}

function greatestCommonDivisor (a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}
