/**
 * Argument conversion shared by Cache and CacheStorage: request inputs, query option
 * dictionaries and the construction guard.
 * @module
 */

import { Request } from '../fetch/request.js'
import type { RequestInfo } from '../fetch/request.js'
import { isForeignRequest } from '../fetch/request-state.js'
import { describeValue } from '../validation/describe-value.js'
import type { QueryFlags } from './entries.js'

/** Passed by CacheStorage to build Cache and CacheStorage objects; `new Cache()` from outside is refused. */
export const CONSTRUCT: unique symbol = Symbol('construct a cache')

/** The TypeError WebIDL throws for an interface with no public constructor. */
export function illegalConstructor (name: string): TypeError {
  return new TypeError(`${name}: Illegal constructor (use caches.open())`)
}

/** A request input as the Cache methods see it: a Request object, or a URL that becomes a GET Request. */
export interface QueryInput {
  request: Request
  /** False for a URL given as a string: its method is GET whatever the options say. */
  isRequestObject: boolean
}

/** Converts a RequestInfo: a Request (this library's or the runtime's) is used as is, anything else as a URL string. */
export function toQueryInput (input: unknown, what: string): QueryInput {
  if (input instanceof Request) return { request: input, isRequestObject: true }
  if (isForeignRequest(input)) return { request: new Request(input as RequestInfo), isRequestObject: true }
  if (typeof input === 'symbol') throw new TypeError(`${what}: ${describeValue(input)} cannot be converted to a URL`)
  return { request: new Request(String(input)), isRequestObject: false }
}

/** Converts a CacheQueryOptions dictionary (null and undefined are empty ones). */
export function toQueryFlags (options: unknown, what: string): QueryFlags {
  if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
    throw new TypeError(`${what}: options must be an object, got ${describeValue(options)}`)
  }
  const dict = (options ?? {}) as Record<string, unknown>
  return { ignoreMethod: Boolean(dict.ignoreMethod), ignoreSearch: Boolean(dict.ignoreSearch), ignoreVary: Boolean(dict.ignoreVary) }
}

/** True for a URL the Cache may store: http or https. */
export function isHttpUrl (url: string): boolean {
  return url.startsWith('http:') || url.startsWith('https:')
}
