/**
 * `dispatcher.request()`: the promise (or callback) API over `dispatch`.
 * @module
 */

import type { DispatchController, DispatchOptions, DispatchTarget, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { SimpleController } from '../handlers/simple-controller.js'
import { BodyReadable } from './body-readable.js'
import { InvalidArgumentError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { abortReason } from './abort-signal.js'
import type { ApiSignal } from './abort-signal.js'
import { toDispatchOptions, withMethod } from './api-options.js'
import { ApiHandler } from './api-handler.js'
import { destroyRequestBody } from './request-body.js'
import { callUserCode } from '../connection/user-callback.js'
import { queueMicrotask } from '../runtime/timers.js'
import type { TransferProgressOptions } from './transfer-progress.js'
import type { RequestTimings } from '../contracts/request-timings.js'

/** Dispatch options without `signal`, which the request-level APIs accept in more shapes. */
export type DispatchOptionsWithoutSignal = Omit<DispatchOptions, 'signal'>

/** Options of `request()`: dispatch options plus what only the promise API needs. */
export interface RequestOptions<TOpaque = null> extends DispatchOptionsWithoutSignal, TransferProgressOptions {
  /** Any value, handed back as `opaque` on the response (and on errors in the callback form). */
  opaque?: TOpaque
  /**
   * Aborts the request at any stage: before dispatch, while waiting for headers, or while
   * reading the body. An `AbortSignal`, or an EventEmitter that emits `'abort'`.
   */
  signal?: ApiSignal | null | undefined
  /** High-water mark of the body stream in bytes. */
  highWaterMark?: number | undefined
  /** Called for each informational (1xx) response. */
  onInfo?: ((info: { statusCode: number, headers: IncomingHeaders }) => void) | undefined
}

/** What `request()` resolves with once the response head arrives; `TOpaque` is the type of the `opaque` option. */
export interface ResponseData<TOpaque = null> {
  /** Response status code. */
  statusCode: number
  /** Response status message, e.g. `OK`. */
  statusMessage: string | undefined
  /** The same status message, under the name undici users read it by; empty when the response had none (HTTP/2). */
  statusText: string
  /** Response headers, lower-case names. */
  headers: IncomingHeaders
  /** Trailers; filled in when the body ends. */
  trailers: IncomingHeaders
  /** The body stream with one-shot consumers. */
  body: BodyReadable
  /** The `opaque` option, handed back (null when none was given). */
  opaque: TOpaque
  /** Per-dispatch context from the dispatcher (e.g. retry state). */
  context: unknown
  /**
   * Where the request's time went: filled in as it happens, complete once the body ended; null
   * when no connection produced the response (a mock reply, a cache hit). Built on first read.
   */
  readonly timings: RequestTimings | null
}

/**
 * {@link ResponseData} as `request()` makes it: the fields undici's has, in its order, and
 * `timings` read from the controller when asked, so a caller that never reads it pays nothing.
 */
class RequestResponseData implements ResponseData<unknown> {
  statusCode: number
  statusMessage: string | undefined
  statusText: string
  headers: IncomingHeaders
  trailers: IncomingHeaders
  body: BodyReadable
  opaque: unknown
  context: unknown
  readonly #controller: DispatchController

  constructor (controller: DispatchController, statusCode: number, statusMessage: string | undefined, headers: IncomingHeaders, trailers: IncomingHeaders, body: BodyReadable, opaque: unknown, context: unknown) {
    this.statusCode = statusCode
    this.statusMessage = statusMessage
    this.statusText = statusMessage ?? ''
    this.headers = headers
    this.trailers = trailers
    this.body = body
    this.opaque = opaque
    this.context = context
    this.#controller = controller
  }

  get timings (): RequestTimings | null {
    return this.#controller.timings ?? null
  }
}

/**
 * Callback of `request()`: the response once its head arrived, or an error; as with undici, the
 * second argument on error is `{ opaque }` only.
 */
export type RequestCallback<TOpaque = null> = (err: Error | null, data: ResponseData<TOpaque>) => void

/**
 * Checks the options only `request()` reads, before anything is dispatched: they are used once
 * the response head arrives, too late to fail with a clear message.
 */
function checkRequestOptions (opts: RequestOptions<unknown>): void {
  const { highWaterMark } = opts
  if (highWaterMark != null && (typeof highWaterMark !== 'number' || !Number.isInteger(highWaterMark) || highWaterMark < 0)) {
    throw new InvalidArgumentError(`request(): highWaterMark must be a non-negative integer, got ${describeValue(highWaterMark)}`)
  }
}

/** The handler behind `request()`: resolves on the response head and streams the body. */
export class RequestHandler extends ApiHandler {
  declare protected readonly opts: RequestOptions<unknown>
  // Exactly one way of answering is set: the caller's callback, or the promise's two functions.
  // Named fields, not #private ones: see ApiHandler.
  private callback: RequestCallback<unknown> | null
  private resolve: ((data: ResponseData<unknown>) => void) | null
  private reject: ((err: Error) => void) | null
  private body: BodyReadable | null = null
  private readonly trailers: IncomingHeaders = {}

  /**
   * @param callback - the callback form's callback, or null when `resolve` and `reject` settle a promise
   */
  constructor (opts: RequestOptions<unknown>, callback: RequestCallback<unknown> | null, resolve: ((data: ResponseData<unknown>) => void) | null = null, reject: ((err: Error) => void) | null = null) {
    super('request()', opts)
    checkRequestOptions(opts)
    this.callback = callback
    this.resolve = resolve
    this.reject = reject
  }

  protected override onSignalAbort (reason: Error): void {
    super.onSignalAbort(reason)
    if (this.body !== null && !this.body.destroyed) this.body.destroy(reason)
  }

  #fail (err: Error): void {
    const callback = this.callback
    const reject = this.reject
    this.callback = null
    this.resolve = null
    this.reject = null
    answerError(callback, reject, err, this.opaque)
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    // Older dispatchers report informational heads here; treat them as the dedicated hook would.
    if (statusCode < 200) {
      this.onResponseInformation(controller, statusCode, headers)
      return
    }
    this.startDownload(statusCode, headers)
    const contentType = headers['content-type']
    const body = new BodyReadable(controller, typeof contentType === 'string' ? contentType : '', this.opts.highWaterMark)
    this.body = body
    const callback = this.callback
    const resolve = this.resolve
    this.callback = null
    this.resolve = null
    this.reject = null
    if (callback === null && resolve === null) return
    const data = new RequestResponseData(controller, statusCode, statusMessage, headers, this.trailers, body, this.opaque, this.context)
    if (resolve !== null) resolve(data)
    else callUserCode(callback!, null, data)
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (!this.countDownload(controller, chunk.length)) return
    if (this.body !== null && !this.body.push(chunk)) controller.pause()
  }

  onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (!this.finishDownload(controller)) return
    this.stopWatchingSignal()
    if (trailers !== null && typeof trailers === 'object') Object.assign(this.trailers, trailers)
    this.body?.push(null)
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.stopWatchingSignal()
    destroyRequestBody(this.opts.body, error)
    if (this.body !== null) {
      if (!this.body.destroyed) this.body.destroy(error)
      return
    }
    this.#fail(error)
  }
}

