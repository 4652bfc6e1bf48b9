/**
 * The keys and values the cluster benchmark stores and its client processes read.
 * @module
 */

import type { CacheKey, CacheValue } from '../../src/contracts/cache-store.js'

/** The cache key of benchmark response `i`. */
export function benchKey (i: number): CacheKey {
  return { origin: 'http://127.0.0.1:8080', method: 'GET', path: `/bench/${i}`, headers: {} }
}

/** A response value fresh for an hour. */
export function benchValue (): CacheValue {
  const now = Date.now()
  return { statusCode: 200, statusMessage: 'OK', headers: { 'content-type': 'application/json' }, cachedAt: now, staleAt: now + 3_600_000, deleteAt: now + 3_600_000 }
}
