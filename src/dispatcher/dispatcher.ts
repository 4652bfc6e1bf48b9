/**
 * The Dispatcher base: dispatch/close/destroy, `compose` for interceptors, and `request`.
 * @module
 */

import { EventEmitter } from 'node:events'
import type { Dispatch, DispatchHandler, DispatchLifecycle, DispatchOptions, Interceptor, LegacyDispatchHandler } from '../handler.js'
import { toDispatchHandler } from '../handler.js'
import { ClientDestroyedError } from '../errors.js'
import { request } from '../api/request.js'
import type { RequestOptions, ResponseData } from '../api/request.js'
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

  /**
   * The origin a request goes to when it names none: a Client's or Pool's own, undefined for
   * dispatchers that serve many origins. A composed dispatcher fills it in before its
   * interceptors see the request, so they can key by it.
   */
  get defaultOrigin (): string | undefined {
    return undefined
  }

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
  compose (...interceptors: Array<Interceptor | Interceptor[]>): ComposedDispatcher {
    const list = interceptors.length === 1 && Array.isArray(interceptors[0]) ? interceptors[0] : interceptors.flat()
    const base = this
    const lifecycles: DispatchLifecycle[] = []
    let dispatch: Dispatch = (opts, handler) => base.dispatch(opts, handler)
    for (let i = 0; i < list.length; i++) {
      const interceptor = list[i]
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
  request (opts: RequestOptions, callback: (err: Error | null, data?: ResponseData) => void): void
  request (opts: RequestOptions, callback?: (err: Error | null, data?: ResponseData) => void): Promise<ResponseData> | void {
    return request(this, opts, callback as (err: Error | null, data?: ResponseData) => void)
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

  override get defaultOrigin (): string | undefined {
    return this.#base.defaultOrigin
  }

  override dispatch (opts: DispatchOptions, handler: DispatchHandler | LegacyDispatchHandler): boolean {
    const origin = this.#base.defaultOrigin
    if (origin !== undefined && typeof opts === 'object' && opts !== null && opts.origin == null) opts = { ...opts, origin }
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
