/**
 * Types of the cache store contract (SPEC.md "Cache store contract"): what the cache interceptor
 * asks of a store, and what a store hands back. Stores and the interceptor both import these.
 * @module
 */

import type { Readable, Writable } from 'node:stream'

/** The request a response is looked up or stored for. */
export interface CacheKey {
  /** Origin, e.g. `https://example.org`. */
  origin: string
  /** Request method. */
  method: string
  /** Path with query. */
  path: string
  /** Request headers (lower-case names), used to satisfy `Vary`. */
  headers?: Record<string, string | string[]> | undefined
}

/** Parsed `Cache-Control` directives of a response (RFC 9111 §5.2.2). */
export interface CacheControlDirectives {
  'max-stale'?: number
  'min-fresh'?: number
  'max-age'?: number
  's-maxage'?: number
  'stale-while-revalidate'?: number
  'stale-if-error'?: number
  public?: true
  private?: true | string[]
  'no-store'?: true
  'no-cache'?: true | string[]
  'must-revalidate'?: true
  'proxy-revalidate'?: true
  immutable?: true
  'no-transform'?: true
  'must-understand'?: true
  'only-if-cached'?: true
}

/** Response metadata stored next to the body. */
export interface CacheValue {
  statusCode: number
  statusMessage: string
  headers: Record<string, string | string[]>
  /** Header names of the response's `Vary`, mapped to the request's values (`null`: absent). */
  vary?: Record<string, string | string[] | null> | undefined
  etag?: string | undefined
  cacheControlDirectives?: CacheControlDirectives | undefined
  /** When the response was cached (ms since the epoch). */
  cachedAt: number
  /** When it becomes stale (ms since the epoch). */
  staleAt: number
  /** When a store must stop returning it (ms since the epoch). */
  deleteAt: number
}

/** What a store's `get` returns: the metadata and, optionally, the body. */
export interface GetResult extends CacheValue {
  body?: Readable | Iterable<Buffer> | AsyncIterable<Buffer> | Buffer | string | null | undefined
}

/** A cache store: sync or async. See SPEC.md "Cache store contract". */
export interface CacheStore {
  /** The stored response that matches `key`, or undefined. */
  get (key: CacheKey): GetResult | undefined | Promise<GetResult | undefined>
  /** A stream receiving the body; the entry is committed when it finishes. Undefined: cannot store. */
  createWriteStream (key: CacheKey, value: CacheValue): Writable | undefined
  /** Removes every response stored for the key's origin and path. */
  delete (key: CacheKey): void | Promise<void>
}
