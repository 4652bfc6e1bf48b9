/**
 * When a response that arrived through followed redirects must not be stored under the key of
 * the request that started them. The key holds neither the credentials nor the hops, so storing
 * would hand one user's answer to another: `/me` with a session redirects to `/profile/alice`,
 * and the next caller of `/me`, signed in or not, would be served Alice's profile.
 * @module
 */

import { CROSS_ORIGIN_STRIPPED_HEADERS as CREDENTIAL_HEADERS, FOLLOWED_REDIRECTS } from '../../src/handler.js'
import type { CacheKey, FollowedRedirect } from '../../src/handler.js'
import { showOrigin } from '../../src/handler.js'
// The credentials a cross-origin redirect drops are the ones that tie a response to its sender.
import type { StorageDecision } from './storage-decision.js'

/** What a redirect layer below reported in the request context: the URLs and the redirects followed. */
export interface RedirectTrail {
  history: readonly URL[]
  /** Undefined when the layer did not say (a redirect layer of another library). */
  followed: readonly FollowedRedirect[] | undefined
}

/** The redirect trail in a request context (`context.history` and the followed redirects), if any. */
export function redirectTrail (context: unknown): RedirectTrail {
  const holder = context as { history?: unknown, [FOLLOWED_REDIRECTS]?: unknown } | null | undefined
  const history = holder?.history
  const followed = holder?.[FOLLOWED_REDIRECTS]
  return {
    history: Array.isArray(history) ? history as URL[] : [],
    followed: Array.isArray(followed) ? followed as FollowedRedirect[] : undefined
  }
}

/**
 * Why a response reached through the redirects in `trail` must not be stored under `key`, or
 * undefined when it may be: no redirect followed, or no credentials sent, every hop on the key's
 * origin, and every redirect storable by itself (`storable`).
 */
export function redirectedStorageRefusal (key: CacheKey, trail: RedirectTrail, storable: (redirect: FollowedRedirect) => StorageDecision): string | undefined {
  const { history, followed } = trail
  // One entry is the request itself: no redirect was followed.
  if (history.length < 2) return undefined
  const headers = key.headers ?? {}
  if (CREDENTIAL_HEADERS.some((name) => headers[name] !== undefined)) {
    return 'the request carried credentials and was redirected; the answer may belong to that user only'
  }
  const foreign = history.find((hop) => hop.origin !== key.origin)
  if (foreign !== undefined) return `a redirect went through another origin (${showOrigin(foreign.origin)})`
  // Each redirect must itself be storable and fresh, or an answer it did not allow (private,
  // no-store, never fresh) would be kept under its URL.
  if (followed === undefined) return 'a redirect was followed by a layer that does not report its responses'
  for (const redirect of followed) {
    const decision = storable(redirect)
    if (!decision.store) return `the ${redirect.statusCode} redirect on the way may not be stored (${decision.reason})`
    // Storable only to be revalidated is not enough: the answer would be reused without asking.
    if (decision.value.staleAt <= decision.value.cachedAt) return `the ${redirect.statusCode} redirect on the way is stale on arrival`
  }
  return undefined
}
