/**
 * Where the Redis cache store keeps things. All names derive from the store's `keyPrefix`:
 *
 * - `{prefix}u:{origin}{path}`: the index of one URL, a hash with one field per stored variant
 *   (`{method}:{id}`, the method plus a digest of its `Vary` values) whose value is the id of the
 *   write that stored it. Every write, delete and tag invalidation changes this key, so
 *   client-side tracking of the `u:` prefix sees every change to a URL, and `delete()` finds all
 *   variants of the URL here.
 * - `{prefix}v:{byte length of suffix}:{suffix}{origin}{path}`: one hash per variant, fields `m`
 *   (metadata) and `b` (body), with its own expiry at that variant's `deleteAt`. The length
 *   prefix keeps names unique whatever characters a method or path holds.
 * - `{prefix}t:{tag}`: a set per cache tag, members `{suffix}\n{writeId}\n{url key}`.
 * - `{prefix}l:{method} {tail}`: the lease of a miss being fetched (miss coalescing).
 *
 * Everything after the type letter that names a URL is its *tail*: `{origin}{path}` on a single
 * server. On a Redis Cluster the tail starts with a hash tag, a digest of origin and path in
 * braces, so the index, every variant and the lease of one URL hash to one slot and each script
 * touches one slot only. A digest rather than the URL itself because a URL may hold braces of its
 * own, and the hash tag is the first braced part of a name: that is also why a cluster store's
 * `keyPrefix` must not contain `{`.
 *
 * Why a key per variant rather than two fields per variant in the URL hash: Redis before 7.4 has
 * no per-field expiry, so in one hash a short-lived variant (and its body) would stay until the
 * longest-lived one expired. With its own key, Redis drops each variant at its own time and the
 * index, whose expiry the scripts keep at its longest-lived variant, goes with the last one.
 * @module
 */

import { createHash } from 'node:crypto'

/** Default `keyPrefix` of the Redis cache store. */
export const DEFAULT_KEY_PREFIX = 'conduit:cache:'

/** Field of a variant key holding the variant's metadata. */
export const META_FIELD = 'm'

/** Field of a variant key holding the variant's body. */
export const BODY_FIELD = 'b'

/** The key names of one store, derived from its prefix. */
export interface KeyLayout {
  /** True on a Redis Cluster: URL tails start with a hash tag. */
  readonly hashTagged: boolean
  /** Prefix of every URL index key; client-side tracking broadcasts changes under it. */
  readonly urlPrefix: string
  /** Prefix of every variant key. */
  readonly variantPrefix: string
  /** Prefix of every tag key. */
  readonly tagPrefix: string
  /** Prefix of every miss lease key. */
  readonly leasePrefix: string
}

/** Builds the layout for a `keyPrefix`; `hashTagged` on a Redis Cluster. */
export function keyLayout (keyPrefix: string, hashTagged = false): KeyLayout {
  return {
    hashTagged,
    urlPrefix: `${keyPrefix}u:`,
    variantPrefix: `${keyPrefix}v:`,
    tagPrefix: `${keyPrefix}t:`,
    leasePrefix: `${keyPrefix}l:`
  }
}

/** The part of every key name of one URL that names the URL (see the module comment). */
export function urlTail (layout: KeyLayout, origin: string, path: string): string {
  if (!layout.hashTagged) return origin + path
  const tag = createHash('sha1').update(origin).update(path).digest('hex').slice(0, 16)
  return `{${tag}}${origin}${path}`
}

/** The index hash naming every variant stored for `origin` + `path`. */
export function urlKey (layout: KeyLayout, origin: string, path: string): string {
  return layout.urlPrefix + urlTail(layout, origin, path)
}

/** The lease taken by the one process fetching a missed `method` + URL from the origin. */
export function leaseKey (layout: KeyLayout, method: string, origin: string, path: string): string {
  return `${layout.leasePrefix}${method} ${urlTail(layout, origin, path)}`
}

/**
 * The hash holding one variant's metadata and body. The Lua scripts build the same name from the
 * variant prefix, the suffix and the url key minus the url prefix (`VARIANT_KEY_LUA` in scripts.ts).
 */
export function variantKey (layout: KeyLayout, origin: string, path: string, suffix: string): string {
  return `${layout.variantPrefix}${Buffer.byteLength(suffix)}:${suffix}${urlTail(layout, origin, path)}`
}

/** The set indexing every variant that carried `tag`. */
export function tagKey (layout: KeyLayout, tag: string): string {
  return layout.tagPrefix + tag
}

/**
 * The variant part of the names: the method plus a digest of the `Vary` values, so a new
 * response for the same method and the same `Vary` values replaces the old one in place.
 */
export function variantSuffix (method: string, vary: Record<string, string | string[] | null> | undefined): string {
  const names = vary === undefined ? [] : Object.keys(vary).sort()
  // No Vary and an empty Vary map select the same way, so they must name the same variant.
  if (vary === undefined || names.length === 0) return `${method}:-`
  const canonical = JSON.stringify(names.map((name) => [name, vary[name]]))
  return `${method}:${createHash('sha1').update(canonical).digest('hex').slice(0, 20)}`
}

/** Prefix of the index fields of every variant of `method`. */
export function methodFieldPrefix (method: string): string {
  return `${method}:`
}
