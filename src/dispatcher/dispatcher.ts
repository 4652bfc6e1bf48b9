/**
 * The dispatcher contract and its one lifecycle: {@link Dispatcher} (what every dispatcher
 * offers, the request-level APIs `request`, `stream`, `pipeline`, `connect`, `upgrade` included), {@link DispatcherBase} (close/destroy in both calling forms, closed and destroyed
 * state, refusal after close, the handler adapted once) and {@link ComposedDispatcher}.
 * They share a file because `compose()` builds a dispatcher that is itself built on the base.
 * @module
 */

import { EventEmitter } from 'node:events'
import type { Dispatch, DispatchHandler, DispatchLifecycle, DispatchOptions, Interceptor, LegacyDispatchHandler } from '../contracts/dispatch-contract.js'
import { toDispatchHandler } from '../handlers/legacy-handler.js'
import { failDispatch } from '../handlers/fail-dispatch.js'
import { copyOptions } from '../runtime/copy-options.js'
import { ClientDestroyedError, NotSupportedError } from '../errors.js'
import type { Duplex } from 'node:stream'
import { request } from '../api/request.js'
import type { RequestCallback, RequestOptions, ResponseData } from '../api/request.js'
import { stream } from '../api/stream.js'
import type { StreamCallback, StreamData, StreamFactory, StreamOptions } from '../api/stream.js'
import { pipeline } from '../api/pipeline.js'
import type { PipelineHandlerFunction, PipelineOptions } from '../api/pipeline.js'
import { connect, upgrade } from '../api/upgrade.js'
import type { UpgradeCallback, UpgradeData, UpgradeOptions } from '../api/upgrade.js'
import { checkCallback, destroyArguments, settleClose } from './close-arguments.js'
import { checkDispatchOptions, closedError } from './dispatch-guards.js'
import type { CloseCallback } from './close-arguments.js'
import { describeValue } from '../validation/describe-value.js'
import { forwardBaseMembers } from './base-members.js'
import type * as contract from '../contracts/dispatch-contract.js'
import type * as requestApi from '../api/request.js'
import type * as streamApi from '../api/stream.js'
import type * as pipelineApi from '../api/pipeline.js'
import type * as upgradeApi from '../api/upgrade.js'
import type { BodyReadable } from '../api/body-readable.js'
import { failOption } from '../validation/options.js'

export type { CloseCallback } from './close-arguments.js'

/**
 * Anything that can dispatch requests. Subclasses implement `dispatch`, `close` and `destroy`;
 * `compose` and `request` come from here. As in undici, the class is not abstract: a subclass
 * may leave out what it never uses, and the base fails it with `NotSupportedError`.
 *
 * Events: `'connect'` (origin, targets), `'disconnect'` (origin, targets, error),
 * `'connectionError'` (origin, targets, error), `'drain'` (origin, targets).
 */
export class Dispatcher extends EventEmitter {
  /**
   * `composed instanceof X` holds when the dispatcher it was composed on is an `X`, as with
   * undici's composed dispatchers (`mockAgent.compose(i) instanceof MockAgent`).
   */
  static override [Symbol.hasInstance] (value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true
    const base = ComposedDispatcher.baseOf(value)
    return base !== undefined && base instanceof this
  }

  /**
   * Starts one request; hooks of `handler` report its progress.
   * Returns false when the dispatcher is busy: the caller should wait for `'drain'`.
   */
  dispatch (_opts: DispatchOptions, _handler: DispatchHandler | LegacyDispatchHandler): boolean {
    throw notImplemented('dispatch')
  }

  /** Stops taking requests and resolves once those in flight have finished. */
  close (): Promise<void>
  close (callback: CloseCallback): void
  close (_callback?: CloseCallback): Promise<void> | void {
    throw notImplemented('close')
  }

  /** Fails every request in flight or queued with `err` (default `ClientDestroyedError`) and closes at once. */
  destroy (err?: Error | null): Promise<void>
  destroy (callback: CloseCallback): void
  destroy (err: Error | null, callback: CloseCallback): void
  destroy (_errOrCallback?: Error | null | CloseCallback, _callback?: CloseCallback): Promise<void> | void {
    throw notImplemented('destroy')
  }

