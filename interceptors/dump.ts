/**
 * `interceptors.dump()`: reads and discards response bodies, so callers that only want the
 * status and headers never hold a connection by leaving a body unread. Decisions are logged
 * with `NODE_DEBUG=conduit:dump`.
 * @module
 */

import { debuglog } from 'node:util'
import { SimpleController, InterposedControllerHandler, RequestAbortedError, failOption } from '../src/handler.js'
import type { Dispatch, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../src/handler.js'

const log = debuglog('conduit:dump')

/** Default of {@link DumpInterceptorOptions.maxSize}: 1 MiB. */
export const DEFAULT_DUMP_MAX_SIZE = 1024 * 1024

/** Options of {@link dump}. */
export interface DumpInterceptorOptions {
  /**
   * Most body bytes read and thrown away; a longer body aborts the request (and its connection)
   * with `RequestAbortedError`. A request may set its own with the dispatch option `dumpMaxSize`.
   * @defaultValue 1048576
   */
  maxSize?: number | undefined
}

declare module '../src/handler.js' {
  interface DispatchOptions {
    /** The request's own `maxSize` for the dump interceptor, in bytes. */
    dumpMaxSize?: number | null | undefined
  }
}

function checkMaxSize (value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) failOption('dump()', name, 'a positive integer (bytes)', value)
  return value
}

/** Delivers the head and the end of a response, never its body. */
class DumpHandler extends InterposedControllerHandler {
  readonly #maxSize: number
  protected readonly callerController: SimpleController
  #size = 0
  // An abort by the caller waits for the body to be read, so the connection stays usable.
  #abortReason: Error | null = null

  constructor (handler: DispatchHandler, maxSize: number) {
    super(handler)
    this.#maxSize = maxSize
    this.callerController = new SimpleController({
      abort: (reason) => { this.#abortReason = reason },
      pause: () => this.upstream?.pause(),
      resume: () => this.upstream?.resume()
    })
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const length = Number(headers['content-length'])
    if (length > this.#maxSize) {
      log('aborting: the body (%d bytes) is larger than maxSize (%d)', length, this.#maxSize)
      controller.abort(new RequestAbortedError(`dump(): response size (${length}) larger than maxSize (${this.#maxSize})`))
      return
    }
    if (this.#abortReason === null) super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    this.#size += chunk.length
    if (this.#size > this.#maxSize) {
      log('aborting: the body passed maxSize (%d bytes)', this.#maxSize)
      controller.abort(new RequestAbortedError(`dump(): response size (${this.#size}) larger than maxSize (${this.#maxSize})`))
    }
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (this.#abortReason !== null) {
      super.onResponseError(controller, this.#abortReason)
      return
    }
    log('dumped %d body bytes', this.#size)
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    super.onResponseError(controller, this.#abortReason ?? error)
  }
}

/**
 * The dump interceptor: every response reaches the caller with its status, headers and end,
 * and without its body, which is read up to `maxSize` and dropped. Bad options throw an
 * `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.dump({ maxSize: 64 * 1024 }))
 * const { statusCode } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/ping', method: 'GET' })
 */
export function dump (options: DumpInterceptorOptions = {}): Interceptor {
  if (options === null || typeof options !== 'object') {
    failOption('dump()', 'options', 'an object', options)
  }
  const defaultMax = options.maxSize === undefined ? DEFAULT_DUMP_MAX_SIZE : checkMaxSize(options.maxSize, 'maxSize')
  return (dispatch: Dispatch): Dispatch => function dumpingDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null || opts.upgrade != null) return dispatch(opts, handler)
    const max = opts.dumpMaxSize == null ? defaultMax : checkMaxSize(opts.dumpMaxSize, 'dumpMaxSize')
    return dispatch(opts, new DumpHandler(handler, max))
  }
}
