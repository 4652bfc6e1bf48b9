/**
 * Argument checks shared by the cache stores, so every store words its `TypeError`s the same way.
 * @module
 */

import { STORE_OPTION_FAILURE, describeValue, failOption } from '../src/handler.js'
import type { CacheKey, CacheValue } from '../src/handler.js'

/** Returns `value`, or `fallback` when it is undefined; throws a `TypeError` naming the option otherwise. */
export function assertNonNegativeInteger (owner: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    failOption(owner, name, 'a non-negative integer', value, STORE_OPTION_FAILURE)
  }
  return value
}

/**
 * Throws a `TypeError` unless `value` has the fields a store needs to keep and expire the entry:
 * without a finite `deleteAt` an entry would never expire, without `headers` it cannot be served.
 */
export function assertCacheValue (operation: string, value: unknown): asserts value is CacheValue {
  if (typeof value !== 'object' || value === null) {
    failOption(operation, 'value', 'an object', value, STORE_OPTION_FAILURE)
  }
  const v = value as Record<string, unknown>
  for (const field of ['statusCode', 'cachedAt', 'staleAt', 'deleteAt']) {
    if (typeof v[field] !== 'number' || !Number.isFinite(v[field])) {
      failOption(operation, `value.${field}`, 'a finite number', v[field], STORE_OPTION_FAILURE)
    }
  }
  if (typeof v.headers !== 'object' || v.headers === null) {
    failOption(operation, 'value.headers', 'an object', v.headers, STORE_OPTION_FAILURE)
  }
}

/** Throws a `TypeError` unless `key` is an object with string `origin`, `method` and `path`. */
export function assertKey (operation: string, key: unknown): asserts key is CacheKey {
  if (typeof key !== 'object' || key === null) {
    failOption(operation, 'key', 'an object', key, STORE_OPTION_FAILURE)
  }
  const { origin, method, path } = key as Record<string, unknown>
  if (typeof origin !== 'string' || typeof method !== 'string' || typeof path !== 'string') {
    throw new TypeError(`${operation}: key must have string origin, method and path, got ${describeValue(origin)}, ${describeValue(method)}, ${describeValue(path)}`)
  }
}

/** The one rendering of bad values in error messages, shared with the core. */
export { describeValue }