  /**
   * Wraps this dispatcher in interceptors. `compose(a, b)` dispatches through `b(a(base))`:
   * the last one listed sees each request first. Accepts an array too.
   * @example
   * const agent = new Agent().compose(interceptors.retry(), interceptors.debug())
   */
  compose (...interceptors: Array<Interceptor | null | undefined | Array<Interceptor | null | undefined>>): ComposedDispatcher {
    const list = interceptors.length === 1 && Array.isArray(interceptors[0]) ? interceptors[0] : interceptors.flat()
    const { dispatch, lifecycles } = composeChain(this, list)
    return new ComposedDispatcher(this, dispatch, lifecycles)
  }

  /** Sends one request; resolves once the response head arrives (see {@link ResponseData}). */
  request<TOpaque = null> (opts: RequestOptions<TOpaque>): Promise<ResponseData<TOpaque>>
  request<TOpaque = null> (opts: RequestOptions<TOpaque>, callback: RequestCallback<TOpaque>): void
  request (opts: RequestOptions<unknown>, callback?: RequestCallback<unknown>): Promise<ResponseData<unknown>> | void {
    return callback === undefined ? request(this, opts) : request(this, opts, callback)
  }

  /**
   * Sends one request and writes its response body into the Writable `factory` returns;
   * settles with `{ opaque, trailers }` once that Writable finished.
   */
  stream<TOpaque = null> (opts: StreamOptions<TOpaque>, factory: StreamFactory<TOpaque>): Promise<StreamData<TOpaque>>
  stream<TOpaque = null> (opts: StreamOptions<TOpaque>, factory: StreamFactory<TOpaque>, callback: StreamCallback<TOpaque>): void
  stream (opts: StreamOptions<unknown>, factory: StreamFactory<unknown>, callback?: StreamCallback<unknown>): Promise<StreamData<unknown>> | void {
    return callback === undefined ? stream(this, opts, factory) : stream(this, opts, factory, callback)
  }

  /** Sends one request as a Duplex: writes are the request body, reads what `handler` makes of the response. */
  pipeline<TOpaque = null> (opts: PipelineOptions<TOpaque>, handler: PipelineHandlerFunction<TOpaque>): Duplex
  pipeline (opts: PipelineOptions<unknown>, handler: PipelineHandlerFunction<unknown>): Duplex {
    return pipeline(this, opts, handler)
  }

  /** Opens a `CONNECT` tunnel to `opts.path` (`host:port`); settles with the socket. */
  connect<TOpaque = null> (opts: UpgradeOptions<TOpaque>): Promise<UpgradeData<TOpaque>>
  connect<TOpaque = null> (opts: UpgradeOptions<TOpaque>, callback: UpgradeCallback<TOpaque>): void
  connect (opts: UpgradeOptions<unknown>, callback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
    return connect(this, opts, callback)
  }

  /** Asks the server to switch protocols (`opts.protocol`); settles with the socket after 101. */
  upgrade<TOpaque = null> (opts: UpgradeOptions<TOpaque>): Promise<UpgradeData<TOpaque>>
  upgrade<TOpaque = null> (opts: UpgradeOptions<TOpaque>, callback: UpgradeCallback<TOpaque>): void
  upgrade (opts: UpgradeOptions<unknown>, callback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
    return upgrade(this, opts, callback)
  }
}


/** What the base class's `dispatch`, `close` and `destroy` throw when a subclass did not implement them. */
function notImplemented (method: string): NotSupportedError {
  return new NotSupportedError(`Dispatcher: ${method}() is not implemented by this subclass`)
}

/**
 * undici's names for the types of the dispatch contract and the request APIs, reachable where
 * undici's users write them: `Dispatcher.DispatchOptions`, `Dispatcher.DispatchHandler`...
 */
/**
 * Members of every Dispatcher that undici's `Dispatcher` does not declare: optional, so a value
 * typed with undici's class (a Dispatcher of the user's own) is a conduit Dispatcher too.
 */
