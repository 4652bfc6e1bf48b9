/**
 * {@link MockAgent}: a dispatcher that answers requests from registered interceptors, for tests.
 * @module
 */

import { DispatcherBase } from '../dispatcher/dispatcher.js'
import type { Dispatcher } from '../dispatcher/dispatcher.js'
import { Agent } from '../dispatcher/agent.js'
import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError, LibraryError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { copyOptions } from '../runtime/copy-options.js'
import { matchValue } from './mock-matching.js'
import type { Matcher } from './mock-matching.js'
import { kMockAgentHooks } from './mock-dispatcher.js'
import type { MockAgentHooks, MockDispatcher } from './mock-dispatcher.js'
import { MockPool } from './mock-pool.js'
import { MockClient } from './mock-client.js'
import { MockCallHistory } from './mock-call-history.js'
import { PendingInterceptorsFormatter } from './pending-table.js'
import type { PendingInterceptor, PendingReplyData } from './pending-table.js'
import { ResponsePlayer } from '../replay/response-player.js'
import type { MockDispatchList, MockReplySpec } from './mock-scope.js'
import type * as pendingTable from './pending-table.js'

/** The registered reply in the shape undici's `pendingInterceptors()` entries carry as `data`. */
function pendingReplyData (reply: MockReplySpec): PendingReplyData {
  switch (reply.kind) {
    case 'error': return { error: reply.error }
    case 'callback': return { error: null, callback: reply.produce }
    case 'static': return { error: null, statusCode: reply.statusCode, data: reply.data, headers: reply.headers, trailers: reply.trailers }
  }
}

/** Options of {@link MockAgent}; anything else is passed to the real {@link Agent} it creates. */
export interface MockAgentOptions {
  /** The dispatcher unmatched (or all, after `deactivate()`) requests go to; by default a new `Agent`, created on first use. */
  agent?: Dispatcher | undefined
  /**
   * `1` makes `get()` return {@link MockClient}s instead of {@link MockPool}s.
   * @defaultValue unset
   */
  connections?: number | undefined
  /**
   * Record every request in the call history from the start.
   * @defaultValue `false`
   */
  enableCallHistory?: boolean | undefined
  /**
   * Treat `/a/` and `/a` as the same path in every interceptor.
   * @defaultValue `false`
   */
  ignoreTrailingSlash?: boolean | undefined
  /**
   * Read `a[]=1&a[]=2` and `a=1,2` query strings as `a=1&a=2` before matching.
   * @defaultValue `false`
   */
  acceptNonStandardSearchParameters?: boolean | undefined
  /** Options of the real agent. */
  [option: string]: unknown
}

/** undici's name for what `MockAgent.get()` returns: a mock dispatcher that takes `intercept()`. */
export type Interceptable = MockPool | MockClient

/** An origin given to `get()`: exact (string or URL), a RegExp, or a predicate. */
export type MockOrigin = string | URL | RegExp | ((origin: string) => boolean)

const MOCK_OPTIONS = ['agent', 'enableCallHistory', 'ignoreTrailingSlash', 'acceptNonStandardSearchParameters'] as const

function checkBoolean (opts: MockAgentOptions, name: typeof MOCK_OPTIONS[number]): boolean {
  const value = opts[name]
  if (value !== undefined && typeof value !== 'boolean') {
    throw new InvalidArgumentError(`MockAgent: ${name} must be a boolean, got ${describeValue(value)}`)
  }
  return value === true
}

/** Origins compare by scheme, host and port: `HTTP://Example.org:80/` is `http://example.org`. */
export function normalizeOrigin (origin: string | URL): string {
  if (origin instanceof URL) return origin.origin
  try {
    const parsed = new URL(origin)
    return parsed.origin === 'null' ? origin.toLowerCase() : parsed.origin
  } catch {
    return origin.toLowerCase()
  }
}

/**
 * A dispatcher for tests: `get(origin).intercept(...).reply(...)` registers answers; requests
 * that match none go to a real agent while net connect allows it (it does until
 * `disableNetConnect()`), otherwise they fail with `MockNotMatchedError`.
 * @example
 * const mockAgent = new MockAgent()
 * mockAgent.disableNetConnect()
 * mockAgent.get('http://127.0.0.1:3000').intercept({ path: '/users' }).reply(200, [{ id: 1 }])
 * const { body } = await mockAgent.request({ origin: 'http://127.0.0.1:3000', path: '/users' })
 * await body.json() // [{ id: 1 }]
 */
export class MockAgent extends DispatcherBase {
  readonly #pools = new Map<string | RegExp | ((origin: string) => boolean), MockPool | MockClient>()
  readonly #agentOptions: Record<string, unknown>
  readonly #singleConnection: boolean
  readonly #ignoreTrailingSlash: boolean
  #real: Dispatcher | undefined
  #netConnect: boolean | Matcher[] = true
  #active = true
  #historyEnabled: boolean
  #history: MockCallHistory | undefined
  readonly #hooks: MockAgentHooks

