/**
 * Options of the decompress interceptor, their defaults and their validation.
 * @module
 */

import { InvalidArgumentError, describeValue, failOption } from '../../src/handler.js'

/** Options of `interceptors.decompress()`; all optional. */
export interface DecompressInterceptorOptions {
  /**
   * Leave responses with status >= 400 encoded.
   * @defaultValue true
   */
  skipErrorResponses?: boolean | undefined
  /**
   * Statuses whose bodies are left encoded.
   * @defaultValue [204, 304]
   */
  skipStatusCodes?: readonly number[] | undefined
  /**
   * Most decoded bytes one response may produce; past it the request fails with
   * `ResponseExceededMaxSizeError`. 0 means no limit. The dispatcher's `maxResponseSize`, when
   * set, bounds the decoded bytes as well; the smaller limit applies.
   * @defaultValue 0
   */
  maxSize?: number | undefined
}

/** Options after defaults and validation. */
export interface ResolvedDecompressOptions {
  skipErrorResponses: boolean
  skipStatusCodes: ReadonlySet<number>
  maxSize: number
}

/** Default of {@link DecompressInterceptorOptions.skipStatusCodes}: bodiless answers. */
export const DEFAULT_SKIP_STATUS_CODES: readonly number[] = [204, 304]

/** Applies defaults; throws `InvalidArgumentError` naming the first bad option. */
export function resolveDecompressOptions (options: DecompressInterceptorOptions | undefined): ResolvedDecompressOptions {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object') {
    failOption('decompress()', 'options', 'an object', options)
  }
  const skipErrorResponses = options.skipErrorResponses ?? true
  if (typeof skipErrorResponses !== 'boolean') {
    failOption('decompress()', 'skipErrorResponses', 'a boolean', skipErrorResponses)
  }
  const skipStatusCodes = options.skipStatusCodes ?? DEFAULT_SKIP_STATUS_CODES
  if (!Array.isArray(skipStatusCodes)) {
    failOption('decompress()', 'skipStatusCodes', 'an array of status codes', skipStatusCodes)
  }
  for (const status of skipStatusCodes) {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 999) {
      throw new InvalidArgumentError(`decompress(): skipStatusCodes must hold status codes (100-999), got ${describeValue(status)}`)
    }
  }
  const maxSize = options.maxSize ?? 0
  if (typeof maxSize !== 'number' || !Number.isSafeInteger(maxSize) || maxSize < 0) {
    failOption('decompress()', 'maxSize', 'a non-negative integer (0: no limit)', maxSize)
  }
  return { skipErrorResponses, skipStatusCodes: new Set(skipStatusCodes), maxSize }
}
