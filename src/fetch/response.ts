/**
 * `Response`: status, headers and body, either built by the caller or received by fetch.
 * Headers of a fetched response are turned into a {@link Headers} object only when read.
 * @module
 */

import { enumerableMembers } from './webidl.js'
import { showUrl } from '../observability/redaction.js'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { BodyMixin, bodyInternals, extractBody } from './body.js'
import type { BodyInit, BodySource } from './body.js'
import { NULL_BODY_STATUSES } from './constants.js'
import { REDIRECT_STATUSES } from '../redirect/rules.js'
import type { ResponseRedirectStatus, ResponseType } from './constants.js'
import { Headers, headersInternals } from './headers.js'
import type { HeadersGuard, HeadersInit } from './headers.js'
import { describeValue } from '../validation/describe-value.js'
import { getGlobalOrigin } from './global-origin.js'

/** The second argument of `new Response()`. */
export interface ResponseInit {
  /** Status code, 200 to 599. @defaultValue `200` */
  status?: number
  /** Status message. @defaultValue `''` */
  statusText?: string
  /** Response headers. */
  headers?: HeadersInit
}

/** Everything a response carries; fetch fills it in from the dispatcher. */
export interface ResponseState {
  type: ResponseType
  status: number
  statusText: string
  urlList: URL[]
  /** Raw headers from the dispatcher, until `headers` is first read. */
  rawHeaders: IncomingHeaders | null
  headers: Headers | null
  guard: HeadersGuard
}

const REASON_PHRASE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/
const PREPARED: unique symbol = Symbol('prepared response state')
let stateOf: (response: Response) => ResponseState

function headersOf (state: ResponseState): Headers {
  if (state.headers === null) {
    state.headers = state.rawHeaders === null
      ? new Headers()
      : headersInternals.fromIncoming(state.rawHeaders, state.guard)
    state.rawHeaders = null
    headersInternals.guard(state.headers, state.guard)
  }
  return state.headers
}

function responseContentType (response: BodyMixin): string | null {
  return contentTypeOf(stateOf(response as Response))
}

function contentTypeOf (state: ResponseState): string | null {
  if (state.headers === null && state.rawHeaders !== null) {
    const value = state.rawHeaders['content-type']
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  }
  return headersInternals.lookup(headersOf(state), 'content-type')
}

/**
 * An HTTP response as the Fetch Standard describes it.
 * @example
 * const response = new Response('hello', { status: 200, headers: { 'content-type': 'text/plain' } })
 * await response.text() // 'hello'
 */
export class Response extends BodyMixin {
  #state: ResponseState

