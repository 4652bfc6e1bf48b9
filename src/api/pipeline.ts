/**
 * `dispatcher.pipeline()`: a request as a Duplex. What is written to it is the request body;
 * the caller's handler turns the response body into the Readable that is read from it.
 * Backpressure holds on both sides, and an error anywhere destroys the whole pipeline.
 * @module
 */

import { Duplex, PassThrough, Readable } from 'node:stream'
import type { DispatchController, DispatchOptions, DispatchTarget, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { SimpleController } from '../handlers/simple-controller.js'
import { InvalidArgumentError, InvalidReturnValueError, RequestAbortedError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { toDispatchOptions } from './api-options.js'
import { abortReason } from './abort-signal.js'
import { ApiHandler } from './api-handler.js'
import type { RequestOptions } from './request.js'
import { copyOptions } from '../runtime/copy-options.js'

/** Options of `pipeline()`: those of `request()` without `body` (it is what is written), plus `objectMode`. */
export interface PipelineOptions<TOpaque = null> extends RequestOptions<TOpaque> {
  /** Whether the readable side of the returned Duplex is in object mode. */
  objectMode?: boolean | undefined
}

/** What the handler of `pipeline()` receives once the response head arrived; `TOpaque` is the type of the `opaque` option. */
export interface PipelineHandlerData<TOpaque = null> {
  /** Response status code. */
  statusCode: number
  /** Response headers, lower-case names. */
  headers: IncomingHeaders
  /** The `opaque` option, handed back (null when none was given). */
  opaque: TOpaque
  /** The response body. */
  body: Readable
  /** Per-dispatch context from the dispatcher. */
  context: unknown
}

/** Turns the response into the Readable the pipeline's readable side yields. */
export type PipelineHandlerFunction<TOpaque = null> = (data: PipelineHandlerData<TOpaque>) => NodeJS.ReadableStream

/** The response body handed to the handler: reading it resumes a paused response. */
class PipelineResponseBody extends Readable {
  readonly #resume: () => void

  constructor (resume: () => void) {
    super({ autoDestroy: true })
    this.#resume = resume
  }

  override _read (): void {
    this.#resume()
  }

  override _destroy (err: Error | null, callback: (error?: Error | null) => void): void {
    // Dropping the body before its end cancels the request.
    callback(err ?? (this.readableEnded ? null : new RequestAbortedError()))
  }
}

/** Ties the Duplex, the request body, the response body and the handler's Readable together. */
class PipelineHandler extends ApiHandler {
  #handler: PipelineHandlerFunction<unknown> | null
  /** The request body: fed by writes to the Duplex. */
  readonly requestBody: Readable
  /** Write callback waiting for the request body to be read. */
  #pendingWrite: (() => void) | null = null
  #response: PipelineResponseBody | null = null
  #output: NodeJS.ReadableStream | null = null
  /** The handler's Readable ended: everything it yields was pushed to the Duplex. */
  #outputEnded = false
  /** The Duplex returned to the caller. */
  readonly duplex: Duplex

  constructor (opts: PipelineOptions<unknown>, handler: PipelineHandlerFunction<unknown>) {
    super('pipeline()', opts)
    if (typeof handler !== 'function') throw new InvalidArgumentError(`pipeline(): handler must be a function, got ${describeValue(handler)}`)
    this.#handler = handler
    this.requestBody = new Readable({
      autoDestroy: true,
      read: () => this.#releaseWrite(),
      destroy: (err, callback) => {
        this.#releaseWrite()
        callback(err)
      }
    }).on('error', noop)
    this.duplex = new Duplex({
      readableObjectMode: opts.objectMode === true,
      autoDestroy: true,
      read: () => { (this.#output as Readable | null)?.resume() },
      write: (chunk: Buffer, encoding: BufferEncoding, callback: () => void) => {
        if (this.requestBody.push(chunk, encoding) || this.requestBody.destroyed) callback()
        else this.#pendingWrite = callback
      },
      final: (callback: () => void) => {
        this.requestBody.push(null)
        callback()
      },
      destroy: (err, callback) => this.#destroy(err, callback)
    })
  }

  protected override onSignalAbort (reason: Error): void {
    if (this.controller === null) super.onSignalAbort(reason)
    this.duplex.destroy(reason)
  }

  #releaseWrite (): void {
    const pending = this.#pendingWrite
    this.#pendingWrite = null
    pending?.()
  }

  #destroy (err: Error | null, callback: (error: Error | null) => void): void {
    const reason = err ?? (this.duplex.readableEnded ? null : new RequestAbortedError())
    this.stopWatchingSignal()
    if (reason !== null) this.controller?.abort(reason)
    if (!this.requestBody.destroyed) this.requestBody.destroy(reason ?? undefined)
    const response = this.#response
    if (response !== null && !response.destroyed) response.on('error', noop).destroy(reason ?? undefined)
    const output = this.#output as Readable | null
    if (output !== null && typeof output.destroy === 'function' && !output.destroyed) output.on('error', noop).destroy(reason ?? undefined)
    callback(reason)
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    if (statusCode < 200) {
      this.onResponseInformation(controller, statusCode, headers)
      return
    }
    const handler = this.#handler
    this.#handler = null
    if (handler === null) return
    const response = new PipelineResponseBody(() => controller.resume())
    this.#response = response
    let output: unknown
    try {
      output = handler({ statusCode, headers, opaque: this.opaque, body: response, context: this.context })
    } catch (err) {
      // As with undici, a handler that throws fails the pipeline with its own error.
      controller.abort(err as Error)
      return
    }
    const readable = output as Readable | null
    if (readable === null || typeof readable !== 'object' || typeof readable.on !== 'function') {
      controller.abort(new InvalidReturnValueError(`pipeline(): the handler must return a Readable, got ${describeValue(output)}`))
      return
    }
    this.#output = readable
    const duplex = this.duplex
    readable
      .on('data', (chunk: unknown) => {
        if (!duplex.push(chunk) && typeof readable.pause === 'function') readable.pause()
      })
      .on('error', (err: Error) => duplex.destroy(err))
      .on('end', () => {
        this.#outputEnded = true
        duplex.push(null)
      })
      .on('close', () => {
        if (!this.#outputEnded) duplex.destroy(new RequestAbortedError())
      })
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#response !== null && !this.#response.push(chunk)) controller.pause()
  }

  onResponseEnd (): void {
    this.#response?.push(null)
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#handler = null
    this.duplex.destroy(error)
  }
}

function noop (): void {}

/**
 * Sends a request whose body is what gets written to the returned Duplex; `handler` receives
 * the response and returns the Readable whose data the Duplex yields.
 * @example
 * import { pipeline as pipe } from 'node:stream/promises'
 * await pipe(
 *   Readable.from(['hello']),
 *   agent.pipeline({ origin, path: '/echo', method: 'PUT' }, ({ body }) => body),
 *   process.stdout
 * )
 */
export function pipeline<TOpaque = null> (dispatcher: DispatchTarget, opts: PipelineOptions<TOpaque>, handler: PipelineHandlerFunction<TOpaque>): Duplex
export function pipeline (dispatcher: DispatchTarget, opts: PipelineOptions<unknown>, handler: PipelineHandlerFunction<unknown>): Duplex {
  let pipelineHandler: PipelineHandler
  try {
    if (opts === null || typeof opts !== 'object') throw new InvalidArgumentError(`pipeline(): options must be an object, got ${describeValue(opts)}`)
    pipelineHandler = new PipelineHandler(opts, handler)
  } catch (err) {
    return new PassThrough().destroy(err as Error)
  }
  if (opts.signal?.aborted === true) {
    // Nothing is sent; as undici 8 does, the request fails with the signal's reason (its own abort error when the signal gives none).
    pipelineHandler.onResponseError(new SimpleController(), abortReason(opts.signal))
    return pipelineHandler.duplex
  }
  const pipelineOpts = copyOptions(opts)
  pipelineOpts.method = opts.method ?? 'GET'
  pipelineOpts.body = pipelineHandler.requestBody
  try {
    dispatcher.dispatch(toDispatchOptions(pipelineOpts as DispatchOptions), pipelineHandler)
  } catch (err) {
    pipelineHandler.onResponseError(new SimpleController(), err as Error)
  }
  return pipelineHandler.duplex
}
