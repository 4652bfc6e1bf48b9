/**
 * The dispatcher behind {@link MockPool} and {@link MockClient}: answers requests to one origin
 * from its interceptors and hands the rest to the mock agent's real dispatcher when net connect
 * allows it.
 * @module
 */

import { redactHeaders, showRequest } from '../observability/redaction.js'
import { DispatcherBase } from '../dispatcher/dispatcher.js'
import type { Dispatcher } from '../dispatcher/dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { ClientDestroyedError, InvalidArgumentError, MockNotMatchedError } from '../errors.js'
import { normalizeHeaders } from '../handlers/request-headers.js'
import { findMatch, normalizeNonStandardQuery, sortQuery } from './mock-matching.js'
import { serializePathWithQuery } from '../replay/path-with-query.js'
import type { MismatchStage, MockRequestKey } from './mock-matching.js'
import { MockInterceptor } from './mock-interceptor.js'
import type { MockInterceptOptions } from './mock-interceptor.js'
import { MockDispatchList } from './mock-scope.js'
import type { MockDispatchRecord, MockRequestOptions, RegisteredReply } from './mock-scope.js'
import { ResponsePlayer, replyBodyChunks } from '../replay/response-player.js'
import type { PlayedResponse } from '../replay/response-player.js'
import { bodyText, collectBodyChunks, isBufferedBody, replayedChunks } from '../replay/request-body.js'
import { describeValue } from '../validation/describe-value.js'
import { copyOptions } from '../runtime/copy-options.js'

/** What a mock pool asks of its agent (kept off the public surface behind a symbol). */
export interface MockAgentHooks {
  /** False after `deactivate()`: every request goes to the real dispatcher. */
  isMockActive (): boolean
  /** Null when net connect allows `origin`, else why not (for the error message). */
  netConnectRefusal (origin: string): string | null
  /** Sends a request over the network. */
  passthrough (opts: DispatchOptions, handler: DispatchHandler): boolean
  /**
   * The interceptors of the RegExp and function origins that match `origin`, asked after a
   * pool's own, so an exact origin never shares (or lends) the interceptors registered on it.
   */
  fallbackDispatches (origin: string): MockDispatchList[]
  /** Rewrite `a[]=1` and `a=1,2` queries before matching. */
  readonly acceptNonStandardSearchParameters: boolean
  /** The pool closed: the agent drops it, so a later `get()` makes a fresh one. */
  forget (pool: MockDispatcher): void
}

/** The symbol under which a mock agent exposes its {@link MockAgentHooks}. */
export const kMockAgentHooks: unique symbol = Symbol('conduit.mockAgentHooks')

/** Options of a mock pool or client. */
export interface MockPoolOptions {
  /** The mock agent the pool belongs to (any dispatcher works: unmatched requests go to it). */
  agent: Dispatcher
  /**
   * Treat `/a/` and `/a` as the same path in every interceptor of this pool.
   * @defaultValue `false`
   */
  ignoreTrailingSlash?: boolean | undefined
  /** Other pool options are accepted for compatibility and ignored. */
  [option: string]: unknown
}

function hooksOf (agent: Dispatcher): MockAgentHooks {
  const hooks = (agent as unknown as Record<symbol, MockAgentHooks | undefined>)[kMockAgentHooks]
  if (hooks !== undefined) return hooks
  return {
    isMockActive: () => true,
    netConnectRefusal: () => null,
    passthrough: (opts, handler) => agent.dispatch(opts, handler),
    fallbackDispatches: () => [],
    acceptNonStandardSearchParameters: false,
    forget: () => {}
  }
}

function describeMiss (stage: MismatchStage, request: MockRequestKey): string {
  const path = `on path '${request.path}'`
  switch (stage) {
    case 'path': return `path '${request.path}'`
    case 'method': return `method '${request.method}' ${path}`
    case 'body': {
      const body = request.body ?? ''
      return `body '${body.length > 200 ? `${body.slice(0, 200)}...` : body}' ${path}`
    }
    case 'headers': return `headers '${JSON.stringify(redactHeaders(request.headers))}' ${path}`
  }
}

