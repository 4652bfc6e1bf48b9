/**
 * `mockPool.intercept(options)`: describes a request to intercept and registers its reply.
 * @module
 */

import { types } from 'node:util'
import { InvalidArgumentError } from '../errors.js'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { isMatcher, normalizeInterceptPath } from './mock-matching.js'
import type { BodyMatcher, HeadersMatcher, Matcher, MockKey } from './mock-matching.js'
import { MockScope } from './mock-scope.js'
import type { MockDispatchList, MockDispatchRecord, MockReplySpec, MockRequestOptions, RegisteredReply } from './mock-scope.js'
import { describeValue } from '../validation/describe-value.js'
import { TOKEN_RE } from '../connection/field-syntax.js'

/** What `intercept()` matches; omitted body and headers match anything. */
export interface MockInterceptOptions {
  /** Path (with or without query), RegExp or predicate. Required. */
  path: Matcher
  /**
   * Method, RegExp or predicate.
   * @defaultValue `'GET'`
   */
  method?: Matcher | undefined
  /** Request body as text: exact string, RegExp or predicate. */
  body?: BodyMatcher | undefined
  /** Per-header matchers (names case-insensitive), or one predicate over all request headers. */
  headers?: HeadersMatcher | undefined
  /** Query parameters, serialised into a string `path`. */
  query?: Record<string, unknown> | undefined
  /**
   * Treat `/a/` and `/a` as the same path.
   * @defaultValue the pool's `ignoreTrailingSlash`
   */
  ignoreTrailingSlash?: boolean | undefined
}

/** Headers or trailers of a reply: names are lower-cased, values turned into strings. */
export type MockReplyHeaders = Record<string, string | number | readonly (string | number)[] | undefined>

/** Options of a reply. */
export interface MockReplyOptions {
  /** Response headers; they override the interceptor's default reply headers. */
  headers?: MockReplyHeaders | undefined
  /** Response trailers; they override the interceptor's default reply trailers. */
  trailers?: MockReplyHeaders | undefined
}

/**
 * A reply body: text, bytes, an ArrayBuffer, any other value (sent as JSON), a stream or async
 * iterable (sent chunk by chunk), or a function of the request returning one of these (or a promise).
 * A stream can be read only once: with `times()` or `persist()`, give a function that returns a fresh one.
 */
export type MockReplyData = unknown

/** A reply body made per request: gets the request, returns the body (see {@link MockReplyData}). */
export type MockReplyDataCallback = (opts: MockRequestOptions) => unknown

/** What a reply callback returns. */
export interface MockReplyCallbackResult {
  /** Response status code. */
  statusCode: number
  /** Response body (see {@link MockReplyData}). */
  data?: MockReplyData
  /** Response headers and trailers. */
  responseOptions?: MockReplyOptions | undefined
}

/** A reply callback: gets the request, returns the reply or a promise of it. */
export type ReplyCallback = (opts: MockRequestOptions) => MockReplyCallbackResult | Promise<MockReplyCallbackResult>

/** Turns reply headers into the lower-case record the hooks carry. */
export function toIncomingHeaders (headers: MockReplyHeaders | undefined, what: string): IncomingHeaders {
  const out: IncomingHeaders = {}
  if (headers == null) return out
  if (typeof headers !== 'object') throw new InvalidArgumentError(`reply(): ${what} must be an object, got ${describeValue(headers)}`)
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value === undefined) continue
    // A real response could not carry these, and fetch's Headers would hold an invalid entry.
    if (!TOKEN_RE.test(name)) throw new InvalidArgumentError(`reply(): ${what} name must be an HTTP token, got ${describeValue(name)}`)
    const values = Array.isArray(value) ? value.map(String) : String(value)
    for (const v of typeof values === 'string' ? [values] : values) {
      if (/[\r\n\0]/.test(v)) throw new InvalidArgumentError(`reply(): ${what} value of ${name} must not contain CR, LF or NUL, got ${describeValue(v)}`)
    }
    out[name.toLowerCase()] = values
  }
  return out
}

function checkStatus (statusCode: unknown): number {
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 999) {
    throw new InvalidArgumentError(`reply(): statusCode must be an integer between 100 and 999, got ${describeValue(statusCode)}`)
  }
  return statusCode
}

function checkOptions (value: unknown): MockReplyOptions {
  if (value === undefined) return {}
  if (typeof value !== 'object' || value === null) {
    throw new InvalidArgumentError(`reply(): responseOptions must be an object, got ${describeValue(value)}`)
  }
  return value as MockReplyOptions
}

function checkMatcher (name: string, value: unknown): void {
  if (value !== undefined && !isMatcher(value)) {
    throw new InvalidArgumentError(`intercept(): ${name} must be a string, a RegExp or a function, got ${describeValue(value)}`)
  }
}