export interface Dispatcher {
  /**
   * The origin a request goes to when it names none: a Client's or Pool's own, absent on
   * dispatchers that serve many origins. A composed dispatcher fills it in before its
   * interceptors see the request, so they can key by it.
   */
  readonly defaultOrigin?: string | undefined
}

export declare namespace Dispatcher {
  /** A dispatcher wrapped in interceptors by `compose()`. */
  export type ComposedDispatcher = InstanceType<typeof ComposedDispatcher>
  /** {@link contract.Dispatch}. */
  export type Dispatch = contract.Dispatch
  /** An interceptor as `compose()` takes it: {@link contract.Interceptor}. */
  export type DispatcherComposeInterceptor = contract.Interceptor
  /** {@link contract.Interceptor}. */
  export type DispatchInterceptor = contract.Interceptor
  /** {@link contract.DispatchOptions}. */
  export type DispatchOptions = contract.DispatchOptions
  /** {@link contract.DispatchHandler}. */
  export type DispatchHandler = contract.DispatchHandler
  /** {@link contract.DispatchController}. */
  export type DispatchController = contract.DispatchController
  /** {@link contract.HttpMethod}. */
  export type HttpMethod = contract.HttpMethod
  /** The body-reading methods of a response body ({@link BodyReadable}). */
  export type BodyMixin = Pick<BodyReadable, 'bodyUsed' | 'arrayBuffer' | 'blob' | 'bytes' | 'json' | 'text'>
  /** {@link requestApi.RequestOptions}. */
  export type RequestOptions<TOpaque = null> = requestApi.RequestOptions<TOpaque>
  /** {@link requestApi.ResponseData}. */
  export type ResponseData<TOpaque = null> = requestApi.ResponseData<TOpaque>
  /** {@link streamApi.StreamFactory}. */
  export type StreamFactory<TOpaque = null> = streamApi.StreamFactory<TOpaque>
  /** {@link streamApi.StreamFactoryData}. */
  export type StreamFactoryData<TOpaque = null> = streamApi.StreamFactoryData<TOpaque>
  /** {@link streamApi.StreamData}. */
  export type StreamData<TOpaque = null> = streamApi.StreamData<TOpaque>
  /** {@link pipelineApi.PipelineOptions}. */
  export type PipelineOptions<TOpaque = null> = pipelineApi.PipelineOptions<TOpaque>
  /** {@link pipelineApi.PipelineHandlerData}. */
  export type PipelineHandlerData<TOpaque = null> = pipelineApi.PipelineHandlerData<TOpaque>
  /** {@link pipelineApi.PipelineHandlerFunction}. */
  export type PipelineHandler<TOpaque = null> = pipelineApi.PipelineHandlerFunction<TOpaque>
  /** The options of `connect()`: {@link upgradeApi.UpgradeOptions}. */
  export type ConnectOptions<TOpaque = null> = upgradeApi.UpgradeOptions<TOpaque>
  /** What `connect()` settles with: {@link upgradeApi.UpgradeData}. */
  export type ConnectData<TOpaque = null> = upgradeApi.UpgradeData<TOpaque>
  /** {@link upgradeApi.UpgradeOptions}. */
  export type UpgradeOptions = upgradeApi.UpgradeOptions
  /** {@link upgradeApi.UpgradeData}. */
  export type UpgradeData<TOpaque = null> = upgradeApi.UpgradeData<TOpaque>
}

/** A dispatch chain built by {@link composeChain}: its entry and the lifecycles of its interceptors. */
export interface ComposedChain {
  /** Dispatches through every interceptor, then the base. */
  dispatch: Dispatch
  /** Hooks of the interceptors that want to hear about close/destroy, innermost first. */
  lifecycles: DispatchLifecycle[]
}

/**
 * Wraps `base` in `interceptors` (the last one sees each request first). The handler entering
 * the chain was adapted at the public `dispatch()`; inside, every layer trusts the contract.
 * @throws TypeError when an interceptor is not a function or does not return one
 */
