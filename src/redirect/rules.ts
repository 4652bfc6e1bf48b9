/**
 * The rules of following an HTTP redirect that fetch() and the redirect interceptor both apply:
 * which statuses redirect, where the Location points, when the request turns into a bodiless
 * GET, and which request headers must not travel to another origin (RFC 9110 section 15.4 and
 * the Fetch Standard's "HTTP-redirect fetch").
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'

/** Statuses that redirect in the Fetch sense; 300 Multiple Choices is not one of them. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/** Request headers that describe the body; removed when a redirect drops the body. */
export const REQUEST_BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'] as const

/** A redirect response that was followed: its status and head, for layers that must judge it. */
export interface FollowedRedirect {
  statusCode: number
  headers: IncomingHeaders
}

/**
 * Key of the request context property (set by the redirect interceptor next to `history`) that
 * lists the redirect responses followed so far, so a cache above can tell whether each of them
 * allowed storing the final answer under the first URL.
 */
export const FOLLOWED_REDIRECTS: unique symbol = Symbol.for('conduit.followedRedirects')

/**
 * Key of the dispatch option that fetch and the redirect interceptor set on every hop after the
 * first: the origins of the hops before it, first first. A layer below (the cookie jar) tells
 * from it whether the request is the result of a cross-site redirect.
 */
export const REDIRECTED_FROM: unique symbol = Symbol.for('conduit.redirectedFrom')

/** The origins of the hops before this one (empty for a request that was not redirected). */
export function redirectedFrom (opts: object): readonly string[] {
  const chain = (opts as { [REDIRECTED_FROM]?: unknown })[REDIRECTED_FROM]
  return Array.isArray(chain) ? chain as readonly string[] : NO_HOPS
}

/** `opts` as the next hop of a redirect from `previous` (an origin) dispatches it. */
export function withRedirectedFrom<T extends object> (opts: T, previous: readonly string[]): T {
  return Object.assign(opts, { [REDIRECTED_FROM]: previous })
}

const NO_HOPS: readonly string[] = Object.freeze([])

/** Request headers that carry credentials; removed when a redirect leaves the origin. */
export const CROSS_ORIGIN_STRIPPED_HEADERS = ['authorization', 'cookie', 'proxy-authorization'] as const

/**
 * True when following a `status` redirect turns a `method` request into a GET without a body:
 * a POST after 301 or 302 (what every browser does), anything but GET or HEAD after 303.
 * 307 and 308 keep the method and the body.
 */
export function redirectsToGet (status: number, method: string): boolean {
  if (status === 301 || status === 302) return method === 'POST'
  if (status === 303) return method !== 'GET' && method !== 'HEAD'
  return false
}

/** The `Location` of a redirect response resolved against `base`; null when there is none. */
export function redirectLocation (headers: IncomingHeaders, base: URL): URL | null {
  const raw = headers.location
  const location = Array.isArray(raw) ? raw[0] : raw
  if (location === undefined) return null
  // Location carries raw bytes; they are Latin-1 on the wire but usually UTF-8 in intent.
  const text = /[\u0080-\u00ff]/.test(location) ? Buffer.from(location, 'latin1').toString('utf8') : location
  const url = new URL(text, base)
  if (url.hash === '' && base.hash !== '') url.hash = base.hash
  return url
}

/**
 * The request headers (lower-case) to remove before the next hop: the body's description when
 * the body is dropped, the credentials and `Host` when the next hop is another origin.
 */
export function headersDroppedByRedirect (toGet: boolean, crossOrigin: boolean): readonly string[] {
  if (!toGet && !crossOrigin) return NOTHING
  if (toGet && crossOrigin) return BOTH
  return toGet ? REQUEST_BODY_HEADERS : CROSS_ORIGIN
}

const NOTHING: readonly string[] = []
const CROSS_ORIGIN: readonly string[] = [...CROSS_ORIGIN_STRIPPED_HEADERS, 'host']
const BOTH: readonly string[] = [...REQUEST_BODY_HEADERS, ...CROSS_ORIGIN]