/** Base class of {@link MockPool} and {@link MockClient}. */
export class MockDispatcher extends DispatcherBase {
  readonly #origin: string
  readonly #agent: Dispatcher
  readonly #ignoreTrailingSlash: boolean
  readonly #list = new MockDispatchList()
  readonly #active = new Set<ResponsePlayer>()
  #idle: Array<() => void> = []

  /**
   * @param origin - the origin this pool answers for, e.g. `http://127.0.0.1:3000`
   * @param opts - must name the mock agent as `agent`
   */
  constructor (origin: string, opts: MockPoolOptions) {
    super()
    if (opts === null || typeof opts !== 'object' || opts.agent === null || typeof opts.agent !== 'object' || typeof opts.agent.dispatch !== 'function') {
      throw new InvalidArgumentError('mock pool: opts.agent must be a dispatcher (a MockAgent)')
    }
    if (opts.ignoreTrailingSlash !== undefined && typeof opts.ignoreTrailingSlash !== 'boolean') {
      throw new InvalidArgumentError(`mock pool: ignoreTrailingSlash must be a boolean, got ${describeValue(opts.ignoreTrailingSlash)}`)
    }
    this.#origin = origin
    this.#agent = opts.agent
    this.#ignoreTrailingSlash = opts.ignoreTrailingSlash ?? false
  }

  /** The origin this pool answers for. */
  get origin (): string {
    return this.#origin
  }

  /** @internal The interceptors registered on this pool. */
  get mockDispatches (): MockDispatchList {
    return this.#list
  }

