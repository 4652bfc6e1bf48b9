/**
 * The per-request state of the redirect interceptor: reads each response head, follows the
 * redirects it may follow, and shows the caller one response (the last hop's) behind one
 * controller.
 * @module
 */

import { debuglog } from 'node:util'
import { AttemptSpanningHandler, MaxRedirectsError, copyOptions, RedirectError, hrefWithoutCredentials, normalizeHeaders, FOLLOWED_REDIRECTS, REDIRECT_STATUSES, redirectLocation, redirectedFrom, redirectsToGet, withRedirectedFrom } from '../../src/handler.js'
import type { Dispatch, DispatchBody, DispatchController, DispatchHandler, DispatchOptions, DispatchTarget, IncomingHeaders, FollowedRedirect } from '../../src/handler.js'

import { nextHopHeaders, readStripHeaders } from './hop-headers.js'
import { checkMaxRedirections, checkThrowOnMaxRedirect } from './redirect-options.js'
import { deadlineBudgetOf } from '../deadline/index.js'

/** Writes one line when `NODE_DEBUG` lists `conduit:redirect`. */
export const log = debuglog('conduit:redirect')

/** 300 Multiple Choices is followed too when it names a Location, as undici's interceptor does. */
const FOLLOWED_STATUSES: ReadonlySet<number> = new Set([300, ...REDIRECT_STATUSES])

/** What one redirected request is allowed to do. */
export interface RedirectLimits {
  /** Most redirects followed. */
  maxRedirections: number
  /** Fail with a `RedirectError` instead of delivering the redirect beyond the limit. */
  throwOnMaxRedirect: boolean
}

/** Bodies held in memory can be sent again on the next hop; streams and iterables were consumed. */
function isReplayable (body: DispatchBody | undefined): boolean {
  return body == null || typeof body === 'string' || body instanceof Uint8Array || body instanceof Blob
}

function discardBody (body: DispatchBody | undefined): void {
  const destroy = (body as { destroy?: unknown } | null | undefined)?.destroy
  if (typeof destroy === 'function') {
    const stream = body as unknown as NodeJS.EventEmitter & { destroy: () => void }
    // Destroying may emit 'error' on a stream nobody listens to any more.
    stream.on('error', () => {})
    stream.destroy()
  }
}

function urlOf (opts: DispatchOptions): URL | null {
  if (opts.origin == null) return null
  try {
    return new URL(opts.path, opts.origin)
  } catch {
    return null
  }
}

function withoutHash (url: URL): string {
  return url.hash === '' ? url.href : url.href.slice(0, -url.hash.length)
}

// Lets the caller's context read the history of its handler without making that part of the handler's API.
let recordHistoryOf: (handler: RedirectHandler) => URL[]
let followedOf: (handler: RedirectHandler) => readonly FollowedRedirect[]
let handlerOf: (context: RedirectContext) => RedirectHandler

/**
 * `history` is an own, enumerable getter, so keys, spreads and JSON show it as undici's
 * `{ ...context, history }` does, while the URLs are parsed only when it is read. The getter is
 * one shared descriptor and the handler a private field: a getter made per request (a closure
 * per context, defined on a fresh object) cost more than the rest of a request that is not
 * redirected.
 */
const HISTORY: PropertyDescriptor = {
  get (this: RedirectContext): URL[] { return recordHistoryOf(handlerOf(this)) },
  enumerable: true,
  configurable: true
}

/** The context the caller's `onRequestStart` receives: the one from below plus `history`. */
class RedirectContext {
  readonly #handler: RedirectHandler

  constructor (handler: RedirectHandler, below: unknown) {
    if (typeof below === 'object' && below !== null) Object.assign(this, below)
    this.#handler = handler
    Object.defineProperty(this, 'history', HISTORY)
  }

