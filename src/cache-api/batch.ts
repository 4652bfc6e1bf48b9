/**
 * The Service Workers "batch cache operations" step: puts and deletes applied to a cache's list
 * together, or not at all.
 * @module
 */

import type { CacheEntry, QueryFlags, RequestQuery, StoredRequest, StoredResponse } from './entries.js'
import { queryCache } from './entries.js'

/** One operation of a batch. */
export type CacheOperation =
  | { type: 'put', request: StoredRequest, response: StoredResponse }
  | { type: 'delete', request: RequestQuery, flags: QueryFlags }

/**
 * Applies `operations` to `list` in place and returns the entries they touched. Two puts of the
 * same request in one batch are an `InvalidStateError`, and the list is left as it was.
 */
export function batchCacheOperations (list: CacheEntry[], operations: readonly CacheOperation[]): CacheEntry[] {
  const backup = [...list]
  const added: CacheEntry[] = []
  const touched: CacheEntry[] = []
  try {
    for (const operation of operations) {
      const flags = operation.type === 'delete' ? operation.flags : null
      if (queryCache(added, operation.request, flags).length > 0) {
        throw new DOMException(`Cache: the batch names ${operation.request.url} twice`, 'InvalidStateError')
      }
      if (operation.type === 'delete') {
        const found = queryCache(list, operation.request, flags)
        if (found.length === 0) return []
        removeEntries(list, found)
        touched.push(...found)
      } else {
        removeEntries(list, queryCache(list, operation.request, null))
        const entry = { request: operation.request, response: operation.response }
        list.push(entry)
        added.push(entry)
        touched.push(entry)
      }
    }
    return touched
  } catch (err) {
    // Restored in place: the CacheStorage and every Cache object share this very list.
    list.splice(0, list.length, ...backup)
    throw err
  }
}

function removeEntries (list: CacheEntry[], entries: readonly CacheEntry[]): void {
  for (const entry of entries) list.splice(list.indexOf(entry), 1)
}
