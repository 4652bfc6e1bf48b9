/**
 * The Dispatcher base: dispatch/close/destroy, `compose` for interceptors, and the request-level
 * APIs (`request`, `stream`, `pipeline`, `connect`, `upgrade`).
 * @module
 */

import { EventEmitter } from 'node:events'
import type { Dispatch, DispatchHandler, DispatchLifecycle, DispatchOptions, Interceptor, LegacyDispatchHandler } from '../handler.js'
import { toDispatchHandler } from '../handler.js'
import { ClientDestroyedError } from '../errors.js'
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
import type { CloseCallback } from './close-arguments.js'
import { describeValue } from '../validation/describe-value.js'

export type { CloseCallback } from './close-arguments.js'

/**
 * Anything that can dispatch requests. Subclasses implement `dispatch`, `close` and `destroy`;
 * `compose` and `request` come from here.
 *
 * Events: `'connect'` (origin, targets), `'disconnect'` (origin, targets, error),
 * `'connectionError'` (origin, targets, error), `'drain'` (origin, targets).
 */
export abstract class Dispatcher extends EventEmitter {
  /**
   * Starts one request; hooks of `handler` report its progress.
   * Returns false when the dispatcher is busy: the caller should wait for `'drain'`.
   */
  abstract dispatch (opts: DispatchOptions, handler: DispatchHandler | LegacyDispatchHandler): boolean

  /** Stops taking requests and resolves once those in flight have finished. */
  abstract close (): Promise<void>
  abstract close (callback: CloseCallback): void

  /** Fails every request in flight or queued with `err` (default `ClientDestroyedError`) and closes at once. */
  abstract destroy (err?: Error | null): Promise<void>
  abstract destroy (callback: CloseCallback): void
  abstract destroy (err: Error | null, callback: CloseCallback): void

  /**
   * Wraps this dispatcher in interceptors. `compose(a, b)` dispatches through `b(a(base))`:
   * the last one listed sees each request first. Accepts an array too.
   * @example
   * const agent = new Agent().compose(interceptors.retry(), interceptors.debug())
   */
  compose (...interceptors: Array<Interceptor | null | undefined | Array<Interceptor | null | undefined>>): ComposedDispatcher {
    // As with undici, null and undefined entries are skipped (a conditional `cond && interceptor`).
    const list = interceptors.length === 1 && Array.isArray(interceptors[0]) ? interceptors[0] : interceptors.flat()
    const base = this
    const lifecycles: DispatchLifecycle[] = []
    let dispatch: Dispatch = (opts, handler) => base.dispatch(opts, handler)
    for (let i = 0; i < list.length; i++) {
      const interceptor = list[i]
      if (interceptor == null) continue
      if (typeof interceptor !== 'function') {
        throw new TypeError(`compose: interceptor at index ${i} must be a function, got ${describeValue(interceptor)}`)
      }
      const inner = dispatch
      const wrapped: unknown = interceptor((opts, handler) => inner(opts, toDispatchHandler(handler)))
      if (typeof wrapped !== 'function') {
        throw new TypeError(`compose: interceptor at index ${i} must return a dispatch function, got ${describeValue(wrapped)}`)
      }
      dispatch = wrapped as Dispatch
      const lifecycle = wrapped as DispatchLifecycle
      if (typeof lifecycle.onClose === 'function' || typeof lifecycle.onDestroy === 'function') lifecycles.push(lifecycle)
    }
    return new ComposedDispatcher(this, dispatch, lifecycles)
  }

  /** Sends one request; resolves once the response head arrives (see {@link ResponseData}). */
  request (opts: RequestOptions): Promise<ResponseData>
  request (opts: RequestOptions, callback: RequestCallback): void
  request (opts: RequestOptions, callback?: RequestCallback): Promise<ResponseData> | void {
    return callback === undefined ? request(this, opts) : request(this, opts, callback)
  }

  /**
   * Sends one request and writes its response body into the Writable `factory` returns;
   * settles with `{ opaque, trailers }` once that Writable finished.
   */
  stream (opts: StreamOptions, factory: StreamFactory): Promise<StreamData>
  stream (opts: StreamOptions, factory: StreamFactory, callback: StreamCallback): void
  stream (opts: StreamOptions, factory: StreamFactory, callback?: StreamCallback): Promise<StreamData> | void {
    return callback === undefined ? stream(this, opts, factory) : stream(this, opts, factory, callback)
  }

  /** Sends one request as a Duplex: writes are the request body, reads what `handler` makes of the response. */
  pipeline (opts: PipelineOptions, handler: PipelineHandlerFunction): Duplex {
    return pipeline(this, opts, handler)
  }

  /** Opens a `CONNECT` tunnel to `opts.path` (`host:port`); settles with the socket. */
  connect (opts: UpgradeOptions): Promise<UpgradeData>
  connect (opts: UpgradeOptions, callback: UpgradeCallback): void
  connect (opts: UpgradeOptions, callback?: UpgradeCallback): Promise<UpgradeData> | void {
    return connect(this, opts, callback)
  }

  /** Asks the server to switch protocols (`opts.protocol`); settles with the socket after 101. */
  upgrade (opts: UpgradeOptions): Promise<UpgradeData>
  upgrade (opts: UpgradeOptions, callback: UpgradeCallback): void
  upgrade (opts: UpgradeOptions, callback?: UpgradeCallback): Promise<UpgradeData> | void {
    return upgrade(this, opts, callback)
  }
}

/**
 * The dispatcher `compose` returns: dispatches through the interceptor chain; its close, destroy
 * and events are the base dispatcher's, so `'drain'` and backpressure reach the caller.
 */
export class ComposedDispatcher extends Dispatcher {
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
  }

  /** The dispatcher this one was composed on. */
  get base (): Dispatcher {
    return this.#base
  }

  override dispatch (opts: DispatchOptions, handler: DispatchHandler | LegacyDispatchHandler): boolean {
    return this.#dispatch(opts, toDispatchHandler(handler))
  }

  override close (): Promise<void>
  override close (callback: CloseCallback): void
  override close (callback?: CloseCallback): Promise<void> | void {
    if (this.#lifecycles.length === 0) return callback ? this.#base.close(callback) : this.#base.close()
    checkCallback(callback, 'close')
    return settleClose(this.#closeInterceptors().then(() => this.#base.close()), callback)
  }

  async #closeInterceptors (): Promise<void> {
    for (let i = this.#lifecycles.length - 1; i >= 0; i--) await this.#lifecycles[i]!.onClose?.()
  }

  override destroy (err?: Error | null): Promise<void>
  override destroy (callback: CloseCallback): void
  override destroy (err: Error | null, callback: CloseCallback): void
  override destroy (errOrCallback?: Error | null | CloseCallback, callback?: CloseCallback): Promise<void> | void {
    const { err, callback: cb } = destroyArguments(errOrCallback, callback)
    const reason = err ?? new ClientDestroyedError()
    for (let i = this.#lifecycles.length - 1; i >= 0; i--) this.#lifecycles[i]!.onDestroy?.(reason)
    return cb === undefined ? this.#base.destroy(err) : this.#base.destroy(err, cb)
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
