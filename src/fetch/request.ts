/**
 * `Request`: a URL, a method, headers, a body and the Fetch options that travel with them.
 * @module
 */

import { enumerableMembers } from './webidl.js'
import { BodyMixin, bodyInternals } from './body.js'
import type { ReferrerPolicy, RequestCache, RequestCredentials, RequestDuplex, RequestDestination, RequestMode, RequestRedirect } from './constants.js'
import { Headers, headersInternals } from './headers.js'
import { buildRequestState } from './request-state.js'
import type { RequestInit, RequestState } from './request-state.js'

/** What `fetch()` and `new Request()` take as their first argument (the runtime's own Request included). */
export type RequestInfo = string | URL | Request | globalThis.Request

let stateOf: (request: Request) => RequestState

// Lets clone() build a Request around prepared state without re-running the constructor steps.
const PREPARED: unique symbol = Symbol('prepared request state')

function requestContentType (request: BodyMixin): string | null {
  return headersInternals.lookup(stateOf(request as Request).headers, 'content-type')
}

function inputState (value: unknown): RequestState | null {
  return value instanceof Request ? stateOf(value) : null
}

function inputHost (value: unknown): Request | null {
  return value instanceof Request ? value : null
}

/** Builds request state for fetch: the same validation as the Request constructor. */
export function requestStateFor (input: unknown, init: RequestInit | undefined, what: string): RequestState {
  return buildRequestState(input, init, what, inputState, inputHost)
}

/**
 * An HTTP request as the Fetch Standard describes it.
 * @example
 * const request = new Request('http://127.0.0.1:3000/items', { method: 'POST', body: JSON.stringify(item), headers: { 'content-type': 'application/json' } })
 * const response = await fetch(request)
 */
export class Request extends BodyMixin {
  #state: RequestState
  #signal: AbortSignal | null = null

  /**
   * @param input - URL string, URL, or a Request (this library's or the runtime's) to copy.
   * @param init - fields that override the input's; each is validated (a bad value is a `TypeError` naming it).
   */
  // The default keeps `Request.length` at 1: WebIDL counts only the required input.
  constructor (input: RequestInfo, init: RequestInit | undefined = undefined) {
    super(requestContentType, 'Request')
    if (arguments.length === 0) throw new TypeError('Request: the input argument is required')
    const state = (input as unknown) === PREPARED
      ? init as unknown as RequestState
      : buildRequestState(input, init, 'Request', inputState, inputHost)
    headersInternals.guard(state.headers, 'request')
    this.#state = state
    bodyInternals.setSource(this, state.body?.source ?? null)
  }

  // Getters whose value never varies outside a browser still check their receiver, as WebIDL
  // attributes do: reading the private state throws a TypeError for anything but a Request.
  #constant<T> (value: T): T {
    void this.#state
    return value
  }

  /** The request method, e.g. `GET`. */
  get method (): string { return this.#state.method }
  /** The request URL, serialized. */
  get url (): string { return this.#state.urlList[0]!.href }
  /** The request headers (mutable, guarded as request headers). */
  get headers (): Headers { return this.#state.headers }
  /** The destination; always `''` outside a browser. */
  get destination (): RequestDestination { return this.#constant('') }
  /** `'about:client'`, `''` for no referrer, or the referrer URL. */
  get referrer (): string {
    const referrer = this.#state.referrer
    return referrer === 'client' ? 'about:client' : referrer === 'no-referrer' ? '' : referrer.href
  }

  /** The referrer policy. */
  get referrerPolicy (): ReferrerPolicy { return this.#state.referrerPolicy }
  /** The request mode. */
  get mode (): RequestMode { return this.#state.mode }
  /** The credentials mode. */
  get credentials (): RequestCredentials { return this.#state.credentials }
  /** The cache mode. */
  get cache (): RequestCache { return this.#state.cache }
  /** The redirect mode. */
  get redirect (): RequestRedirect { return this.#state.redirect }
  /** The integrity metadata. */
  get integrity (): string { return this.#state.integrity }
  /** Whether the request may outlive its creator (kept for compatibility). */
  get keepalive (): boolean { return this.#state.keepalive }
  /** Always false outside a browser. */
  get isReloadNavigation (): boolean { return this.#constant(false) }
  /** Always false outside a browser. */
  get isHistoryNavigation (): boolean { return this.#constant(false) }
  /** Always `'half'`. */
  get duplex (): RequestDuplex { return this.#constant('half') }

  /** A signal that follows the signal given in `init` (created on first access). */
  get signal (): AbortSignal {
    if (this.#signal === null) {
      const source = this.#state.signal
      this.#signal = source === null ? new AbortController().signal : AbortSignal.any([source])
    }
    return this.#signal
  }

  /** A copy of this request; a streaming body is teed. `TypeError` once the body was read. */
  clone (): Request {
    const source = bodyInternals.tee(this, 'Request')
    const state: RequestState = {
      ...this.#state,
      urlList: [...this.#state.urlList],
      headers: new Headers(this.#state.headers),
      body: this.#state.body === null || source === null ? null : { ...this.#state.body, source }
    }
    return new Request(PREPARED as never, state as never)
  }

  /** `'Request'`, so `Object.prototype.toString` recognises instances as the runtime's classes do. */
  get [Symbol.toStringTag] (): string {
    return 'Request'
  }

  static {
    stateOf = (request) => request.#state
  }
}

enumerableMembers(Request.prototype)