export function composeChain (base: Dispatcher, interceptors: ReadonlyArray<Interceptor | Interceptor[] | null | undefined>): ComposedChain {
  const lifecycles: DispatchLifecycle[] = []
  let dispatch: Dispatch = (opts, handler) => DispatcherBase.forward(base, opts, handler)
  for (let i = 0; i < interceptors.length; i++) {
    const interceptor = interceptors[i]
    // As with undici, null and undefined entries are skipped (a conditional `cond && interceptor`).
    if (interceptor == null) continue
    if (typeof interceptor !== 'function') {
      failOption('compose', `interceptor at index ${i}`, 'a function', interceptor, { error: TypeError })
    }
    const wrapped: unknown = interceptor(acceptingEitherShape(dispatch))
    if (typeof wrapped !== 'function') {
      throw new TypeError(`compose: interceptor at index ${i} must return a dispatch function, got ${describeValue(wrapped)}`)
    }
    dispatch = wrapped as Dispatch
    const lifecycle = wrapped as DispatchLifecycle
    // An interceptor may hand back the dispatch it was given; its hooks are still told only once.
    if ((typeof lifecycle.onClose === 'function' || typeof lifecycle.onDestroy === 'function') && !lifecycles.includes(lifecycle)) lifecycles.push(lifecycle)
  }
  return { dispatch, lifecycles }
}

/**
 * `dispatch` for an interceptor to call: an interceptor written for undici 6 or 7 hands on a
 * handler of the older shape (onConnect/onHeaders/...), which is adapted here; a handler of the
 * contract, what every other interceptor passes, goes on as it is after one property check.
 */
function acceptingEitherShape (dispatch: Dispatch): Dispatch {
  return (opts, handler) => dispatch(opts, typeof handler.onRequestStart === 'function' || typeof handler.onResponseStart === 'function' ? handler : toDispatchHandler(handler))
}

/**
 * The lifecycle every conduit dispatcher shares. The public `dispatch()` adapts the handler once
 * (the older shape included), checks the options and refuses requests once closed; subclasses
 * implement what is their own: taking a request, closing gracefully, destroying.
 */
export abstract class DispatcherBase extends Dispatcher {
  #closed = false
  #destroyed = false
  #closing: Promise<void> | null = null
  #destroying: Promise<void> | null = null

