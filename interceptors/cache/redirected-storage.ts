/**
 * When a response that arrived through followed redirects must not be stored under the key of
 * the request that started them. The key holds neither the credentials nor the hops, so storing
 * would hand one user's answer to another: `/me` with a session redirects to `/profile/alice`,
 * and the next caller of `/me`, signed in or not, would be served Alice's profile.
 * @module
 */

import type { CacheKey } from '../../src/contracts/cache-store.js'
// The credentials a cross-origin redirect drops are the ones that tie a response to its sender.
import { CROSS_ORIGIN_STRIPPED_HEADERS as CREDENTIAL_HEADERS } from '../../src/redirect/rules.js'

/** The URLs a redirect layer below reported in the request context (`context.history`), if any. */
export function redirectHistory (context: unknown): readonly URL[] {
  const history = (context as { history?: unknown } | null | undefined)?.history
  return Array.isArray(history) ? history as URL[] : []
}

/**
 * Why a response reached after the redirect hops in `history` must not be stored under `key`,
 * or undefined when it may be (no redirect followed, or every hop on the key's origin and no
 * credentials sent).
 */
export function redirectedStorageRefusal (key: CacheKey, history: readonly URL[]): string | undefined {
  // One entry is the request itself: no redirect was followed.
  if (history.length < 2) return undefined
  const headers = key.headers ?? {}
  if (CREDENTIAL_HEADERS.some((name) => headers[name] !== undefined)) {
    return 'the request carried credentials and was redirected; the answer may belong to that user only'
  }
  const foreign = history.find((hop) => hop.origin !== key.origin)
  if (foreign !== undefined) return `a redirect went through another origin (${foreign.origin})`
  return undefined
}