/** Validates `intercept()` options and turns them into a {@link MockKey}. */
export function buildMockKey (opts: MockInterceptOptions, ignoreTrailingSlash: boolean): MockKey {
  if (typeof opts !== 'object' || opts === null) {
    throw new InvalidArgumentError(`intercept(): options must be an object, got ${describeValue(opts)}`)
  }
  if (opts.path === undefined) throw new InvalidArgumentError('intercept(): options.path must be defined')
  // Like undici, any other path value is accepted here and simply never matches a request.
  checkMatcher('method', opts.method)
  checkMatcher('body', opts.body)
  if (opts.headers !== undefined && typeof opts.headers !== 'function' && (typeof opts.headers !== 'object' || opts.headers === null)) {
    throw new InvalidArgumentError(`intercept(): headers must be an object of matchers or a function, got ${describeValue(opts.headers)}`)
  }
  if (opts.query !== undefined && (typeof opts.query !== 'object' || opts.query === null)) {
    throw new InvalidArgumentError(`intercept(): query must be an object, got ${describeValue(opts.query)}`)
  }
  if (opts.ignoreTrailingSlash !== undefined && typeof opts.ignoreTrailingSlash !== 'boolean') {
    throw new InvalidArgumentError(`intercept(): ignoreTrailingSlash must be a boolean, got ${describeValue(opts.ignoreTrailingSlash)}`)
  }
  const method = opts.method ?? 'GET'
  return {
    path: typeof opts.path === 'string' ? normalizeInterceptPath(opts.path, opts.query) : opts.path,
    method: typeof method === 'string' ? method.toUpperCase() : method,
    body: opts.body,
    headers: opts.headers,
    ignoreTrailingSlash: opts.ignoreTrailingSlash ?? ignoreTrailingSlash
  }
}

/**
 * One intercepted request shape; `reply`, `replyWithError` register what it answers.
 * @example
 * mockAgent.get('http://127.0.0.1:3000')
 *   .intercept({ path: '/users', method: 'POST', body: /"name"/ })
 *   .defaultReplyHeaders({ 'content-type': 'application/json' })
 *   .reply(201, { id: 1 })
 */
export class MockInterceptor {
  readonly #key: MockKey
  readonly #query: Record<string, unknown> | undefined
  readonly #list: MockDispatchList
  #defaultHeaders: MockReplyHeaders = {}
  #defaultTrailers: MockReplyHeaders = {}
  #contentLength = false

  /** @internal Built by `mockPool.intercept()`. */
  constructor (opts: MockInterceptOptions, list: MockDispatchList, ignoreTrailingSlash = false) {
    this.#key = buildMockKey(opts, ignoreTrailingSlash)
    this.#query = opts.query
    this.#list = list
  }

  #headers (options: MockReplyOptions): { headers: IncomingHeaders, trailers: IncomingHeaders } {
    return {
      headers: { ...toIncomingHeaders(this.#defaultHeaders, 'default reply headers'), ...toIncomingHeaders(options.headers, 'headers') },
      trailers: { ...toIncomingHeaders(this.#defaultTrailers, 'default reply trailers'), ...toIncomingHeaders(options.trailers, 'trailers') }
    }
  }

  #register (reply: MockReplySpec): MockScope {
    const record: MockDispatchRecord = { key: this.#key, query: this.#query, reply, times: 1, persist: false, delay: 0, timesInvoked: 0 }
    this.#list.add(record)
    return new MockScope(record)
  }

  /** Whether replies get a `content-length` header computed from their body. */
  get contentLength (): boolean {
    return this.#contentLength
  }

  /**
   * Registers the reply: `reply(statusCode, data?, options?)`, or `reply(callback)` where the
   * callback gets the request and returns `{ statusCode, data, responseOptions }`.
   */
  reply<TData extends object = object> (statusCode: number, data: MockReplyDataCallback, options?: MockReplyOptions): MockScope<TData>
  reply<TData extends object = object> (statusCode: number, data?: MockReplyData, options?: MockReplyOptions): MockScope<TData>
  reply<TData extends object = object> (callback: ReplyCallback): MockScope<TData>
  reply (statusOrCallback: number | ReplyCallback, data?: MockReplyData, options?: MockReplyOptions): MockScope {
    const withLength = this.#contentLength
    if (typeof statusOrCallback === 'function') {
      const callback = statusOrCallback
      const registered = (result: unknown): RegisteredReply => {
        if (typeof result !== 'object' || result === null) {
          throw new InvalidArgumentError(`reply(): the reply callback must return an object, got ${describeValue(result)}`)
        }
        const { statusCode, data, responseOptions } = result as MockReplyCallbackResult
        return { statusCode: checkStatus(statusCode), data: data ?? '', ...this.#headers(checkOptions(responseOptions)), withLength }
      }
      return this.#register({
        kind: 'callback',
        produce: (opts) => {
          const result = callback(opts)
          return types.isPromise(result) ? result.then(registered) : registered(result)
        }
      })
    }
    return this.#register({ kind: 'static', statusCode: checkStatus(statusOrCallback), data: data ?? '', ...this.#headers(checkOptions(options)), withLength })
  }

  /** Registers an error: matching requests fail with `error` (through `onResponseError`). */
  replyWithError (error: Error): MockScope {
    if (!(error instanceof Error)) {
      throw new InvalidArgumentError(`replyWithError(): error must be an Error, got ${describeValue(error)}`)
    }
    return this.#register({ kind: 'error', error })
  }

  /** Headers added to every later `reply` of this interceptor (a reply's own headers win). */
  defaultReplyHeaders (headers: MockReplyHeaders): this {
    if (typeof headers !== 'object' || headers === null) {
      throw new InvalidArgumentError(`defaultReplyHeaders(): headers must be an object, got ${describeValue(headers)}`)
    }
    this.#defaultHeaders = headers
    return this
  }

  /** Trailers added to every later `reply` of this interceptor (a reply's own trailers win). */
  defaultReplyTrailers (trailers: MockReplyHeaders): this {
    if (typeof trailers !== 'object' || trailers === null) {
      throw new InvalidArgumentError(`defaultReplyTrailers(): trailers must be an object, got ${describeValue(trailers)}`)
    }
    this.#defaultTrailers = trailers
    return this
  }

  /** Adds a `content-length` header, computed from the body, to every later `reply`. */
  replyContentLength (): this {
    this.#contentLength = true
    return this
  }
}