/**
 * Sends a request through `dispatcher`; resolves (or calls back) once the response head arrives.
 * @example
 * const { statusCode, body } = await request(agent, { origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
 * console.log(statusCode, await body.text())
 */
export function request<TOpaque = null> (dispatcher: DispatchTarget, opts: RequestOptions<TOpaque>): Promise<ResponseData<TOpaque>>
export function request<TOpaque = null> (dispatcher: DispatchTarget, opts: RequestOptions<TOpaque>, callback: RequestCallback<TOpaque>): void
export function request (dispatcher: DispatchTarget, opts: RequestOptions<unknown>, callback?: RequestCallback<unknown>): Promise<ResponseData<unknown>> | void {
  if (callback === undefined) {
    // The handler settles the promise itself: no callback in between, per request.
    return new Promise((resolve, reject) => { start(dispatcher, opts, null, resolve, reject) })
  }
  if (typeof callback !== 'function') {
    throw new InvalidArgumentError(`request(): callback must be a function, got ${describeValue(callback)}`)
  }
  start(dispatcher, opts, callback, null, null)
}

/** Checks `opts`, then dispatches; every failure is answered through `callback`, or `reject` for the promise form. */
function start (dispatcher: DispatchTarget, opts: RequestOptions<unknown>, callback: RequestCallback<unknown> | null, resolve: ((data: ResponseData<unknown>) => void) | null, reject: ((err: Error) => void) | null): void {
  if (opts === null || typeof opts !== 'object') {
    answerError(callback, reject, new InvalidArgumentError(`request(): options must be an object, got ${describeValue(opts)}`), undefined)
    return
  }
  if (opts.signal?.aborted === true) {
    failBeforeDispatch(opts, callback, reject, abortReason(opts.signal))
    return
  }
  const requestOpts: RequestOptions<unknown> = opts.method === undefined ? withMethod(opts, 'GET') : opts
  let handler: RequestHandler
  try {
    handler = new RequestHandler(requestOpts, callback, resolve, reject)
  } catch (err) {
    failBeforeDispatch(opts, callback, reject, err as Error)
    return
  }
  try {
    dispatcher.dispatch(toDispatchOptions(requestOpts as DispatchOptions), handler)
  } catch (err) {
    // A dispatch that throws has not called the handler: the callback is still ours to call.
    handler.onResponseError(new SimpleController(), err as Error)
  }
}

/** Ends a request that was never dispatched: its body is released and the caller told. */
function failBeforeDispatch (opts: RequestOptions<unknown>, callback: RequestCallback<unknown> | null, reject: ((err: Error) => void) | null, err: Error): void {
  destroyRequestBody(opts.body, err)
  answerError(callback, reject, err, opts.opaque)
}

/** Tells the caller of `err` in a later microtask, as undici does: the callback with `{ opaque }`, or the promise's rejection. */
function answerError (callback: RequestCallback<unknown> | null, reject: ((err: Error) => void) | null, err: Error, opaque: unknown): void {
  if (callback !== null) queueMicrotask(() => callback(err, { opaque } as ResponseData<unknown>))
  else if (reject !== null) queueMicrotask(() => reject(err))
}
