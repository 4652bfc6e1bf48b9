/**
 * `dispatcher.request()`: the promise (or callback) API over `dispatch`.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, DispatchOptions, DispatchTarget, IncomingHeaders } from '../handlers/dispatch-contract.js'
import { BodyReadable } from './body-readable.js'
import { InvalidArgumentError, RequestAbortedError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'

/** Options of `request()`: dispatch options plus what only the promise API needs. */
export interface RequestOptions extends DispatchOptions {
  /** Any value, handed back as `opaque` on the response. */
  opaque?: unknown
  /** Aborts the request at any stage: before dispatch, while waiting for headers, or while reading the body. */
  signal?: AbortSignal | null | undefined
  /** High-water mark of the body stream in bytes. */
  highWaterMark?: number | undefined
  /** Called for each informational (1xx) response. */
  onInfo?: ((info: { statusCode: number, headers: IncomingHeaders }) => void) | undefined
}

/** What `request()` resolves with once the response head arrives. */
export interface ResponseData {
  /** Response status code. */
  statusCode: number
  /** Response status message, e.g. `OK`. */
  statusMessage: string | undefined
  /** Response headers, lower-case names. */
  headers: IncomingHeaders
  /** Trailers; filled in when the body ends. */
  trailers: IncomingHeaders
  /** The body stream with one-shot consumers. */
  body: BodyReadable
  /** The `opaque` option, handed back. */
  opaque: unknown
  /** Per-dispatch context from the dispatcher (e.g. retry state). */
  context: unknown
}

/** Callback of `request()`: an error, or the response once its head arrived. */
export type RequestCallback = (err: Error | null, data?: ResponseData) => void

type Settle = RequestCallback

/**
 * Checks the options only `request()` reads, before anything is dispatched: they are used once
 * the response head arrives, too late to fail with a clear message.
 */
function checkRequestOptions (opts: RequestOptions): void {
  const { signal, highWaterMark, onInfo } = opts
  if (signal != null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.removeEventListener !== 'function')) {
    throw new InvalidArgumentError(`request(): signal must be an AbortSignal, got ${describeValue(signal)}`)
  }
  if (highWaterMark != null && (typeof highWaterMark !== 'number' || !Number.isInteger(highWaterMark) || highWaterMark < 0)) {
    throw new InvalidArgumentError(`request(): highWaterMark must be a non-negative integer, got ${describeValue(highWaterMark)}`)
  }
  if (onInfo != null && typeof onInfo !== 'function') {
    throw new InvalidArgumentError(`request(): onInfo must be a function, got ${describeValue(onInfo)}`)
  }
}

/** The handler behind `request()`: resolves on the response head and streams the body. */
export class RequestHandler implements DispatchHandler {
  readonly #opts: RequestOptions
  #settle: Settle | null
  #controller: DispatchController | null = null
  #context: unknown = undefined
  #body: BodyReadable | null = null
  #trailers: IncomingHeaders = {}
  #signalCleanup: (() => void) | null = null

  constructor (opts: RequestOptions, settle: RequestCallback) {
    checkRequestOptions(opts)
    this.#opts = opts
    this.#settle = settle
    const signal = opts.signal
    if (signal != null) {
      const onAbort = (): void => this.#abort(signal.reason ?? new RequestAbortedError())
      signal.addEventListener('abort', onAbort, { once: true })
      this.#signalCleanup = () => signal.removeEventListener('abort', onAbort)
    }
  }

  #abort (reason: Error): void {
    this.#cleanup()
    if (this.#controller !== null) this.#controller.abort(reason)
    else this.#fail(reason)
    if (this.#body !== null && !this.#body.destroyed) this.#body.destroy(reason)
  }

  #cleanup (): void {
    if (this.#signalCleanup !== null) {
      this.#signalCleanup()
      this.#signalCleanup = null
    }
  }

  #fail (err: Error): void {
    const settle = this.#settle
    if (settle !== null) {
      this.#settle = null
      settle(err)
    }
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.#controller = controller
    this.#context = context
    if (this.#opts.signal?.aborted) controller.abort(this.#opts.signal.reason ?? new RequestAbortedError())
  }

  onRequestUpgrade (controller: DispatchController, statusCode: number, _headers: IncomingHeaders, socket: Duplex): void {
    socket.destroy()
    controller.abort(new InvalidArgumentError(`request(): got an upgrade response (${statusCode}); use an upgrade-aware API for the "upgrade" option`))
  }

  onResponseInformation (_controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    this.#opts.onInfo?.({ statusCode, headers })
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    // Older dispatchers report informational heads here; treat them as the dedicated hook would.
    if (statusCode < 200) {
      this.onResponseInformation(controller, statusCode, headers)
      return
    }
    const contentType = headers['content-type']
    const body = new BodyReadable(controller, typeof contentType === 'string' ? contentType : '', this.#opts.highWaterMark)
    this.#body = body
    const settle = this.#settle
    this.#settle = null
    settle?.(null, {
      statusCode,
      statusMessage,
      headers,
      trailers: this.#trailers,
      body,
      opaque: this.#opts.opaque,
      context: this.#context
    })
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#body !== null && !this.#body.push(chunk)) controller.pause()
  }

  onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    this.#cleanup()
    if (trailers !== null && typeof trailers === 'object') Object.assign(this.#trailers, trailers)
    this.#body?.push(null)
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#cleanup()
    if (this.#body !== null) {
      if (!this.#body.destroyed) this.#body.destroy(error)
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
export function request (dispatcher: DispatchTarget, opts: RequestOptions): Promise<ResponseData>
export function request (dispatcher: DispatchTarget, opts: RequestOptions, callback: RequestCallback): void
export function request (dispatcher: DispatchTarget, opts: RequestOptions, callback?: RequestCallback): Promise<ResponseData> | void {
  if (callback === undefined) {
    return new Promise((resolve, reject) => {
      request(dispatcher, opts, (err, data) => { err ? reject(err) : resolve(data!) })
    })
  }
  if (typeof callback !== 'function') {
    throw new InvalidArgumentError(`request(): callback must be a function, got ${describeValue(callback)}`)
  }
  if (opts === null || typeof opts !== 'object') {
    process.nextTick(callback, new InvalidArgumentError(`request(): options must be an object, got ${describeValue(opts)}`))
    return
  }
  if (opts.signal?.aborted) {
    process.nextTick(callback, opts.signal.reason ?? new RequestAbortedError())
    return
  }
  const requestOpts: RequestOptions = opts.method === undefined ? { ...opts, method: 'GET' } : opts
  try {
    dispatcher.dispatch(requestOpts, new RequestHandler(requestOpts, callback))
  } catch (err) {
    process.nextTick(callback, err as Error)
  }
}
