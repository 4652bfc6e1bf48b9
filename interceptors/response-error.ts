/**
 * `interceptors.responseError()`: turns answers with status >= 400 into a `ResponseError`
 * carrying the status, headers and body. Decisions are logged with
 * `NODE_DEBUG=conduit:response-error`.
 * @module
 */

import { debuglog } from 'node:util'
import { DecoratorHandler, ResponseError, failOption, redactHeaders } from '../src/handler.js'
import type { Dispatch, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../src/handler.js'

const log = debuglog('conduit:response-error')

/** Most bytes of an error body kept for the `ResponseError`; the rest is read and dropped. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024

/** Options of {@link responseError}. */
export interface ResponseErrorInterceptorOptions {
  /**
   * Turn error answers into a `ResponseError`; false passes every answer through.
   * @defaultValue true
   */
  throwOnError?: boolean | undefined
}

function isTextual (contentType: string): boolean {
  return contentType.startsWith('application/json') || contentType.startsWith('text/plain')
}

/** Collects an error answer's body and reports it as a `ResponseError`; other answers pass. */
class ResponseErrorHandler extends DecoratorHandler {
  #statusCode = 0
  #headers: IncomingHeaders = {}
  #contentType = ''
  #chunks: Buffer[] = []
  #kept = 0

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#statusCode = statusCode
    if (statusCode < 400) {
      super.onResponseStart(controller, statusCode, headers, statusMessage)
      return
    }
    this.#headers = headers
    const type = headers['content-type']
    this.#contentType = (Array.isArray(type) ? type[0] ?? '' : type ?? '').toLowerCase()
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#statusCode < 400) {
      super.onResponseData(controller, chunk)
      return
    }
    if (!isTextual(this.#contentType) || this.#kept >= MAX_ERROR_BODY_BYTES) return
    const room = MAX_ERROR_BODY_BYTES - this.#kept
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.#chunks.push(kept)
    this.#kept += kept.length
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (this.#statusCode < 400) {
      super.onResponseEnd(controller, trailers)
      return
    }
    const text = Buffer.concat(this.#chunks).toString('utf8')
    let body: unknown = text
    if (this.#contentType.startsWith('application/json')) {
      try {
        body = JSON.parse(text)
      } catch {
        // A body that is not JSON after all is still worth showing as text.
      }
    }
    log('status %d turned into a ResponseError', this.#statusCode)
    super.onResponseError(controller, new ResponseError(`Response Error: status ${this.#statusCode}`, this.#statusCode, { headers: redactHeaders(this.#headers) as IncomingHeaders, body }))
  }
}

/**
 * The responseError interceptor: a response with status >= 400 ends the request with a
 * `ResponseError` (`statusCode`, `headers`, and `body`: parsed JSON for `application/json`,
 * text for `text/plain`, an empty string otherwise). Bad options throw an `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors, errors } from 'conduit'
 * const agent = new Agent().compose(interceptors.responseError())
 * try {
 *   await agent.request({ origin: 'http://127.0.0.1:3000', path: '/missing', method: 'GET' })
 * } catch (err) {
 *   if (err instanceof errors.ResponseError) console.log(err.statusCode, err.body)
 * }
 */
export function responseError (options: ResponseErrorInterceptorOptions = {}): Interceptor {
  if (options === null || typeof options !== 'object') {
    failOption('responseError()', 'options', 'an object', options)
  }
  const throwOnError = options.throwOnError ?? true
  if (typeof throwOnError !== 'boolean') {
    failOption('responseError()', 'throwOnError', 'a boolean', throwOnError)
  }
  return (dispatch: Dispatch): Dispatch => {
    if (!throwOnError) return dispatch
    return function responseErrorDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
      if (typeof opts !== 'object' || opts === null || opts.upgrade != null) return dispatch(opts, handler)
      return dispatch(opts, new ResponseErrorHandler(handler))
    }
  }
}
