/**
 * Step 3, when the store can answer: reply from the stored response, or with the 504 a cache
 * generates when it may not go to the origin.
 * @module
 */

import type { GetResult } from '../../../src/handler.js'
import { replyFromStored, replyGatewayTimeout, replyStored } from '../cache-replies.js'
import { describeKey, log } from '../log.js'
import { notModified, notModifiedHeaders } from '../stored-preconditions.js'
import type { CacheLayer, CacheableRequest } from './cache-layer.js'
import { replyDestination } from './cache-layer.js'

/** Serves a usable stored response: as a 304 when the request's own precondition matches it (RFC 9111 §4.3.2). */
export function replyHit (layer: CacheLayer, request: CacheableRequest, stored: GetResult): void {
  if (request.conditional && notModified(request.headers, stored)) {
    log('the precondition of %s matches the stored response: 304', describeKey(request.key))
    replyFromStored(replyDestination(layer, request), stored, { statusCode: 304, statusMessage: 'Not Modified', headers: notModifiedHeaders(stored), body: null }, { hit: true })
    return
  }
  replyStored(replyDestination(layer, request), stored, { hit: true })
}

/** Answers a request with `only-if-cached` that nothing stored can serve. */
export function replyGatewayTimeoutOnlyIfCached (layer: CacheLayer, request: CacheableRequest): void {
  replyGatewayTimeout(replyDestination(layer, request), { detail: 'only-if-cached' })
}
