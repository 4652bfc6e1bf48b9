/**
 * Where the Redis cache store keeps things. All names derive from the store's `keyPrefix`:
 *
 * - `{prefix}u:{origin}{path}`: one hash per URL. Every stored variant (method + `Vary` values)
 *   is two fields of it, `m:{method}:{id}` (metadata) and `b:{method}:{id}` (body). One key per
 *   URL makes `delete()` a single `DEL` and lets client-side tracking invalidate by URL.
 * - `{prefix}t:{tag}`: a set per cache tag, members `{method}:{id}\n{writeId}\n{url key}`.
 * @module
 */

import { createHash } from 'node:crypto'

/** Default `keyPrefix` of the Redis cache store. */
export const DEFAULT_KEY_PREFIX = 'conduit:cache:'

/** The key names of one store, derived from its prefix. */
export interface KeyLayout {
  /** Prefix of every URL key; client-side tracking broadcasts changes under it. */
  readonly urlPrefix: string
  /** Prefix of every tag key. */
  readonly tagPrefix: string
}

/** Builds the layout for a `keyPrefix`. */
export function keyLayout (keyPrefix: string): KeyLayout {
  return { urlPrefix: `${keyPrefix}u:`, tagPrefix: `${keyPrefix}t:` }
}

/** The hash holding every variant stored for `origin` + `path`. */
export function urlKey (layout: KeyLayout, origin: string, path: string): string {
  return layout.urlPrefix + origin + path
}

/** The set indexing every variant that carried `tag`. */
export function tagKey (layout: KeyLayout, tag: string): string {
  return layout.tagPrefix + tag
}

/**
 * The variant part of the field names: the method plus a digest of the `Vary` values, so a new
 * response for the same method and the same `Vary` values replaces the old one in place.
 */
export function variantSuffix (method: string, vary: Record<string, string | string[] | null> | undefined): string {
  const names = vary === undefined ? [] : Object.keys(vary).sort()
  // No Vary and an empty Vary map select the same way, so they must name the same variant.
  if (vary === undefined || names.length === 0) return `${method}:-`
  const canonical = JSON.stringify(names.map((name) => [name, vary[name]]))
  return `${method}:${createHash('sha1').update(canonical).digest('hex').slice(0, 20)}`
}

/** Field holding a variant's metadata. */
export function metaField (suffix: string): string {
  return `m:${suffix}`
}

/** Field holding a variant's body. */
export function bodyField (suffix: string): string {
  return `b:${suffix}`
}

/** Prefix of the metadata fields of every variant of `method`. */
export function metaFieldPrefix (method: string): string {
  return `m:${method}:`
}
