/**
 * A request-id interceptor: every request carries an `x-request-id` (a fresh UUID unless the
 * caller set one), and the response shows the id it belongs to, so logs on both sides line up.
 */

import { randomUUID } from 'node:crypto'
import { DecoratorHandler, normalizeHeaders } from '../../src/index.js'
import type { DispatchController, DispatchHandler, IncomingHeaders, Interceptor } from '../../src/index.js'

/** Options of {@link requestId}. */
export interface RequestIdOptions {
  /** Header name to use. @defaultValue 'x-request-id' */
  header?: string
  /** Makes a new id. @defaultValue crypto.randomUUID */
  generate?: () => string
}

/** Copies the request's id into the response headers when the server did not echo it. */
class RequestIdHandler extends DecoratorHandler {
  readonly #header: string
  readonly #id: string

  constructor (handler: DispatchHandler, header: string, id: string) {
    super(handler)
    this.#header = header
    this.#id = id
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const withId = headers[this.#header] === undefined ? { ...headers, [this.#header]: this.#id } : headers
    super.onResponseStart(controller, statusCode, withId, statusMessage)
  }
}

/**
 * Tags each request with an id header and reflects it on the response.
 * @example
 * const agent = new Agent().compose(requestId())
 */
export function requestId (opts: RequestIdOptions = {}): Interceptor {
  const header = (opts.header ?? 'x-request-id').toLowerCase()
  const generate = opts.generate ?? randomUUID
  if (typeof generate !== 'function') throw new TypeError(`requestId(): generate must be a function, got ${typeof generate}`)
  return (dispatch) => (dispatchOpts, handler) => {
    const headers = normalizeHeaders(dispatchOpts.headers)
    const existing = headers[header]
    const id = typeof existing === 'string' ? existing : generate()
    headers[header] = id
    return dispatch({ ...dispatchOpts, headers }, new RequestIdHandler(handler, header, id))
  }
}