  constructor (opts: MockAgentOptions = {}) {
    super()
    if (opts === null || typeof opts !== 'object') {
      throw new InvalidArgumentError(`MockAgent: options must be an object, got ${describeValue(opts)}`)
    }
    if (opts.agent !== undefined && (opts.agent === null || typeof opts.agent !== 'object' || typeof opts.agent.dispatch !== 'function')) {
      throw new InvalidArgumentError('MockAgent: agent must be a dispatcher (an object with a dispatch method)')
    }
    this.#historyEnabled = checkBoolean(opts, 'enableCallHistory')
    this.#ignoreTrailingSlash = checkBoolean(opts, 'ignoreTrailingSlash')
    const acceptNonStandardSearchParameters = checkBoolean(opts, 'acceptNonStandardSearchParameters')
    this.#singleConnection = opts.connections === 1
    this.#real = opts.agent
    const agentOptions: Record<string, unknown> = { ...opts }
    for (const name of MOCK_OPTIONS) delete agentOptions[name]
    this.#agentOptions = agentOptions
    if (this.#historyEnabled) this.#history = new MockCallHistory()
    this.#hooks = {
      isMockActive: () => this.#active,
      netConnectRefusal: (origin) => this.#netConnectRefusal(origin),
      passthrough: (dispatchOpts, handler) => this.#realAgent().dispatch(dispatchOpts, handler),
      fallbackDispatches: (origin) => this.#fallbackDispatches(origin),
      acceptNonStandardSearchParameters,
      forget: (pool) => {
        for (const [key, value] of this.#pools) if (value === pool) this.#pools.delete(key)
      }
    }
  }

  /** @internal What the mock pools of this agent ask of it. */
  get [kMockAgentHooks] (): MockAgentHooks {
    return this.#hooks
  }

  #realAgent (): Dispatcher {
    this.#real ??= new Agent(this.#agentOptions)
    return this.#real
  }

  #create (origin: string): MockPool | MockClient {
    const opts = { agent: this, ignoreTrailingSlash: this.#ignoreTrailingSlash }
    return this.#singleConnection ? new MockClient(origin, opts) : new MockPool(origin, opts)
  }

  /**
   * The mock pool for `origin` (created on first use). A RegExp or predicate origin gives a pool
   * whose interceptors serve every origin it matches; a request asks the pool of its exact origin
   * first, then those, in the order they were created. The same RegExp object gives the same pool.
   */
  get (origin: MockOrigin): MockPool | MockClient {
    if (typeof origin === 'string' || origin instanceof URL) {
      const key = normalizeOrigin(origin)
      return this.#pools.get(key) ?? this.#remember(key, this.#create(key))
    }
    if (!(origin instanceof RegExp) && typeof origin !== 'function') {
      throw new InvalidArgumentError(`MockAgent.get(): origin must be a string, URL, RegExp or function, got ${describeValue(origin)}`)
    }
    const existing = this.#pools.get(origin)
    if (existing !== undefined) return existing
    return this.#remember(origin, this.#create(String(origin)))
  }

