/**
 * The SameSite context of a request (RFC 6265bis section 5.2): whether it is same-site, which
 * decides whether `SameSite=Strict` and `Lax` cookies go with it. A request an HTTP client makes
 * has no document behind it, so it is same-site unless it is the result of a redirect: then it is
 * cross-site when any earlier hop was on another site. A site is the scheme with the registrable
 * domain (the public suffix plus one label), so `http:` and `https:` of one host are two sites.
 * @module
 */

import { SAFE_METHODS } from '../request-identity.js'

/** tough-cookie's names for the three contexts: `strict` sends every cookie, `lax` all but Strict ones, `none` only SameSite=None. */
export type SameSiteContext = 'strict' | 'lax' | 'none'

/** The registrable domain of a host, or null when it has none (an IP address, a public suffix, a bare name). */
export type RegistrableDomain = (host: string) => string | null

/** What the jar is told about one request: the context for the cookies it sends and for those its response sets. */
export interface RequestSiteContext {
  send: SameSiteContext
  store: SameSiteContext
}

const SAME_SITE: RequestSiteContext = Object.freeze({ send: 'strict', store: 'strict' })

function siteOf (origin: URL, registrable: RegistrableDomain): string {
  const host = origin.hostname
  return `${origin.protocol}//${registrable(host) ?? host}`
}

/**
 * The context of a request to `url` after redirects from `previous` (origins). Cross-site, it
 * sends only SameSite=None cookies, or Lax ones too for a safe method when the client acts as a
 * browser's top-level navigation; cookies its response sets are stored whatever their SameSite,
 * as for a navigation (the RFC stores them for a request that has no document behind it).
 */
export function siteContextOf (url: URL, previous: readonly string[], method: string, topLevelNavigation: boolean, registrable: RegistrableDomain): RequestSiteContext {
  if (previous.length === 0) return SAME_SITE
  const site = siteOf(url, registrable)
  let crossSite = false
  for (const origin of previous) {
    let hop: URL
    try {
      hop = new URL(origin)
    } catch {
      crossSite = true
      break
    }
    if (siteOf(hop, registrable) !== site) {
      crossSite = true
      break
    }
  }
  if (!crossSite) return SAME_SITE
  return { send: topLevelNavigation && SAFE_METHODS.has(method) ? 'lax' : 'none', store: 'lax' }
}
