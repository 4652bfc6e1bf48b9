/**
 * `interceptors.redirect()`: follows 3xx redirects below the caller, with the same method, body
 * and header rules as fetch(). Decisions are logged with `NODE_DEBUG=conduit:redirect`.
 * @module
 */

import { failOption } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { RedirectHandler, withoutRedirectOptions } from './redirect-handler.js'
import { readStripHeaders } from './hop-headers.js'
import { checkMaxRedirections, checkThrowOnMaxRedirect } from './redirect-options.js'

export { RedirectHandler } from './redirect-handler.js'
export type { RedirectLimits } from './redirect-handler.js'

/** Options of {@link redirect}; a request may override each with a dispatch option of the same name. */
export interface RedirectInterceptorOptions {
  /**
   * Most redirects followed per request. Without it (or with 0) redirects are not followed,
   * unless the request names its own `maxRedirections`, as in undici.
   * @defaultValue undefined
   */
  maxRedirections?: number | undefined
  /**
   * Past `maxRedirections`, fail the request with a `RedirectError` instead of delivering the
   * redirect response as it is.
   * @defaultValue false
   */
  throwOnMaxRedirect?: boolean | undefined
  /**
   * Request headers (any case) removed from every followed redirect, as undici's option of
   * the same name.
   * @defaultValue undefined
   */
  stripHeadersOnRedirect?: readonly string[] | undefined
  /**
   * Request headers (any case) removed when a followed redirect leaves the origin, beside the
   * credentials that always are (`Authorization`, `Cookie`, `Proxy-Authorization`), as
   * undici's option of the same name.
   * @defaultValue undefined
   */
  stripHeadersOnCrossOriginRedirect?: readonly string[] | undefined
}

// A request may override each option of the redirect interceptor with its own.
declare module '../../src/handler.js' {
  interface DispatchOptions extends RedirectInterceptorOptions {}
}

/**
 * The redirect interceptor: 301, 302, 303, 307 and 308 (and 300 with a Location) are followed
 * up to `maxRedirections` times. POST after 301/302 and anything but GET/HEAD after 303 become
 * a GET without body, and a 303 drops the `Content-*` headers; `Host` is dropped on every hop
 * (the next one derives it from its target); `Authorization`, `Cookie` and
 * `Proxy-Authorization`, and `stripHeadersOnCrossOriginRedirect`, are dropped when the next hop
 * is another origin, `stripHeadersOnRedirect` on every hop; a streamed body that would have to be sent again stops the
 * chain and the redirect response is delivered. Bad options throw an `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }))
 * const { statusCode, context } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/old', method: 'GET' })
 */
export function redirect (options: RedirectInterceptorOptions = {}): Interceptor {
  if (options === null || typeof options !== 'object') {
    failOption('redirect()', 'options', 'an object', options)
  }
  const defaultMax = checkMaxRedirections(options.maxRedirections, 'redirect()')
  const defaultThrow = checkThrowOnMaxRedirect(options.throwOnMaxRedirect, 'redirect()') ?? false
  const defaultStrip = options.stripHeadersOnRedirect
  const defaultStripCrossOrigin = options.stripHeadersOnCrossOriginRedirect
  readStripHeaders(defaultStrip, 'stripHeadersOnRedirect', 'redirect()')
  readStripHeaders(defaultStripCrossOrigin, 'stripHeadersOnCrossOriginRedirect', 'redirect()')
  return (dispatch: Dispatch): Dispatch => function redirectingDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null) return dispatch(opts, handler)
    const max = opts.maxRedirections === undefined ? defaultMax : checkMaxRedirections(opts.maxRedirections, 'redirect()')
    const throwOnMaxRedirect = checkThrowOnMaxRedirect(opts.throwOnMaxRedirect, 'redirect()') ?? defaultThrow
    // An upgrade request is followed too (as undici does); a CONNECT answer is a tunnel or a refusal.
    if (max === undefined || max === 0 || opts.method === 'CONNECT') return dispatch(opts, handler)
    const strip = opts.stripHeadersOnRedirect ?? defaultStrip
    const stripCrossOrigin = opts.stripHeadersOnCrossOriginRedirect ?? defaultStripCrossOrigin
    // The options go no further down, so a redirect interceptor below does not follow too; the
    // copy is only made when there is something to clear.
    const first: DispatchOptions = opts.maxRedirections === undefined && opts.throwOnMaxRedirect === undefined &&
      opts.stripHeadersOnRedirect === undefined && opts.stripHeadersOnCrossOriginRedirect === undefined
      ? opts
      : withoutRedirectOptions(opts)
    // The handler reads throwOnMaxRedirect and the headers to strip from its options (undici's
    // constructor shape) and keeps them out of the hops it dispatches.
    const own = !throwOnMaxRedirect && strip === undefined && stripCrossOrigin === undefined
      ? first
      : { ...first, throwOnMaxRedirect, stripHeadersOnRedirect: strip, stripHeadersOnCrossOriginRedirect: stripCrossOrigin }
    return dispatch(first, new RedirectHandler(dispatch, max, own, handler))
  }
}
