/**
 * Types of the cache store contract, and the key method of partial responses: what the cache interceptor
 * asks of a store, and what a store hands back. Stores and the interceptor both import these.
 * @module
 */

import type { Readable, Writable } from 'node:stream'

/**
 * The key method under which the cache stores a partial (206) response, beside the complete
 * response of the same URL: an ordinary entry to a store, which `delete` removes with the rest.
 */
export const PARTIAL_METHOD = 'GET-PARTIAL'

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
  /** Request: stale responses acceptable up to this many seconds (`Infinity`: any staleness). */
  'max-stale'?: number
  /** Request: the response must stay fresh for at least this many seconds. */
  'min-fresh'?: number
  /** Freshness lifetime in seconds (response), or the largest acceptable age (request). */
  'max-age'?: number
  /** Freshness lifetime in seconds for shared caches; overrides `max-age` there. */
  's-maxage'?: number
  /** Seconds a stale response may be served while it is revalidated in the background (RFC 5861). */
  'stale-while-revalidate'?: number
  /** Seconds a stale response may be served when revalidation fails (RFC 5861). */
  'stale-if-error'?: number
  /** Any cache may store the response, even when it would not otherwise. */
  public?: true
  /** Only a private cache may store the response; with field names, a shared cache stores it without them. */
  private?: true | string[]
  /** Do not store the request or the response. */
  'no-store'?: true
  /** Revalidate before every reuse; with field names, those fields are not reused without revalidation. */
  'no-cache'?: true | string[]
  /** Once stale, never reuse without successful revalidation. */
  'must-revalidate'?: true
  /** As `must-revalidate`, for shared caches only. */
  'proxy-revalidate'?: true
  /** The response will not change while fresh: no revalidation on reload (RFC 8246). */
  immutable?: true
  /** Intermediaries must not transform the content. */
  'no-transform'?: true
  /** Store only when the status code's caching rules are understood; overrides `no-store` then. */
  'must-understand'?: true
  /** Request: answer from the cache or with a 504. */
  'only-if-cached'?: true
}

/** Response metadata stored next to the body. */
export interface CacheValue {
  /** HTTP status code. */
  statusCode: number
  /** HTTP status message, e.g. `OK`. */
  statusMessage: string
  /** Response headers as stored (lower-case names). */
  headers: Record<string, string | string[]>
  /** Header names of the response's `Vary`, mapped to the request's values (`null`: absent). */
  vary?: Record<string, string | string[] | null> | undefined
  /** Entity tag of the response, used to revalidate it. */
  etag?: string | undefined
  /** Parsed `Cache-Control` directives of the response. */
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
  /** The body: a stream, an iterable or async iterable of Buffers, a Buffer or a string. */
  body?: Readable | Iterable<Buffer> | AsyncIterable<Buffer> | Buffer | string | null | undefined
}

/** A cache store: each method may answer synchronously or with a promise. */
export interface CacheStore {
  /** The stored response that matches `key`, or undefined. */
  get (key: CacheKey): GetResult | undefined | Promise<GetResult | undefined>
  /** A stream receiving the body; the entry is committed when it finishes. Undefined: cannot store. */
  createWriteStream (key: CacheKey, value: CacheValue): Writable | undefined
  /** Removes every response stored for the key's origin and path. */
  delete (key: CacheKey): void | Promise<void>
  /**
   * Optional: told, once a miss the store answered has been fetched from the origin, whether the
   * response was stored. A store that makes other processes wait for that fetch (miss coalescing)
   * uses it to free them at once when there is nothing to wait for.
   */
  missSettled? (key: CacheKey, stored: boolean): void
}