  /**
   * Describes a request to intercept; chain `reply()` on the result.
   * @example
   * mockAgent.get('http://127.0.0.1:3000').intercept({ path: '/health' }).reply(200, 'ok')
   */
  intercept (opts: MockInterceptOptions): MockInterceptor {
    return new MockInterceptor(opts, this.#list, this.#ignoreTrailingSlash)
  }

  /** Removes every interceptor of this pool. */
  cleanMocks (): void {
    this.#list.items.length = 0
  }

  /** This dispatcher's origin, which requests without one go to. */
  override get defaultOrigin (): string {
    return this.#origin
  }

  // Like every mock reply, the refusal arrives after dispatch() returns.
  protected override refuseDispatch (handler: DispatchHandler, err: Error): boolean {
    this.#newReply(handler).runError(err)
    return true
  }

  protected override acceptDispatch (opts: DispatchOptions, h: DispatchHandler): boolean {
    if (typeof opts.path !== 'string') {
      throw new InvalidArgumentError(`dispatch: path must be a string, got ${describeValue(opts.path)}`)
    }
    const hooks = hooksOf(this.#agent)
    const withOrigin = copyOptions(opts)
    withOrigin.origin = opts.origin ?? this.#origin
    if (!hooks.isMockActive()) return hooks.passthrough(withOrigin, h)
    if (isBufferedBody(opts.body)) return this.#route(withOrigin, h, hooks, opts.body == null ? [] : [opts.body])
    // The chunks are kept apart: the handler hears of each, as from a transport writing them.
    collectBodyChunks(opts.body).then(
      (chunks) => { this.#route({ ...withOrigin, body: Buffer.concat(chunks) }, h, hooks, chunks, true) },
      (err: Error) => { this.#newReply(h).runError(err) }
    )
    return true
  }

  #newReply (handler: DispatchHandler): ResponsePlayer {
    const reply: ResponsePlayer = new ResponsePlayer(handler, { onDone: () => this.#settled(reply) })
    this.#active.add(reply)
    return reply
  }

  #settled (reply: ResponsePlayer): void {
    this.#active.delete(reply)
    if (this.#active.size === 0) {
      const idle = this.#idle
      this.#idle = []
      for (const resolve of idle) resolve()
    }
  }

  /**
   * Matchers and reply callbacks are user code and may throw; the handler must still get its
   * one `onResponseError`, also when routing runs in a promise callback after a streamed body.
   */
  #route (opts: DispatchOptions, handler: DispatchHandler, hooks: MockAgentHooks, sentChunks: ReadonlyArray<string | Uint8Array>, streamed = false): boolean {
    try {
      return this.#routeOrThrow(opts, handler, hooks, sentChunks, streamed)
    } catch (err) {
      this.#newReply(handler).runError(err instanceof Error ? err : new Error(String(err)))
      return true
    }
  }

  /**
   * A streamed body (a stream, an iterable) is matched by its bytes; the reply callback gets it
   * as undici gives it, an async iterable of the chunks sent, readable more than once.
   */
  #routeOrThrow (opts: DispatchOptions, handler: DispatchHandler, hooks: MockAgentHooks, sentChunks: ReadonlyArray<string | Uint8Array>, streamed: boolean): boolean {
    if (this.destroyed) {
      this.#newReply(handler).runError(new ClientDestroyedError())
      return true
    }
    let path = serializePathWithQuery(opts.path, opts.query)
    if (hooks.acceptNonStandardSearchParameters) path = normalizeNonStandardQuery(path)
    const body = opts.body as string | Uint8Array | null | undefined
    const request: MockRequestKey = {
      path: sortQuery(path),
      method: typeof opts.method === 'string' ? opts.method : 'GET',
      body: bodyText(body),
      headers: normalizeHeaders(opts.headers)
    }
    const origin = String(opts.origin ?? this.#origin)
    const lists = [...new Set([this.#list, ...hooks.fallbackDispatches(origin)])]
    const found = findMatch(lists.flatMap((list) => list.items), request)
    if (found.match !== undefined) {
      const match = found.match
      lists.find((list) => list.items.includes(match))!.use(match)
      // Its headers and body are replaced just below by the recorded request's.
      const replayed = copyOptions(opts) as MockRequestOptions
      replayed.headers = request.headers
      replayed.body = streamed ? replayedChunks(sentChunks) : request.body
      this.#reply(match, replayed, handler, sentChunks)
      return true
    }
    const refusal = hooks.netConnectRefusal(origin)
    if (refusal === null) return hooks.passthrough(opts, handler)
    let remaining = 0
    let total = 0
    for (const list of lists) {
      remaining += list.items.length
      total += list.total
    }
    const message = `Mock dispatch not matched for ${describeMiss(found.stage, request)}: ` +
      `${showRequest({ method: request.method, origin, path: request.path })} was not allowed (${refusal}), ` +
      `${remaining} interceptor(s) remaining out of ${total} defined`
    this.#newReply(handler).runError(new MockNotMatchedError(message))
    return true
  }

  #reply (record: MockDispatchRecord, opts: MockRequestOptions, handler: DispatchHandler, sentChunks: ReadonlyArray<string | Uint8Array>): void {
    const reply = this.#newReply(handler)
    const spec = record.reply
    if (spec.kind === 'error') {
      // Through run(), so delay() applies to a mocked failure too (a slow network error).
      reply.run(() => { throw spec.error }, record.delay, {}, sentChunks)
      return
    }
    reply.run(async () => {
      const registered = spec.kind === 'static' ? spec : await spec.produce(opts)
      const data: unknown = typeof registered.data === 'function' ? (registered.data as (o: MockRequestOptions) => unknown)(opts) : registered.data
      return toResponse(registered, await data)
    }, record.delay, {}, sentChunks)
  }

  protected override closeGracefully (): Promise<void> {
    const idle = this.#active.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.#idle.push(resolve))
    return idle.then(() => { hooksOf(this.#agent).forget(this) })
  }

  protected override destroyNow (err: Error): Promise<void> {
    for (const reply of [...this.#active]) reply.fail(err)
    this.#active.clear()
    hooksOf(this.#agent).forget(this)
    return Promise.resolve()
  }
}

function toResponse (registered: RegisteredReply, data: unknown): PlayedResponse {
  const body = replyBodyChunks(data)
  const headers = { ...registered.headers }
  if (registered.withLength && Array.isArray(body) && headers['content-length'] === undefined) {
    let length = 0
    for (const chunk of body as Buffer[]) length += chunk.length
    headers['content-length'] = String(length)
  }
  return { statusCode: registered.statusCode, headers, body, trailers: { ...registered.trailers } }
}
