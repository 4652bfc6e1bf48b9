/**
 * Adding the jar's cookies to a request's `Cookie` header. A Cookie header the caller set is
 * kept as written and comes first; a jar cookie with a name the caller already sends is left
 * out, so the caller's value wins.
 * @module
 */

import { copyOptions, normalizeHeaders } from '../../src/handler.js'
import type { DispatchOptions } from '../../src/handler.js'

function cookieName (pair: string): string {
  const at = pair.indexOf('=')
  return (at === -1 ? '' : pair.slice(0, at)).trim()
}

/** `opts` with `jarCookies` (a `Cookie` header value) merged into its headers; `opts` itself when there are none. */
export function withJarCookies (opts: DispatchOptions, jarCookies: string): DispatchOptions {
  if (jarCookies === '') return opts
  const headers = normalizeHeaders(opts.headers)
  const given = headers.cookie
  const callerCookie = Array.isArray(given) ? given.join('; ') : given ?? ''
  const callerNames = new Set(callerCookie.split(';').map(cookieName))
  const added = jarCookies.split('; ').filter((pair) => !callerNames.has(cookieName(pair)))
  if (added.length === 0) return opts
  headers.cookie = callerCookie === '' ? added.join('; ') : `${callerCookie}; ${added.join('; ')}`
  const sent = copyOptions(opts)
  sent.headers = headers
  return sent
}

/** The absolute URL a dispatch goes to, as the jar matches cookies against it. */
export function requestUrl (opts: DispatchOptions): string {
  const origin = new URL(typeof opts.origin === 'string' ? opts.origin : String(opts.origin)).origin
  // Joined, not resolved: a path like `//other.host/x` goes to this origin, so it must not
  // select the cookies of other.host.
  const url = new URL(`${origin}${opts.path}`)
  if (url.origin !== origin) throw new TypeError(`the path ${JSON.stringify(opts.path)} does not stay on ${origin}`)
  return url.href
}
