/**
 * An auth-token refresh interceptor: adds `authorization: Bearer <token>` to each request and,
 * when the server answers 401, refreshes the token once and sends the request again. Concurrent
 * 401s share one refresh. The caller sees only the final response.
 */

import { DecoratorHandler, SimpleController, normalizeHeaders } from '../../src/index.js'
import type { Dispatch, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../../src/index.js'

/** Options of {@link authTokenRefresh}. */
export interface AuthTokenRefreshOptions {
  /** Fetches a new token (called at first use and after each 401). */
  refresh: () => Promise<string>
}

/** Keeps the current token and makes concurrent refreshes share one call. */
class TokenSource {
  token: string | undefined
  #pending: Promise<string> | undefined
  readonly #refresh: () => Promise<string>

  constructor (refresh: () => Promise<string>) {
    this.#refresh = refresh
  }

  renew (stale: string | undefined): Promise<string> {
    // Someone else already replaced the token that failed: use theirs.
    if (this.token !== stale && this.token !== undefined) return Promise.resolve(this.token)
    this.#pending ??= this.#refresh().then((token) => {
      this.token = token
      return token
    }).finally(() => { this.#pending = undefined })
    return this.#pending
  }
}

/**
 * Swallows a first 401 and re-sends the request with a fresh token. The inner handler sees one
 * `onRequestStart`, with a controller that always steers the attempt in progress.
 */
class RefreshHandler extends DecoratorHandler {
  readonly #send: (token: string, handler: RefreshHandler) => void
  readonly #tokens: TokenSource
  readonly #usedToken: string
  readonly #outer: SimpleController
  #current: DispatchController | null = null
  #retrying = false
  readonly #mayRetry: boolean

  constructor (handler: DispatchHandler, tokens: TokenSource, usedToken: string, send: (token: string, handler: RefreshHandler) => void, outer: SimpleController | null) {
    super(handler)
    this.#tokens = tokens
    this.#usedToken = usedToken
    this.#send = send
    this.#mayRetry = outer === null
    this.#outer = outer ?? new SimpleController({
      abort: (reason) => this.#current?.abort(reason),
      pause: () => this.#current?.pause(),
      resume: () => this.#current?.resume()
    })
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.#current = controller
    if (this.#outer.aborted) controller.abort(this.#outer.reason!)
    else if (this.#mayRetry) super.onRequestStart(this.#outer, context)
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (statusCode === 401 && this.#mayRetry) {
      this.#retrying = true
      return
    }
    super.onResponseStart(this.#outer, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (!this.#retrying) super.onResponseData(this.#outer, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (!this.#retrying) {
      super.onResponseEnd(this.#outer, trailers)
      return
    }
    this.#tokens.renew(this.#usedToken).then(
      (token) => this.#send(token, new RefreshHandler(this.handler, this.#tokens, token, this.#send, this.#outer)),
      (err: Error) => super.onResponseError(this.#outer, err)
    )
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    super.onResponseError(this.#outer, error)
  }
}

/**
 * Authenticates every request with a bearer token and refreshes it once on a 401.
 * Requests with a stream body are sent once only (their body cannot be replayed).
 * @example
 * const agent = new Agent().compose(authTokenRefresh({ refresh: () => login(user, password) }))
 */
export function authTokenRefresh (opts: AuthTokenRefreshOptions): Interceptor {
  if (typeof opts?.refresh !== 'function') {
    throw new TypeError(`authTokenRefresh(): refresh must be a function, got ${typeof opts?.refresh}`)
  }
  const tokens = new TokenSource(opts.refresh)
  return (dispatch: Dispatch): Dispatch => (dispatchOpts: DispatchOptions, handler: DispatchHandler): boolean => {
    const send = (token: string, attempt: RefreshHandler): void => {
      const headers = { ...normalizeHeaders(dispatchOpts.headers), authorization: `Bearer ${token}` }
      dispatch({ ...dispatchOpts, headers }, attempt)
    }
    const body = dispatchOpts.body
    const replayable = body == null || typeof body === 'string' || body instanceof Uint8Array
    const start = (token: string): void => {
      if (replayable) send(token, new RefreshHandler(handler, tokens, token, send, null))
      else dispatch({ ...dispatchOpts, headers: { ...normalizeHeaders(dispatchOpts.headers), authorization: `Bearer ${token}` } }, handler)
    }
    if (tokens.token !== undefined) {
      start(tokens.token)
      return true
    }
    tokens.renew(undefined).then(start, (err: Error) => {
      const controller = new SimpleController()
      handler.onRequestStart?.(controller, undefined)
      handler.onResponseError?.(controller, err)
    })
    return true
  }
}
