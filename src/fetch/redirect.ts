/**
 * Following a redirect (Fetch Standard, "HTTP-redirect fetch"): the next URL, the method and
 * body rewriting of 301/302/303, and the headers dropped when the redirect leaves the origin.
 * @module
 */

import type { IncomingHeaders } from '../handler.js'
import { isStreamSource } from './body.js'
import { CROSS_ORIGIN_STRIPPED_HEADERS, MAX_REDIRECTS, REQUEST_BODY_HEADERS } from './constants.js'
import { headersInternals } from './headers.js'
import { parseReferrerPolicyHeader } from './referrer.js'
import type { RequestState } from './request-state.js'

function headerValue (headers: IncomingHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The location a redirect response points to, resolved against `base`; null when it has none. */
export function redirectLocation (headers: IncomingHeaders, base: URL): URL | null {
  const location = headerValue(headers, 'location')
  if (location === undefined) return null
  // Location carries raw bytes; they are Latin-1 on the wire but usually UTF-8 in intent.
  const text = /[\u0080-\u00ff]/.test(location) ? Buffer.from(location, 'latin1').toString('utf8') : location
  const url = new URL(text, base)
  if (url.hash === '' && base.hash !== '') url.hash = base.hash
  return url
}

/**
 * Rewrites `state` for the next hop to `location` after a `status` response. Returns an Error
 * describing why the redirect cannot be followed (fetch turns it into a network error), or null.
 */
export function applyRedirect (state: RequestState, status: number, location: URL, responseHeaders: IncomingHeaders): Error | null {
  if (location.protocol !== 'http:' && location.protocol !== 'https:') {
    return new Error(`redirect to a non-HTTP(S) URL: ${location.href}`)
  }
  if (state.urlList.length > MAX_REDIRECTS) return new Error(`redirect count exceeded (more than ${MAX_REDIRECTS})`)
  if (location.username !== '' || location.password !== '') {
    return new Error(`redirect to a URL with credentials: ${location.origin}`)
  }
  if (state.mode === 'same-origin' && location.origin !== state.urlList[0]!.origin) {
    return new Error(`redirect to another origin in 'same-origin' mode: ${location.origin}`)
  }
  if (status !== 303 && state.body !== null && isStreamSource(state.body.source)) {
    return new Error('cannot follow a redirect with a streamed request body')
  }
  const current = state.urlList[state.urlList.length - 1]!
  if (((status === 301 || status === 302) && state.method === 'POST') ||
    (status === 303 && state.method !== 'GET' && state.method !== 'HEAD')) {
    state.method = 'GET'
    state.body = null
    for (const name of REQUEST_BODY_HEADERS) headersInternals.remove(state.headers, name)
  }
  if (location.origin !== current.origin) {
    for (const name of CROSS_ORIGIN_STRIPPED_HEADERS) headersInternals.remove(state.headers, name)
    headersInternals.remove(state.headers, 'host')
  }
  const policy = parseReferrerPolicyHeader(responseHeaders['referrer-policy'])
  if (policy !== '') state.referrerPolicy = policy
  state.urlList.push(location)
  return null
}
