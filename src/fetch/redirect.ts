/**
 * Following a redirect in fetch (Fetch Standard, "HTTP-redirect fetch"): the checks only fetch
 * makes (redirect count, credentials in the URL, mode), on top of the shared redirect rules.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { headersDroppedByRedirect, redirectsToGet } from '../redirect/rules.js'
import { isStreamSource } from './body.js'
import { MAX_REDIRECTS } from './constants.js'
import { headersInternals } from './headers.js'
import { parseReferrerPolicyHeader } from './referrer.js'
import { hrefWithoutCredentials } from '../observability/redaction.js'
import type { RequestState } from './request-state.js'

/**
 * Why fetch did not follow a redirect: the cause of its network error. A plain Error as undici's
 * (no `code`), of its own class so that an EventSource tells a redirect it must not retry from a
 * network failure.
 */
export class RedirectRefusedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'RedirectRefusedError'
  }
}

/**
 * Rewrites `state` for the next hop to `location` after a `status` response. Returns a
 * `RedirectRefusedError` describing why the redirect cannot be followed (fetch turns it into a network
 * error with it as the cause, by which an EventSource knows not to retry), or null.
 */
export function applyRedirect (state: RequestState, status: number, location: URL, responseHeaders: IncomingHeaders): RedirectRefusedError | null {
  if (location.protocol !== 'http:' && location.protocol !== 'https:') {
    return new RedirectRefusedError(`redirect to a non-HTTP(S) URL: ${hrefWithoutCredentials(location)}`)
  }
  if (state.urlList.length > MAX_REDIRECTS) return new RedirectRefusedError(`redirect count exceeded (more than ${MAX_REDIRECTS})`)
  if (location.username !== '' || location.password !== '') {
    return new RedirectRefusedError(`redirect to a URL with credentials: ${location.origin}`)
  }
  if (state.mode === 'same-origin' && location.origin !== state.urlList[0]!.origin) {
    return new RedirectRefusedError(`redirect to another origin in 'same-origin' mode: ${location.origin}`)
  }
  if (status !== 303 && state.body !== null && isStreamSource(state.body.source)) {
    return new RedirectRefusedError('cannot follow a redirect with a streamed request body')
  }
  const current = state.urlList[state.urlList.length - 1]!
  const toGet = redirectsToGet(status, state.method)
  if (toGet) {
    state.method = 'GET'
    state.body = null
  }
  // Fetch keeps Host on a same-origin hop; the shared list drops it only across origins.
  for (const name of headersDroppedByRedirect(toGet, location.origin !== current.origin)) headersInternals.remove(state.headers, name)
  const policy = parseReferrerPolicyHeader(responseHeaders['referrer-policy'])
  if (policy !== '') state.referrerPolicy = policy
  state.urlList.push(location)
  return null
}
