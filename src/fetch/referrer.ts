/**
 * The `Referer` header fetch sends, per the Referrer Policy specification. Outside a browser
 * there is no client to take a referrer from, so only an explicit `referrer` URL produces one.
 * @module
 */

import { DEFAULT_REFERRER_POLICY, REFERRER_POLICY } from './constants.js'
import type { ReferrerPolicy } from './constants.js'

function stripForReferrer (url: URL, originOnly: boolean): string {
  if (originOnly) return `${url.origin}/`
  const copy = new URL(url.href)
  copy.username = ''
  copy.password = ''
  copy.hash = ''
  return copy.href
}

function isPotentiallyTrustworthy (url: URL): boolean {
  return url.protocol === 'https:' || url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]'
}

/** The value of the `Referer` header for a request to `target`, or null for none. */
export function referrerFor (referrer: 'client' | 'no-referrer' | URL, policy: ReferrerPolicy, target: URL): string | null {
  if (!(referrer instanceof URL)) return null
  if (referrer.protocol !== 'http:' && referrer.protocol !== 'https:') return null
  const sameOrigin = referrer.origin === target.origin
  const downgrade = isPotentiallyTrustworthy(referrer) && !isPotentiallyTrustworthy(target)
  switch (policy === '' ? DEFAULT_REFERRER_POLICY : policy) {
    case 'no-referrer': return null
    case 'origin': return stripForReferrer(referrer, true)
    case 'unsafe-url': return stripForReferrer(referrer, false)
    case 'strict-origin': return downgrade ? null : stripForReferrer(referrer, true)
    case 'same-origin': return sameOrigin ? stripForReferrer(referrer, false) : null
    case 'origin-when-cross-origin': return stripForReferrer(referrer, !sameOrigin)
    case 'no-referrer-when-downgrade': return downgrade ? null : stripForReferrer(referrer, false)
    default: return downgrade ? null : stripForReferrer(referrer, !sameOrigin)
  }
}

/** The last valid token of a `Referrer-Policy` response header, or `''`. */
export function parseReferrerPolicyHeader (value: string | string[] | undefined): ReferrerPolicy {
  if (value === undefined) return ''
  const tokens = (Array.isArray(value) ? value.join(',') : value).split(',')
  let policy: ReferrerPolicy = ''
  for (const token of tokens) {
    const candidate = token.trim().toLowerCase()
    if (candidate !== '' && (REFERRER_POLICY as readonly string[]).includes(candidate)) policy = candidate as ReferrerPolicy
  }
  return policy
}