  #remember (key: string | RegExp | ((origin: string) => boolean), pool: MockPool | MockClient): MockPool | MockClient {
    this.#pools.set(key, pool)
    return pool
  }

  #fallbackDispatches (origin: string): MockDispatchList[] {
    const key = normalizeOrigin(origin)
    const lists: MockDispatchList[] = []
    for (const [matcher, pool] of this.#pools) {
      if (typeof matcher !== 'string' && matchValue(matcher, key)) lists.push(pool.mockDispatches)
    }
    return lists
  }

  // Like every mock reply, the refusal arrives after dispatch() returns.
  protected override refuseDispatch (handler: DispatchHandler, err: Error): boolean {
    new ResponsePlayer(handler).runError(err)
    return true
  }

  protected override acceptDispatch (opts: DispatchOptions, h: DispatchHandler): boolean {
    if (typeof opts.origin !== 'string' && !(opts.origin instanceof URL)) {
      throw new InvalidArgumentError(`MockAgent.dispatch(): origin must be a string or URL, got ${describeValue(opts.origin)}`)
    }
    const origin = normalizeOrigin(opts.origin)
    const dispatchOpts = copyOptions(opts)
    dispatchOpts.origin = origin
    if (this.#historyEnabled) (this.#history ??= new MockCallHistory()).add(dispatchOpts)
    return DispatcherBase.forward(this.get(origin), dispatchOpts, h)
  }

  #netConnectRefusal (origin: string): string | null {
    if (this.#netConnect === true) return null
    if (this.#netConnect === false) return 'net connect is disabled'
    let host: string
    try {
      host = new URL(origin).host
    } catch {
      host = origin
    }
    return this.#netConnect.some((matcher) => matchValue(matcher, host)) ? null : `net connect is not enabled for host ${host}`
  }

  /** Sends every request to the interceptors again (after `deactivate()`). */
  activate (): void {
    this.#active = true
  }

  /** Sends every request to the real agent, bypassing the interceptors. */
  deactivate (): void {
    this.#active = false
  }

  /** False after `deactivate()`. */
  get isMockActive (): boolean {
    return this.#active
  }

  /**
   * Lets unmatched requests reach the network: all of them (no argument), or those whose
   * `host:port` matches the string, RegExp or predicate (calls add up).
   */
  enableNetConnect (matcher?: Matcher): void {
    if (matcher === undefined) {
      this.#netConnect = true
      return
    }
    if (typeof matcher !== 'string' && !(matcher instanceof RegExp) && typeof matcher !== 'function') {
      throw new InvalidArgumentError(`MockAgent.enableNetConnect(): matcher must be a string, RegExp or function, got ${describeValue(matcher)}`)
    }
    this.#netConnect = Array.isArray(this.#netConnect) ? [...this.#netConnect, matcher] : [matcher]
  }

  /** Makes every unmatched request fail with `MockNotMatchedError`. */
  disableNetConnect (): void {
    this.#netConnect = false
  }

  /** Starts recording requests in the call history. */
  enableCallHistory (): this {
    this.#historyEnabled = true
    this.#history ??= new MockCallHistory()
    return this
  }

  /** Stops recording requests (the logs so far are kept). */
  disableCallHistory (): this {
    this.#historyEnabled = false
    return this
  }

  /** The call history; undefined until it was enabled once. */
  getCallHistory (): MockCallHistory | undefined {
    return this.#history
  }

  /** Forgets the logged calls. */
  clearCallHistory (): void {
    this.#history?.clear()
  }

  /** Interceptors that expect more requests than they got, with their origin. */
  pendingInterceptors (): PendingInterceptor[] {
    const pending: PendingInterceptor[] = []
    for (const pool of this.#pools.values()) {
      for (const record of pool.mockDispatches.items) {
        if (record.timesInvoked >= record.times) continue
        pending.push({
          origin: pool.origin,
          path: record.key.path,
          method: record.key.method,
          body: record.key.body,
          headers: record.key.headers,
          query: record.query,
          statusCode: record.reply.kind === 'static' ? record.reply.statusCode : undefined,
          error: record.reply.kind === 'error' ? record.reply.error : null,
          times: record.times,
          timesInvoked: record.timesInvoked,
          persist: record.persist,
          delay: record.delay,
          consumed: !record.persist && record.timesInvoked >= record.times,
          ignoreTrailingSlash: record.key.ignoreTrailingSlash,
          pending: true,
          data: pendingReplyData(record.reply)
        })
      }
    }
    return pending
  }

  /** Throws a `LibraryError` listing, as a table, every interceptor still waiting for requests. */
  assertNoPendingInterceptors (options: { pendingInterceptorsFormatter?: { format (pending: PendingInterceptor[]): string } } = {}): void {
    const pending = this.pendingInterceptors()
    if (pending.length === 0) return
    const formatter = options.pendingInterceptorsFormatter ?? new PendingInterceptorsFormatter()
    const title = pending.length === 1 ? '1 interceptor is pending:' : `${pending.length} interceptors are pending:`
    throw new LibraryError(`${title}\n\n${formatter.format(pending)}`.trim())
  }

  /** Closes every mock pool (waiting for replies in flight) and the real agent, and clears the call history. */
  protected override async closeGracefully (): Promise<void> {
    this.clearCallHistory()
    await Promise.all([...new Set(this.#pools.values())].map((pool) => pool.close()))
    this.#pools.clear()
    await this.#real?.close()
  }

  /** Fails every reply in flight with `err` and destroys the mock pools and the real agent. */
  protected override async destroyNow (err: Error): Promise<void> {
    await Promise.all([...new Set(this.#pools.values())].map((pool) => pool.destroy(err)))
    this.#pools.clear()
    await this.#real?.destroy(err)
  }
}

/** undici's names for the MockAgent's types (`MockAgent.Options`). */
export declare namespace MockAgent {
  /** {@link MockAgentOptions}. */
  export type Options = MockAgentOptions
  /** {@link pendingTable.PendingInterceptor}. */
  export type PendingInterceptor = pendingTable.PendingInterceptor
  /** {@link pendingTable.PendingInterceptorsFormatter}. */
  export type PendingInterceptorsFormatter = InstanceType<typeof pendingTable.PendingInterceptorsFormatter>
}
