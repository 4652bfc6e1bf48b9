/**
 * Argument checks shared by the cache stores, so every store words its `TypeError`s the same way.
 * @module
 */

import type { CacheKey } from '../src/cache-store.js'
import { describeValue } from '../src/describe-value.js'

/** Returns `value`, or `fallback` when it is undefined; throws a `TypeError` naming the option otherwise. */
export function assertNonNegativeInteger (owner: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`${owner}: ${name} must be a non-negative integer, got ${describeValue(value)}`)
  }
  return value
}

/** Throws a `TypeError` unless `key` is an object with string `origin`, `method` and `path`. */
export function assertKey (operation: string, key: unknown): asserts key is CacheKey {
  if (typeof key !== 'object' || key === null) {
    throw new TypeError(`${operation}: key must be an object, got ${describeValue(key)}`)
  }
  const { origin, method, path } = key as Record<string, unknown>
  if (typeof origin !== 'string' || typeof method !== 'string' || typeof path !== 'string') {
    throw new TypeError(`${operation}: key must have string origin, method and path, got ${describeValue(origin)}, ${describeValue(method)}, ${describeValue(path)}`)
  }
}

/** The one rendering of bad values in error messages, shared with the core. */
export { describeValue }
