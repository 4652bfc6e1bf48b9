/**
 * `dispatcher.stream()`: the response body goes straight into a Writable the caller's factory
 * returns once the head arrives, with backpressure, and no intermediate body stream.
 * @module
 */

import type { RequestTimings } from '../contracts/request-timings.js'
import { finished } from 'node:stream'
import type { Writable } from 'node:stream'
import type { DispatchController, DispatchOptions, DispatchTarget, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { SimpleController } from '../handlers/simple-controller.js'
import { InvalidArgumentError, InvalidReturnValueError } from '../errors.js'
import { abortReason } from './abort-signal.js'
import { describeValue } from '../validation/describe-value.js'
import { toDispatchOptions, withMethod } from './api-options.js'
import { ApiHandler } from './api-handler.js'
import { destroyRequestBody } from './request-body.js'
import { callUserCode } from '../connection/user-callback.js'
import type { RequestOptions } from './request.js'
import { queueMicrotask } from '../runtime/timers.js'

/** Options of `stream()`: those of `request()`; `highWaterMark` is unused (the Writable has its own). */
export type StreamOptions<TOpaque = null> = RequestOptions<TOpaque>

/** What the factory of `stream()` receives once the response head arrived; `TOpaque` is the type of the `opaque` option. */
export interface StreamFactoryData<TOpaque = null> {
  /** Response status code. */
  statusCode: number
  /** Response headers, lower-case names. */
  headers: IncomingHeaders
  /** The `opaque` option, handed back (null when none was given). */
  opaque: TOpaque
  /** Per-dispatch context from the dispatcher. */
  context: unknown
  /**
   * Where the request's time went: filled in as it happens (the download's end once the body
   * ended); null when no connection produced the response. Built on first read.
   */
  readonly timings: RequestTimings | null
}

/** {@link StreamFactoryData} with `timings` read from the controller when asked. */
class StreamResponseData implements StreamFactoryData<unknown> {
  statusCode: number
  headers: IncomingHeaders
  opaque: unknown
  context: unknown
  readonly #controller: DispatchController

  constructor (controller: DispatchController, statusCode: number, headers: IncomingHeaders, opaque: unknown, context: unknown) {
    this.statusCode = statusCode
    this.headers = headers
    this.opaque = opaque
    this.context = context
    this.#controller = controller
  }

  get timings (): RequestTimings | null {
    return this.#controller.timings ?? null
  }
}

/** Builds the Writable the response body is written to. */
export type StreamFactory<TOpaque = null> = (data: StreamFactoryData<TOpaque>) => Writable

/** What `stream()` resolves with once the Writable finished; `TOpaque` is the type of the `opaque` option. */
export interface StreamData<TOpaque = null> {
  /** The `opaque` option, handed back (null when none was given). */
  opaque: TOpaque
  /** Response trailers (empty when the server sent none). */
  trailers: IncomingHeaders
}

/** Callback of `stream()`: the data once the Writable finished, or an error (then with `{ opaque }` only). */
export type StreamCallback<TOpaque = null> = (err: Error | null, data: StreamData<TOpaque>) => void

function isWritable (value: unknown): value is Writable {
  const w = value as Partial<Writable> | null
  return w !== null && typeof w === 'object' && typeof w.write === 'function' && typeof w.end === 'function' && typeof w.on === 'function'
}

/** The handler behind `stream()`. */
class StreamHandler extends ApiHandler {
  #factory: StreamFactory<unknown> | null
  #callback: StreamCallback<unknown> | null
  #writable: Writable | null = null
  #trailers: IncomingHeaders = {}

  constructor (opts: StreamOptions<unknown>, factory: StreamFactory<unknown>, callback: StreamCallback<unknown>) {
    super('stream()', opts)
    if (typeof factory !== 'function') throw new InvalidArgumentError(`stream(): factory must be a function, got ${describeValue(factory)}`)
    this.#factory = factory
    this.#callback = callback
  }

  protected override onSignalAbort (reason: Error): void {
    super.onSignalAbort(reason)
    this.#writable?.destroy(reason)
  }

  #settle (err: Error | null): void {
    const callback = this.#callback
    if (callback === null) return
    this.#callback = null
    const opaque = this.opaque
    if (err !== null) queueMicrotask(() => callback(err, { opaque } as StreamData<unknown>))
    else callUserCode(callback, null, { opaque, trailers: this.#trailers })
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    if (statusCode < 200) {
      this.onResponseInformation(controller, statusCode, headers)
      return
    }
    const factory = this.#factory
    this.#factory = null
    if (factory === null) return
    this.startDownload(statusCode, headers)
    let writable: unknown
    try {
      writable = factory(new StreamResponseData(controller, statusCode, headers, this.opaque, this.context))
    } catch (err) {
      // As with undici, a factory that throws fails the request with its own error.
      controller.abort(err as Error)
      return
    }
    if (!isWritable(writable)) {
      controller.abort(new InvalidReturnValueError(`stream(): the factory must return a Writable, got ${describeValue(writable)}`))
      return
    }
    this.#writable = writable
    finished(writable, { readable: false }, (err) => {
      this.#writable = null
      this.stopWatchingSignal()
      if (err != null) {
        if (!writable.destroyed) writable.destroy(err)
        controller.abort(err)
      }
      this.#settle(err ?? null)
    })
    writable.on('drain', () => controller.resume())
    if (writable.writableNeedDrain) controller.pause()
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (!this.countDownload(controller, chunk.length)) return
    const writable = this.#writable
    if (writable !== null && !writable.write(chunk)) controller.pause()
  }

  onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (!this.finishDownload(controller)) return
    if (trailers !== null && typeof trailers === 'object') Object.assign(this.#trailers, trailers)
    if (this.#writable !== null) this.#writable.end()
    else {
      this.stopWatchingSignal()
      this.#settle(null)
    }
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#factory = null
    destroyRequestBody((this.opts as StreamOptions<unknown>).body, error)
    const writable = this.#writable
    if (writable !== null) {
      // finished() reports the error through the callback.
      if (!writable.destroyed) writable.destroy(error)
      return
    }
    this.stopWatchingSignal()
    this.#settle(error)
  }
}

/**
 * Sends a request and writes its response body into the Writable that `factory` returns;
 * resolves (or calls back) with `{ opaque, trailers }` once that Writable finished.
 * @example
 * const chunks = []
 * await agent.stream({ origin, path: '/', method: 'GET' }, () => new Writable({
 *   write (chunk, _encoding, done) { chunks.push(chunk); done() }
 * }))
 */
export function stream<TOpaque = null> (dispatcher: DispatchTarget, opts: StreamOptions<TOpaque>, factory: StreamFactory<TOpaque>): Promise<StreamData<TOpaque>>
export function stream<TOpaque = null> (dispatcher: DispatchTarget, opts: StreamOptions<TOpaque>, factory: StreamFactory<TOpaque>, callback: StreamCallback<TOpaque>): void
export function stream (dispatcher: DispatchTarget, opts: StreamOptions<unknown>, factory: StreamFactory<unknown>, callback?: StreamCallback<unknown>): Promise<StreamData<unknown>> | void {
  if (callback === undefined) {
    return new Promise((resolve, reject) => {
      stream(dispatcher, opts, factory, (err, data) => { err !== null ? reject(err) : resolve(data) })
    })
  }
  if (typeof callback !== 'function') {
    throw new InvalidArgumentError(`stream(): callback must be a function, got ${describeValue(callback)}`)
  }
  if (opts === null || typeof opts !== 'object') {
    queueMicrotask(() => callback(new InvalidArgumentError(`stream(): options must be an object, got ${describeValue(opts)}`), { opaque: undefined } as StreamData<unknown>))
    return
  }
  let handler: StreamHandler
  try {
    handler = new StreamHandler(opts, factory, callback)
  } catch (err) {
    destroyRequestBody(opts.body, err as Error)
    queueMicrotask(() => callback(err as Error, { opaque: opts.opaque } as StreamData<unknown>))
    return
  }
  if (opts.signal?.aborted === true) {
    // Nothing is sent; as undici 8 does, the request fails with the signal's reason (its own abort error when the signal gives none).
    handler.onResponseError(new SimpleController(), abortReason(opts.signal))
    return
  }
  const streamOpts = opts.method === undefined ? withMethod(opts, 'GET') : opts
  try {
    dispatcher.dispatch(toDispatchOptions(streamOpts as DispatchOptions), handler)
  } catch (err) {
    handler.onResponseError(new SimpleController(), err as Error)
  }
}