  /** The redirects followed so far, for a cache above (not enumerable: keys and JSON show only what undici's do). */
  get [FOLLOWED_REDIRECTS] (): readonly FollowedRedirect[] {
    return followedOf(this.#handler)
  }

  static {
    handlerOf = (context) => context.#handler
  }
}

/**
 * The options with the redirect interceptor's own keys cleared, so that a redirect layer further
 * down does not follow the same answers again.
 */
export function withoutRedirectOptions (opts: DispatchOptions): DispatchOptions {
  const rest = copyOptions(opts)
  rest.maxRedirections = undefined
  rest.throwOnMaxRedirect = undefined
  rest.stripHeadersOnRedirect = undefined
  rest.stripHeadersOnCrossOriginRedirect = undefined
  return rest
}

/**
 * Follows the redirects of one dispatch. The caller's handler sees `onRequestStart` once, with
 * `context.history` (the URLs requested so far), and the head and body of the last hop only.
 */
export class RedirectHandler extends AttemptSpanningHandler {
  readonly #dispatch: Dispatch
  readonly #limits: RedirectLimits
  readonly #history: URL[] = []
  readonly #followed: FollowedRedirect[] = []
  // The hop whose URL is not in #history yet: parsing a URL for every response would cost more
  // than the rest of this handler, so it is done only for redirects or when history is read.
  #unrecorded: DispatchOptions | null = null
  #opts: DispatchOptions
  #next: DispatchOptions | null = null
  readonly #strip: ReadonlySet<string> | null
  readonly #stripCrossOrigin: ReadonlySet<string> | null

  /**
   * Wraps `dispatcher` so that every request it dispatches follows up to `maxRedirections` redirects.
   * @throws InvalidArgumentError when `maxRedirections` is not a non-negative integer
   * @example
   * const dispatch = RedirectHandler.buildDispatch(new Agent(), 3)
   */
  static buildDispatch (dispatcher: DispatchTarget, maxRedirections?: number | null): Dispatch {
    checkMaxRedirections(maxRedirections, 'RedirectHandler.buildDispatch')
    const dispatch: Dispatch = (opts, handler) => dispatcher.dispatch(opts, handler)
    return (opts, handler) => dispatch(opts, new RedirectHandler(dispatch, maxRedirections, opts, handler))
  }

  /**
   * The constructor has undici's shape, so code that builds the handler itself moves over.
   * @param dispatch - dispatches each hop (the dispatcher below the interceptor)
   * @param maxRedirections - most redirects followed; null or undefined for no limit
   * @param opts - options of the first hop; `throwOnMaxRedirect` is read from them, and neither
   * it nor `maxRedirections` is passed on to the hops
   * @param handler - the caller's handler
   * @throws InvalidArgumentError when `maxRedirections` or `opts.throwOnMaxRedirect` has the wrong type
   */
  constructor (dispatch: Dispatch, maxRedirections: number | null | undefined, opts: DispatchOptions, handler: DispatchHandler) {
    super(handler)
    checkMaxRedirections(maxRedirections, 'RedirectHandler')
    const throwOnMaxRedirect = checkThrowOnMaxRedirect(opts.throwOnMaxRedirect, 'RedirectHandler')
    this.#strip = readStripHeaders(opts.stripHeadersOnRedirect, 'stripHeadersOnRedirect', 'RedirectHandler')
    this.#stripCrossOrigin = readStripHeaders(opts.stripHeadersOnCrossOriginRedirect, 'stripHeadersOnCrossOriginRedirect', 'RedirectHandler')
    this.#dispatch = dispatch
    this.#opts = opts.maxRedirections === undefined && throwOnMaxRedirect === undefined && this.#strip === null && this.#stripCrossOrigin === null
      ? opts
      : withoutRedirectOptions(opts)
    this.#limits = { maxRedirections: maxRedirections ?? Infinity, throwOnMaxRedirect: throwOnMaxRedirect === true }
  }

  protected override callerContext (context: unknown): unknown {
    return new RedirectContext(this, context)
  }

  static {
    recordHistoryOf = (handler) => handler.#recordHistory()
    followedOf = (handler) => handler.#followed
  }

  /** The URLs requested so far, the current one included. */
  #recordHistory (): URL[] {
    const hop = this.#unrecorded
    if (hop !== null) {
      this.#unrecorded = null
      const url = urlOf(hop)
      if (url !== null) this.#history.push(url)
    }
    return this.#history
  }

