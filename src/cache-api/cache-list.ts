/**
 * A cache's request-response list, indexed. The standard describes a list that every query
 * walks from the start; with thousands of entries that made each `put` cost a pass over all of
 * them. Here a query only looks at the entries stored for its URL (or, with `ignoreSearch`, for
 * its URL without the query), and still answers in list order.
 * @module
 */

import type { CacheEntry, QueryFlags, RequestQuery } from './entries.js'
import { entryMatches, urlKeys } from './entries.js'

/** The entries of one cache, in the order they were added, looked up by URL. */
export class CacheList {
  // A Set keeps insertion order (the standard's list order) and removes in constant time.
  readonly #entries = new Set<CacheEntry>()
  // By URL without fragment: what a query without ignoreSearch can select.
  readonly #byUrl = new Map<string, Set<CacheEntry>>()
  // By URL without query and fragment: what a query with ignoreSearch can select.
  readonly #byPath = new Map<string, Set<CacheEntry>>()

  /** How many entries the list holds. */
  get size (): number {
    return this.#entries.size
  }

  /** Every entry, in list order. */
  all (): CacheEntry[] {
    return [...this.#entries]
  }

  /** The entries `query` selects (Vary and the flags applied), in list order. */
  query (query: RequestQuery, flags: QueryFlags | null): CacheEntry[] {
    const keys = urlKeys(query.url)
    const candidates = flags?.ignoreSearch === true ? this.#byPath.get(keys.path) : this.#byUrl.get(keys.url)
    if (candidates === undefined) return []
    const found: CacheEntry[] = []
    for (const entry of candidates) {
      if (entryMatches(query, entry, flags)) found.push(entry)
    }
    return found
  }

  /** Adds `entry` at the end of the list. */
  append (entry: CacheEntry): void {
    this.#entries.add(entry)
    addTo(this.#byUrl, entry.request.keys.url, entry)
    addTo(this.#byPath, entry.request.keys.path, entry)
  }

  /** Removes `entry` from the list (nothing happens when it is not in it). */
  remove (entry: CacheEntry): void {
    if (!this.#entries.delete(entry)) return
    removeFrom(this.#byUrl, entry.request.keys.url, entry)
    removeFrom(this.#byPath, entry.request.keys.path, entry)
  }
}

function addTo (index: Map<string, Set<CacheEntry>>, key: string, entry: CacheEntry): void {
  const bucket = index.get(key)
  if (bucket === undefined) index.set(key, new Set([entry]))
  else bucket.add(entry)
}

function removeFrom (index: Map<string, Set<CacheEntry>>, key: string, entry: CacheEntry): void {
  const bucket = index.get(key)
  if (bucket === undefined) return
  bucket.delete(entry)
  if (bucket.size === 0) index.delete(key)
}
