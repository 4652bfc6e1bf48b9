/**
 * Options of the deduplicate interceptor, their defaults and their validation.
 * @module
 */

import { InvalidArgumentError, describeValue, failOption } from '../../src/handler.js'
import { SAFE_METHODS } from '../request-identity.js'

/** Options of `interceptors.deduplicate()`; all optional. */
export interface DeduplicateInterceptorOptions {
  /**
   * Methods deduplicated; safe methods only (GET, HEAD, OPTIONS, TRACE).
   * @defaultValue ['GET']
   */
  methods?: readonly string[] | undefined
  /**
   * Request headers whose presence sends a request on its own (e.g. `idempotency-key`); any case.
   * @defaultValue []
   */
  skipHeaderNames?: readonly string[] | undefined
  /**
   * Request headers left out when comparing requests (e.g. `x-request-id`); any case.
   * @defaultValue []
   */
  excludeHeaderNames?: readonly string[] | undefined
  /**
   * Most body bytes held for one paused waiter; past it that waiter fails with `RequestAbortedError`.
   * @defaultValue 5 MiB
   */
  maxBufferSize?: number | undefined
}

/** Options after defaults and validation. */
export interface ResolvedDeduplicateOptions {
  methods: ReadonlySet<string>
  skipHeaderNames: ReadonlySet<string>
  excludeHeaderNames: ReadonlySet<string>
  maxBufferSize: number
}

/** Default of {@link DeduplicateInterceptorOptions.maxBufferSize}. */
export const DEFAULT_DEDUPLICATE_BUFFER = 5 * 1024 * 1024

function names (value: unknown, option: string): ReadonlySet<string> {
  if (value === undefined) return new Set()
  if (!Array.isArray(value)) failOption('deduplicate()', option, 'an array of header names', value)
  for (const name of value) {
    if (typeof name !== 'string' || name === '') throw new InvalidArgumentError(`deduplicate(): ${option} must hold header names, got ${describeValue(name)}`)
  }
  return new Set(value.map((name: string) => name.toLowerCase()))
}

/** Applies defaults; throws `InvalidArgumentError` naming the first bad option. */
export function resolveDeduplicateOptions (options: DeduplicateInterceptorOptions | undefined): ResolvedDeduplicateOptions {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object') {
    failOption('deduplicate()', 'options', 'an object', options)
  }
  const methods = options.methods ?? ['GET']
  if (!Array.isArray(methods)) failOption('deduplicate()', 'methods', 'an array of method names', methods)
  for (const method of methods) {
    if (typeof method !== 'string' || !SAFE_METHODS.has(method)) {
      throw new InvalidArgumentError(`deduplicate(): methods may only contain safe methods (GET, HEAD, OPTIONS, TRACE), got ${describeValue(method)}`)
    }
  }
  const maxBufferSize = options.maxBufferSize ?? DEFAULT_DEDUPLICATE_BUFFER
  if (typeof maxBufferSize !== 'number' || !Number.isSafeInteger(maxBufferSize) || maxBufferSize < 1) {
    failOption('deduplicate()', 'maxBufferSize', 'a positive integer (bytes)', maxBufferSize)
  }
  return {
    methods: new Set(methods),
    skipHeaderNames: names(options.skipHeaderNames, 'skipHeaderNames'),
    excludeHeaderNames: names(options.excludeHeaderNames, 'excludeHeaderNames'),
    maxBufferSize
  }
}