  /** True once `close()` or `destroy()` was called. */
  get closed (): boolean { return this.#closed }
  /** True once `destroy()` was called or `close()` has completed. */
  get destroyed (): boolean { return this.#destroyed }

  override dispatch (opts: DispatchOptions, handler: DispatchHandler | LegacyDispatchHandler): boolean {
    const h = toDispatchHandler(handler)
    checkDispatchOptions(opts)
    return this.#admit(opts, h)
  }

  #admit (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (this.#closed) return this.refuseDispatch(handler, closedError(this.#destroyed))
    return this.acceptDispatch(opts, handler)
  }

  /**
   * Dispatches to `target` from inside conduit, where the handler is already on the contract:
   * a conduit dispatcher that keeps the shared `dispatch()` is entered past the adapter.
   */
  static forward (target: Dispatcher, opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (#admit in target && target.dispatch === DispatcherBase.prototype.dispatch) return target.#admit(opts, handler)
    return target.dispatch(opts, handler)
  }

  /** Takes one request whose handler and options were checked; returns false when busy. */
  protected abstract acceptDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean

  /** Ends a request made after close or destroy; by default through the handler, returning false. */
  protected refuseDispatch (handler: DispatchHandler, err: Error): boolean {
    return failDispatch(handler, err)
  }

  /** Lets the requests in flight finish, then releases everything; called once. */
  protected abstract closeGracefully (): Promise<void>

  /** Fails every request with `err` and releases everything at once; called once. */
  protected abstract destroyNow (err: Error): Promise<void>

  /** Stops taking requests and resolves once those in flight have finished. */
  override close (): Promise<void>
  /** Callback form of `close()`. */
  override close (callback: CloseCallback): void
  override close (callback?: CloseCallback): Promise<void> | void {
    checkCallback(callback, 'close')
    if (this.#destroyed) return settleClose(Promise.reject(new ClientDestroyedError()), callback)
    this.#closed = true
    // As in undici, a dispatcher that has finished closing counts as destroyed: later requests
    // fail with ClientDestroyedError and `destroyed` turns true.
    this.#closing ??= this.closeGracefully().then(() => {
      this.#destroyed = true
      this.#destroying ??= Promise.resolve()
    })
    return settleClose(this.#closing, callback)
  }

  /** Fails every request in flight or queued with `err` (default `ClientDestroyedError`) and closes at once. */
  override destroy (err?: Error | null): Promise<void>
  /** Callback form of `destroy()`. */
  override destroy (callback: CloseCallback): void
  /** Callback form of `destroy(err)`. */
  override destroy (err: Error | null, callback: CloseCallback): void
  override destroy (errOrCallback?: Error | null | CloseCallback, callback?: CloseCallback): Promise<void> | void {
    const args = destroyArguments(errOrCallback, callback)
    if (this.#destroying === null) {
      this.#closed = true
      this.#destroyed = true
      this.#destroying = this.destroyNow(args.err ?? new ClientDestroyedError())
    }
    return settleClose(this.#destroying, args.callback)
  }
}

/**
 * The dispatcher `compose` returns: dispatches through the interceptor chain. Closing it tells
 * the interceptors (outermost first, see {@link DispatchLifecycle}) and then closes the base;
 * its events are the base's, so `'drain'` and backpressure reach the caller.
 */
export class ComposedDispatcher extends DispatcherBase {
  readonly #base: Dispatcher
  readonly #dispatch: Dispatch
  readonly #lifecycles: readonly DispatchLifecycle[]

  /**
   * @param lifecycles - hooks of interceptors that want to hear about close/destroy
   * (outermost last; they are told outermost first).
   */
  constructor (base: Dispatcher, dispatch: Dispatch, lifecycles: readonly DispatchLifecycle[] = []) {
    super()
    this.#base = base
    this.#dispatch = dispatch
    this.#lifecycles = lifecycles
    forwardBaseMembers(this, base)
  }

  /** The dispatcher `value` was composed on, when it is a composed dispatcher. */
  static baseOf (value: unknown): Dispatcher | undefined {
    return typeof value === 'object' && value !== null && #base in value ? value.#base : undefined
  }

  /** The dispatcher this one was composed on. */
  get base (): Dispatcher {
    return this.#base
  }

  override get defaultOrigin (): string | undefined {
    return this.#base.defaultOrigin
  }

  protected override acceptDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    const origin = this.#base.defaultOrigin
    if (origin !== undefined && opts.origin == null) {
      opts = copyOptions(opts)
      opts.origin = origin
    }
    return this.#dispatch(opts, handler)
  }

  protected override async closeGracefully (): Promise<void> {
    for (let i = this.#lifecycles.length - 1; i >= 0; i--) await this.#lifecycles[i]!.onClose?.()
    await this.#base.close()
  }

  protected override destroyNow (err: Error): Promise<void> {
    for (let i = this.#lifecycles.length - 1; i >= 0; i--) this.#lifecycles[i]!.onDestroy?.(err)
    return this.#base.destroy(err)
  }

  // Events belong to the base, so a listener added here sees the base's 'drain' and 'connect'.
  override on (event: string | symbol, listener: (...args: any[]) => void): this { this.#base.on(event, listener); return this }
  override addListener (event: string | symbol, listener: (...args: any[]) => void): this { this.#base.addListener(event, listener); return this }
  override once (event: string | symbol, listener: (...args: any[]) => void): this { this.#base.once(event, listener); return this }
  override prependListener (event: string | symbol, listener: (...args: any[]) => void): this { this.#base.prependListener(event, listener); return this }
  override off (event: string | symbol, listener: (...args: any[]) => void): this { this.#base.off(event, listener); return this }
  override removeListener (event: string | symbol, listener: (...args: any[]) => void): this { this.#base.removeListener(event, listener); return this }
  override removeAllListeners (event?: string | symbol): this { this.#base.removeAllListeners(event); return this }
  override listenerCount (event: string | symbol): number { return this.#base.listenerCount(event) }
  override listeners (event: string | symbol): Function[] { return this.#base.listeners(event) }
  override emit (event: string | symbol, ...args: unknown[]): boolean { return this.#base.emit(event, ...args) }
}
