/**
 * Step 3, when the store cannot answer: send the request on to the origin through a handler
 * that stores what comes back.
 * @module
 */

import type { CacheKey, DispatchHandler } from '../../../src/handler.js'
import { CacheHandler } from '../cache-handler.js'
import type { OriginReason } from '../cache-status.js'
import { dispatchOrFail } from '../dispatch-safely.js'
import { HeadFresheningHandler } from '../head-freshening-handler.js'
import type { ResolvedCacheOptions } from '../options.js'
import type { CacheLayer, CacheableRequest } from './cache-layer.js'
import { storageContext } from './cache-layer.js'

/** Sends `request` to the origin, `originReason` saying why; `onSettled` hears whether its answer was stored. */
export function sendToOrigin (layer: CacheLayer, request: CacheableRequest, originReason: OriginReason, onSettled?: (stored: boolean) => void): void {
  const handler = new CacheHandler(storageContext(layer.config, request.key, originReason, onSettled), withHeadFreshening(layer.config, request.key, request.handler))
  dispatchOrFail(layer.dispatch, request.opts, handler)
}

/** `handler`, wrapped when the request is a HEAD so its answer freshens the stored GET (RFC 9111 §4.3.5). */
export function withHeadFreshening (config: ResolvedCacheOptions, key: CacheKey, handler: DispatchHandler): DispatchHandler {
  if (key.method !== 'HEAD' || !config.methods.has('GET')) return handler
  return new HeadFresheningHandler({
    store: config.store,
    getKey: { ...key, method: 'GET' },
    shared: config.shared,
    cacheByDefault: config.cacheByDefault,
    requestTime: Date.now()
  }, handler)
}
