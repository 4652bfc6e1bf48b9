/**
 * The walk of a GET with `Range` (RFC 9110 §14, RFC 9111 §3.4): read the store, decide whether a
 * usable complete response (or a held partial one) covers the range, then reply with the slice
 * or send the request to the origin through a handler that stores the part it answers.
 * @module
 */

import { replyFromStored, replyStored } from '../cache-replies.js'
import type { OriginReason } from '../cache-status.js'
import { dispatchOrFail, failWith } from '../dispatch-safely.js'
import { describeKey, log } from '../log.js'
import { PartialContentHandler, partialKey } from '../partial-content-handler.js'
import { answerFromPart, answerRange } from '../range-response.js'
import { decideReuse } from '../reuse-decision.js'
import { collectBody, readStore } from '../store-calls.js'
import { ORIGIN_PRECONDITIONS } from '../stored-preconditions.js'
import type { CacheLayer, CacheableRequest } from './cache-layer.js'
import { replyDestination, storageContext } from './cache-layer.js'
import { replyGatewayTimeoutOnlyIfCached } from './reply.js'

/** A GET with Range: sliced from a usable complete stored response, otherwise sent on and its answer stored. */
export function answerRangeRequest (layer: CacheLayer, request: CacheableRequest): void {
  const id = describeKey(request.key)
  if (request.policy.reload || request.conditional || ORIGIN_PRECONDITIONS.some((name) => name !== 'if-range' && request.headers[name] !== undefined)) {
    log('not reading the cache for the ranged %s: reload or a precondition', id)
    sendRangeToOrigin(layer, request, 'request')
    return
  }
  Promise.resolve(readStore(layer.config.store, request.key)).then(async ({ result: stored, failed }) => {
    if (failed) {
      dispatchOrFail(layer.dispatch, request.opts, request.handler)
      return
    }
    const reuse = stored === undefined ? undefined : decideReuse(stored, request.policy, layer.config.shared, Date.now())
    if (stored === undefined && await answerFromHeldPart(layer, request)) return
    if (stored === undefined || stored.statusCode !== 200 || reuse?.action !== 'hit') {
      if (request.policy.onlyIfCached) {
        log('ranged %s with only-if-cached and nothing servable stored: 504', id)
        replyGatewayTimeoutOnlyIfCached(layer, request)
        return
      }
      log('ranged %s: %s; sending it on', id, stored === undefined ? 'miss' : reuse?.reason ?? 'not a complete 200')
      sendRangeToOrigin(layer, request, stored === undefined ? 'miss' : 'stale')
      return
    }
    const body = await collectBody(stored.body)
    const range = answerRange(request.headers, stored, body)
    if (range.kind === 'full') {
      log('hit for %s: the Range is ignored (invalid, or If-Range does not hold)', id)
      replyStored(replyDestination(layer, request), { ...stored, body }, { hit: true })
      return
    }
    log('hit for %s: %d from the complete stored response', id, range.statusCode)
    replyFromStored(replyDestination(layer, request), stored, range, { hit: true })
  }).catch((err: Error) => failWith(request.handler, err))
}

/** Answers from a fresh stored partial response holding the requested range; false when there is none. */
async function answerFromHeldPart (layer: CacheLayer, request: CacheableRequest): Promise<boolean> {
  const { result: held } = await readStore(layer.config.store, partialKey(request.key))
  if (held === undefined || decideReuse(held, request.policy, layer.config.shared, Date.now()).action !== 'hit') return false
  const answer = answerFromPart(request.headers, held, await collectBody(held.body))
  if (answer === undefined || answer.kind !== 'generated') return false
  log('hit for %s: 206 from the stored partial response', describeKey(request.key))
  replyFromStored(replyDestination(layer, request), held, answer, { hit: true })
  return true
}

function sendRangeToOrigin (layer: CacheLayer, request: CacheableRequest, originReason: OriginReason): void {
  dispatchOrFail(layer.dispatch, request.opts, new PartialContentHandler(storageContext(layer.config, request.key, originReason), request.handler))
}