  /** Reads a response head: a redirect to follow is kept from the caller, anything else reaches it. */
  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#next = null
    this.#unrecorded = this.#opts
    const current = FOLLOWED_STATUSES.has(statusCode) && headers.location !== undefined ? this.#currentUrl() : null
    if (current !== null) {
      const refusal = this.#plan(statusCode, headers, current)
      if (refusal instanceof Error) {
        controller.abort(refusal)
        return
      }
      if (refusal === null) return
      log('not following %d from %s: %s', statusCode, hrefWithoutCredentials(current), refusal)
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  #currentUrl (): URL | null {
    const before = this.#history.length
    const history = this.#recordHistory()
    return history.length > before ? history[history.length - 1]! : null
  }

  /**
   * Prepares the next hop in `#next`. Returns null when it will be followed, the reason as a
   * string when the redirect response goes to the caller instead, or the Error that ends the request.
   */
  #plan (statusCode: number, headers: IncomingHeaders, current: URL): string | Error | null {
    const hops = this.#history.length - 1
    // An origin given as http://user:pass@host stays in the history, but not in logs or errors.
    const shownCurrent = hrefWithoutCredentials(current)
    if (hops >= this.#limits.maxRedirections) {
      if (this.#limits.throwOnMaxRedirect) {
        log('giving up at %s: max redirects (%d) reached', shownCurrent, this.#limits.maxRedirections)
        return new MaxRedirectsError(`max redirects (${this.#limits.maxRedirections}) reached at ${shownCurrent}`)
      }
      return `max redirects (${this.#limits.maxRedirections}) reached`
    }
    let location: URL | null
    try {
      location = redirectLocation(headers, current)
    } catch {
      return `Location ${JSON.stringify(headers.location)} is not a valid URL`
    }
    if (location === null) return 'no Location'
    if (location.protocol !== 'http:' && location.protocol !== 'https:') return `${hrefWithoutCredentials(location)} is not an http(s) URL`
    const target = withoutHash(location)
    if (this.#history.some((visited) => withoutHash(visited) === target)) {
      const shownTarget = hrefWithoutCredentials(new URL(target))
      log('giving up at %s: redirect loop back to %s', shownCurrent, shownTarget)
      return new RedirectError(`redirect loop: ${shownCurrent} redirects back to ${shownTarget}, already requested`)
    }
    const opts = this.#opts
    const toGet = redirectsToGet(statusCode, opts.method)
    if (!toGet && !isReplayable(opts.body)) return 'the request body is a stream and cannot be sent again'
    const crossOrigin = location.origin !== current.origin
    // A 303 drops the body's description whatever the method (a HEAD stays a HEAD), as undici does.
    const nextHeaders = nextHopHeaders(normalizeHeaders(opts.headers), {
      dropBodyHeaders: toGet || statusCode === 303,
      crossOrigin,
      strip: this.#strip,
      stripCrossOrigin: this.#stripCrossOrigin
    })
    if (toGet) discardBody(opts.body)
    this.#next = withRedirectedFrom({
      ...opts,
      origin: location.origin,
      path: `${location.pathname}${location.search}`,
      query: undefined,
      method: toGet ? 'GET' : opts.method,
      body: toGet ? null : opts.body,
      headers: nextHeaders
    }, [...redirectedFrom(opts), current.origin])
    this.#followed.push({ statusCode, headers })
    log('following %d from %s to %s%s%s', statusCode, shownCurrent, hrefWithoutCredentials(location),
      toGet ? ` as GET (was ${opts.method})` : '', crossOrigin ? ', credentials dropped (other origin)' : '')
    return null
  }

  /** Passes the body on, except a followed redirect's own. */
  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    // A redirect's own body is not part of the answer.
    if (this.#next === null) super.onResponseData(controller, chunk)
  }

  /** Ends the request, or dispatches the next hop of a followed redirect. */
  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    const next = this.#next
    if (next === null) {
      super.onResponseEnd(controller, trailers)
      return
    }
    if (this.callerController.reason !== null) {
      super.onResponseError(controller, this.callerController.reason)
      return
    }
    this.#next = null
    this.#opts = next
    // A deadline composed outside bounds the whole chain: a hop is not begun once it is spent.
    const budget = deadlineBudgetOf(next)
    if (budget !== undefined && budget.leftMs() === 0) {
      super.onResponseError(controller, budget.exceeded())
      return
    }
    try {
      const accepted = this.#dispatch(next, this)
      if (budget !== undefined) budget.phase = accepted ? 'connect' : 'queue'
    } catch (err) {
      super.onResponseError(controller, err as Error)
    }
  }
}
