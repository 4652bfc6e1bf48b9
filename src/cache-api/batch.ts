/**
 * The Service Workers "batch cache operations" step: puts and deletes applied to a cache's list
 * together, or not at all.
 * @module
 */

import type { CacheEntry, QueryFlags, RequestQuery, StoredRequest, StoredResponse } from './entries.js'
import { CacheList } from './cache-list.js'

/** One operation of a batch. */
export type CacheOperation =
  | { type: 'put', request: StoredRequest, response: StoredResponse }
  | { type: 'delete', request: RequestQuery, flags: QueryFlags }

/**
 * Applies `operations` to `list` and returns the entries they touched. Two puts of the same
 * request in one batch are an `InvalidStateError`, and the list is left as it was.
 */
export function batchCacheOperations (list: CacheList, operations: readonly CacheOperation[]): CacheEntry[] {
  // That refusal depends on the batch alone, so it is found before the list changes: nothing
  // has to be rolled back (and no copy of a long list is made for the case that it had to be).
  const added = new CacheList()
  const entries: Array<CacheEntry | null> = []
  for (const operation of operations) {
    const flags = operation.type === 'delete' ? operation.flags : null
    if (added.query(operation.request, flags).length > 0) {
      throw new DOMException(`Cache: the batch names ${operation.request.url} twice`, 'InvalidStateError')
    }
    if (operation.type === 'delete') {
      entries.push(null)
    } else {
      const entry = { request: operation.request, response: operation.response }
      added.append(entry)
      entries.push(entry)
    }
  }
  const touched: CacheEntry[] = []
  for (let i = 0; i < operations.length; i++) {
    const operation = operations[i]!
    const entry = entries[i]
    if (operation.type === 'delete') {
      const found = list.query(operation.request, operation.flags)
      if (found.length === 0) return []
      for (const old of found) list.remove(old)
      touched.push(...found)
    } else if (entry != null) {
      for (const old of list.query(operation.request, null)) list.remove(old)
      list.append(entry)
      touched.push(entry)
    }
  }
  return touched
}
