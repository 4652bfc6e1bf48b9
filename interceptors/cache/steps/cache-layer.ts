/**
 * What the steps of a request's walk through the cache share: the cache layer (the interceptor
 * bound to the next dispatch) and the request as the cache sees it.
 * @module
 */

import type { CacheKey, Dispatch, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../../src/handler.js'
import type { StorageContext } from '../cache-handler.js'
import type { ReplyDestination } from '../cache-replies.js'
import type { OriginReason } from '../cache-status.js'
import type { MissCoalescer } from '../miss-coalescer.js'
import type { ResolvedCacheOptions } from '../options.js'
import type { RequestPolicy } from '../request-policy.js'

/** One `cache()` interceptor composed onto one dispatch: its options, the next dispatch, and what it keeps across requests. */
export interface CacheLayer {
  readonly config: ResolvedCacheOptions
  /** The next dispatch: where requests the cache does not answer go. */
  readonly dispatch: Dispatch
  /** Keys (in their log form) being revalidated in the background: one at a time each. */
  readonly refreshing: Set<string>
  readonly coalescer: MissCoalescer
}

/** A request the cache reads for: everything the steps of its walk need. */
export interface CacheableRequest {
  opts: DispatchOptions
  handler: DispatchHandler
  key: CacheKey
  headers: IncomingHeaders
  policy: RequestPolicy
  /** The request carries If-None-Match / If-Modified-Since, which a usable stored response can answer. */
  conditional: boolean
  /** Already waited for an identical request in flight: a miss now goes straight out. */
  coalesced?: boolean
}

/** What the storing handlers need to store the answer to a request for `key`, sent now. */
export function storageContext (config: ResolvedCacheOptions, key: CacheKey, originReason: OriginReason, onSettled?: (stored: boolean) => void): StorageContext {
  return {
    store: config.store,
    key,
    shared: config.shared,
    cacheByDefault: config.cacheByDefault,
    cacheStatus: config.cacheStatus,
    originReason,
    requestTime: Date.now(),
    onSettled
  }
}

/** Where a reply to `request` goes. */
export function replyDestination (layer: CacheLayer, request: CacheableRequest): ReplyDestination {
  return {
    handler: request.handler,
    signal: request.opts.signal,
    method: request.key.method,
    cacheStatus: layer.config.cacheStatus
  }
}
