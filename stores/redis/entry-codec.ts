/**
 * How a variant's metadata is written to and read from Redis, and which cache tags a response
 * carries. The stored form is `{writeId}\n{JSON}`: the write id travels with the metadata so the
 * memory tier can tell whether a body read later belongs to the variant it holds.
 * Variant selection by `Vary` is the one all stores share (`stores/vary-match.ts`).
 * @module
 */

import type { CacheValue } from '../../src/handler.js'

/** A variant's metadata as read back from Redis. */
export interface StoredMeta {
  /** The `{method}:{id}` part of its field names. */
  suffix: string
  /** Identifies one write, so tag invalidation never removes a later rewrite of the variant. */
  writeId: string
  value: CacheValue
  /** Length of the stored form, counted by the memory tier. */
  size: number
}

/** Encodes a value's metadata; fields that are `undefined` are left out. */
export function encodeMeta (value: CacheValue, writeId: string): string {
  const json: CacheValue = {
    statusCode: value.statusCode,
    statusMessage: value.statusMessage,
    headers: value.headers,
    cachedAt: value.cachedAt,
    staleAt: value.staleAt,
    deleteAt: value.deleteAt
  }
  if (value.vary !== undefined) json.vary = value.vary
  if (value.etag !== undefined) json.etag = value.etag
  if (value.cacheControlDirectives !== undefined) json.cacheControlDirectives = value.cacheControlDirectives
  return `${writeId}\n${JSON.stringify(json)}`
}

/**
 * Decodes what {@link encodeMeta} wrote. Throws a `TypeError` naming the variant when the stored
 * form is damaged (another program wrote under our prefix), which the store reports and treats
 * as a miss.
 */
export function decodeMeta (suffix: string, stored: string): StoredMeta {
  const newline = stored.indexOf('\n')
  if (newline === -1) throw new TypeError(`RedisCacheStore: damaged metadata of variant ${suffix}`)
  const value = JSON.parse(stored.slice(newline + 1)) as CacheValue
  if (
    value === null || typeof value !== 'object' ||
    typeof value.statusCode !== 'number' || typeof value.deleteAt !== 'number' ||
    value.headers === null || typeof value.headers !== 'object'
  ) {
    throw new TypeError(`RedisCacheStore: damaged metadata of variant ${suffix}`)
  }
  return { suffix, writeId: stored.slice(0, newline), value, size: stored.length }
}

/**
 * The cache tags a response carries in `headerName` (comma-separated, repeats allowed), trimmed,
 * without empties or duplicates.
 */
export function parseTags (headers: Record<string, string | string[]>, headerName: string | null): string[] {
  if (headerName === null) return []
  const raw = headers[headerName]
  if (raw === undefined) return []
  const tags = new Set<string>()
  for (const line of Array.isArray(raw) ? raw : [raw]) {
    for (const part of String(line).split(',')) {
      const tag = part.trim()
      if (tag !== '') tags.add(tag)
    }
  }
  return [...tags]
}