  /**
   * @param body - the body (see {@link BodyInit}); null for none.
   * @param init - status (200 to 599, else `RangeError`), statusText and headers.
   */
  constructor (body: BodyInit | null = null, init?: ResponseInit) {
    super(responseContentType, 'Response')
    if ((body as unknown) === PREPARED) {
      this.#state = preparedState!
      bodyInternals.setSource(this, preparedSource)
      preparedState = null
      preparedSource = null
      return
    }
    if (init !== undefined && init !== null && typeof init !== 'object') {
      throw new TypeError(`Response: init must be an object, got ${describeValue(init)}`)
    }
    const status = init?.status === undefined ? 200 : Number(init.status)
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`Response: status must be an integer from 200 to 599, got ${String(init?.status)}`)
    }
    const statusText = init?.statusText === undefined ? '' : String(init.statusText)
    if (!REASON_PHRASE.test(statusText)) throw new TypeError(`Response: invalid statusText ${JSON.stringify(statusText)}`)
    const headers = new Headers(init?.headers)
    const state: ResponseState = { type: 'default', status, statusText, urlList: [], rawHeaders: null, headers, guard: 'response' }
    headersInternals.guard(headers, 'response')
    this.#state = state
    if (body !== null && body !== undefined) {
      if (NULL_BODY_STATUSES.has(status)) throw new TypeError(`Response: a response with status ${status} cannot have a body`)
      const extracted = extractBody(body, 'Response')
      if (extracted.type !== null && !headers.has('content-type')) headersInternals.put(headers, 'content-type', extracted.type)
      bodyInternals.setSource(this, extracted.source)
    }
  }

  /** A network error: type `'error'`, status 0, no body. */
  static error (): Response {
    return createResponse({ type: 'error', status: 0, statusText: '', urlList: [], rawHeaders: null, headers: null, guard: 'immutable' }, null)
  }

  /** A response whose body is `data` as JSON, with `content-type: application/json`. */
  // The default keeps `Response.json.length` at 1, counting only the required data.
  static json (data: unknown, init: ResponseInit | undefined = undefined): Response {
    const text = JSON.stringify(data)
    if (text === undefined) throw new TypeError(`Response.json: the value is not JSON serializable (${typeof data})`)
    const response = new Response(null, init)
    if (NULL_BODY_STATUSES.has(response.status)) throw new TypeError(`Response.json: a response with status ${response.status} cannot have a body`)
    bodyInternals.setSource(response, { kind: 'bytes', data: Buffer.from(text, 'utf8') })
    // Fetch Standard, "initialize a response": a Content-Type given in init wins.
    if (!response.headers.has('content-type')) headersInternals.put(response.headers, 'content-type', 'application/json')
    return response
  }

  /** A redirect to `url` with status 301, 302 (default), 303, 307 or 308. */
  static redirect (url: string | URL, status: ResponseRedirectStatus = 302): Response {
    let parsed: URL
    try {
      parsed = new URL(String(url), getGlobalOrigin())
    } catch {
      // The parser's error keeps the whole input (a password included): it is not passed on as the cause.
      throw new TypeError(`Response.redirect: failed to parse URL from ${showUrl(url)}`)
    }
    if (!REDIRECT_STATUSES.has(status)) {
      throw new RangeError(`Response.redirect: status must be one of ${[...REDIRECT_STATUSES].join(', ')}, got ${status}`)
    }
    return createResponse({
      type: 'default', status, statusText: '', urlList: [], rawHeaders: { location: parsed.href }, headers: null, guard: 'immutable'
    }, null)
  }

  /** `'basic'` for fetched responses, `'default'` for constructed ones, `'error'` for network errors. */
  get type (): ResponseType { return this.#state.type }
  /** The final URL after redirects (without fragment), or `''`. */
  get url (): string {
    const last = this.#state.urlList[this.#state.urlList.length - 1]
    if (last === undefined) return ''
    return last.hash === '' ? last.href : last.href.slice(0, -last.hash.length)
  }

  /** True when fetch followed at least one redirect. */
  get redirected (): boolean { return this.#state.urlList.length > 1 }
  /** The status code. */
  get status (): number { return this.#state.status }
  /** True for a status from 200 to 299. */
  get ok (): boolean { return this.#state.status >= 200 && this.#state.status <= 299 }
  /** The status message. */
  get statusText (): string { return this.#state.statusText }
  /** The response headers (immutable for fetched responses). */
  get headers (): Headers { return headersOf(this.#state) }

  /** A copy of this response; the body is teed. `TypeError` once the body was read. */
  clone (): Response {
    if (this.#state.type === 'error') return Response.error()
    const source = bodyInternals.tee(this, 'Response')
    const state = { ...this.#state, urlList: [...this.#state.urlList] }
    if (this.#state.headers !== null) {
      state.headers = new Headers(this.#state.headers)
      headersInternals.guard(state.headers, this.#state.guard)
    }
    return createResponse(state, source)
  }

  /** `'Response'`, so `Object.prototype.toString` recognises instances as the runtime's classes do. */
  get [Symbol.toStringTag] (): string {
    return 'Response'
  }

  static {
    stateOf = (response) => response.#state
  }
}

enumerableMembers(Response.prototype)

// What createResponse hands its constructor call; set just before it and cleared by it, so that
// fetch's path allocates no options object per response.
let preparedState: ResponseState | null = null
let preparedSource: BodySource | null = null

/** Builds a Response around prepared state (fetch's path: no validation, headers read lazily). */
export function createResponse (state: ResponseState, source: BodySource | null): Response {
  preparedState = state
  preparedSource = source
  return new Response(PREPARED as never)
}

/** The internal state of a Response (for fetch). */
export function responseState (response: Response): ResponseState {
  return stateOf(response)
}
