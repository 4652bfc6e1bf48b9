/**
 * `interceptors.cookies()`: a cookie jar for a dispatcher. `Set-Cookie` of every response is
 * stored; every request gets the `Cookie` header the jar computes for its URL (domain, path,
 * Secure and expiry rules are the jar's). Decisions are logged with `NODE_DEBUG=conduit:cookies`,
 * without cookie values.
 * @module
 */

import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { failDispatch, failOption, InvalidArgumentError, LibraryError, describeValue, redirectedFrom } from '../../src/handler.js'
import { CookieHandler, log } from './cookie-handler.js'
import { JarAccess } from './cookie-jar.js'
import type { CookieJarLike } from './cookie-jar.js'
import { loadRegistrableDomain, newToughCookieJar } from './load-tough-cookie.js'
import { siteContextOf } from './site-context.js'
import { requestUrl, withJarCookies } from './request-cookies.js'

export type { CookieJarLike, CookieStoreLike, GetCookieOptions, SetCookieOptions } from './cookie-jar.js'
export type { SameSiteContext } from './site-context.js'
export { BoundedCookieStore, DEFAULT_MAX_COOKIES, DEFAULT_MAX_COOKIES_PER_DOMAIN } from './bounded-cookie-store.js'
export type { BoundedCookieStoreOptions, StoredCookie, CookieStoreCallback } from './bounded-cookie-store.js'

/** Options of {@link cookies}. */
export interface CookiesInterceptorOptions {
  /**
   * The jar: a tough-cookie `CookieJar` or any object with its `getCookieString` and `setCookie`.
   * @defaultValue a new tough-cookie `CookieJar` with a memory store (tough-cookie must be installed)
   */
  jar?: CookieJarLike | undefined
  /**
   * Treat every request as a browser's top-level navigation: after a cross-site redirect, a GET
   * or HEAD still sends the target's `SameSite=Lax` cookies (`Strict` ones never). Off, such a
   * request sends only cookies without SameSite or with `SameSite=None`.
   * @defaultValue false
   */
  topLevelNavigation?: boolean | undefined
}

/** The cookies interceptor, with the jar it uses. */
export type CookiesInterceptor = Interceptor & {
  /** The jar cookies are stored in and read from. */
  readonly jar: CookieJarLike
}

function checkJar (jar: unknown): CookieJarLike {
  const candidate = jar as Partial<CookieJarLike> | null
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.getCookieString !== 'function' || typeof candidate.setCookie !== 'function') {
    throw new InvalidArgumentError(`cookies(): jar must have getCookieString() and setCookie() methods (a tough-cookie CookieJar), got ${describeValue(jar)}`)
  }
  return candidate as CookieJarLike
}

// Reports a failure from the asynchronous path, where a throw would become an unhandled rejection.
function failLater (handler: DispatchHandler, err: Error): void {
  try {
    failDispatch(handler, err)
  } catch (thrown) {
    log('handler threw in onResponseError: %s', (thrown as Error).name)
  }
}

function dispatchLater (dispatch: Dispatch, opts: DispatchOptions, jarCookies: string, handler: DispatchHandler): void {
  try {
    dispatch(withJarCookies(opts, jarCookies), handler)
  } catch (err) {
    failLater(handler, err as Error)
  }
}

function readFailure (url: string, cause: unknown): LibraryError {
  return new LibraryError(`cookies(): the cookie jar failed to give the cookies for ${new URL(url).origin}`, { cause })
}

/**
 * The cookies interceptor. List it before `redirect()` in `compose()` (redirect then sees the
 * request first), so each hop's `Set-Cookie` is stored and the next hop's `Cookie` computed.
 * A `Cookie` header the caller sets is kept and comes first; jar cookies with the same names
 * are left out. A bad jar throws an `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.cookies(), interceptors.redirect({ maxRedirections: 3 }))
 * await agent.request({ origin: 'http://127.0.0.1:3000', path: '/login', method: 'POST' })
 * await agent.request({ origin: 'http://127.0.0.1:3000', path: '/account', method: 'GET' }) // sends the session cookie
 */
export function cookies (options: CookiesInterceptorOptions = {}): CookiesInterceptor {
  if (options === null || typeof options !== 'object') {
    failOption('cookies()', 'options', 'an object', options)
  }
  const jar = options.jar === undefined ? newToughCookieJar() : checkJar(options.jar)
  const topLevelNavigation = options.topLevelNavigation ?? false
  if (typeof topLevelNavigation !== 'boolean') failOption('cookies()', 'topLevelNavigation', 'a boolean', topLevelNavigation)
  const registrable = loadRegistrableDomain()
  const access = new JarAccess(jar)
  const interceptor = (dispatch: Dispatch): Dispatch => function cookieDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null || opts.method === 'CONNECT') return dispatch(opts, handler)
    let url: string
    try {
      url = requestUrl(opts)
    } catch {
      // No URL to match cookies against: the layer below reports the bad origin or path.
      return dispatch(opts, handler)
    }
    const context = siteContextOf(new URL(url), redirectedFrom(opts), opts.method, topLevelNavigation, registrable)
    const wrapped = new CookieHandler(handler, access, url, context.store)
    let jarCookies: string | Promise<string>
    try {
      jarCookies = access.read(url, context.send)
    } catch (err) {
      failLater(wrapped, readFailure(url, err))
      return true
    }
    if (typeof jarCookies === 'string') return dispatch(withJarCookies(opts, jarCookies), wrapped)
    jarCookies.then(
      (value) => { dispatchLater(dispatch, opts, value, wrapped) },
      (err: unknown) => { failLater(wrapped, readFailure(url, err)) }
    )
    return true
  }
  return Object.assign(interceptor, { jar })
}
