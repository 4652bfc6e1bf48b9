/**
 * Step 2 of a request's walk through the cache: decide what to do with what the store holds for
 * it (RFC 9111 §4): reply from the store, send the request to the origin, or revalidate. A miss
 * waits for an identical request already on its way to the origin, then reads the store again.
 * @module
 */

import type { GetResult } from '../../../src/handler.js'
import { RequestAbortedError } from '../../../src/handler.js'
import { replyStored } from '../cache-replies.js'
import { dispatchOrFail, failWith } from '../dispatch-safely.js'
import { describeKey, log, logEnabled } from '../log.js'
import type { LeaderOutcome } from '../miss-coalescer.js'
import { decideReuse } from '../reuse-decision.js'
import { readStore, reportMissSettled } from '../store-calls.js'
import type { CacheLayer, CacheableRequest } from './cache-layer.js'
import { replyDestination } from './cache-layer.js'
import { replyGatewayTimeoutOnlyIfCached, replyHit } from './reply.js'
import { refreshInBackground, revalidate } from './revalidate.js'
import { sendToOrigin } from './to-origin.js'

/** Decides how to answer `request`, given the response stored for it (undefined: none). */
export function decide (layer: CacheLayer, request: CacheableRequest, stored: GetResult | undefined): void {
  // The key's text is only wanted in log lines; a hit should not pay for building it.
  const id = logEnabled ? describeKey(request.key) : ''
  if (stored === undefined) {
    if (request.policy.onlyIfCached) {
      log('miss for %s with only-if-cached: 504', id)
      replyGatewayTimeoutOnlyIfCached(layer, request)
    } else {
      log('miss for %s', id)
      sendMissToOrigin(layer, request)
    }
    return
  }
  if (layer.config.shared && stored.headers['set-cookie'] !== undefined) {
    // Written by a private cache sharing the store, or by hand: one user's cookie must not reach another.
    log('the stored %s sets a cookie and this cache is shared: not serving it', id)
    sendToOrigin(layer, request, 'miss')
    return
  }
  const reuse = decideReuse(stored, request.policy, layer.config.shared, Date.now())
  if (request.conditional && reuse.action !== 'hit' && reuse.action !== 'gateway-timeout') {
    // A precondition is only evaluated against a response the cache may serve as it is.
    log('not answering the conditional request for %s from the cache: %s', id, reuse.reason)
    sendToOrigin(layer, request, 'request')
    return
  }
  switch (reuse.action) {
    case 'hit':
      if (logEnabled) log('hit for %s: %s', id, reuse.reason)
      replyHit(layer, request, stored)
      return
    case 'stale-while-revalidate':
      log('serving stale %s: %s', id, reuse.reason)
      replyStored(replyDestination(layer, request), stored, { hit: true, detail: 'stale-while-revalidate' })
      refreshInBackground(layer, request, stored)
      return
    case 'gateway-timeout':
      log('cannot serve %s: %s; 504', id, reuse.reason)
      replyGatewayTimeoutOnlyIfCached(layer, request)
      return
    case 'revalidate':
      log('revalidating %s: %s', id, reuse.reason)
      revalidate(layer, request, stored, reuse, request.handler, false)
  }
}

/** Decides how to answer a HEAD the store holds nothing for, given the stored GET response: only a usable one answers it. */
export function decideFromStoredGet (layer: CacheLayer, request: CacheableRequest, storedGet: GetResult | undefined): void {
  if (storedGet !== undefined && decideReuse(storedGet, request.policy, layer.config.shared, Date.now()).action === 'hit') {
    log('hit for %s from the stored GET response', describeKey(request.key))
    replyHit(layer, request, storedGet)
    return
  }
  decide(layer, request, undefined)
}

/** Sends a miss to the origin, unless an identical one is already out: then waits for its outcome. */
function sendMissToOrigin (layer: CacheLayer, request: CacheableRequest): void {
  if (request.coalesced === true || request.opts.body != null) {
    sendToOrigin(layer, request, 'miss')
    return
  }
  const id = describeKey(request.key)
  const signal = request.opts.signal ?? undefined
  const onAbort = (): void => {
    if (layer.coalescer.leave(id, waiter)) failWith(request.handler, signal?.reason instanceof Error ? signal.reason : new RequestAbortedError())
  }
  const waiter = (outcome: LeaderOutcome): void => {
    signal?.removeEventListener('abort', onAbort)
    request.coalesced = true
    if (outcome === 'not-stored') {
      log('the identical request in flight for %s was not stored; sending this one', id)
      sendToOrigin(layer, request, 'miss')
      return
    }
    log('the identical request in flight for %s was stored; reading it', id)
    // Asynchronously even from a synchronous store: the waiter is told from within the leader's handler.
    Promise.resolve(readStore(layer.config.store, request.key)).then(({ result, failed }) => {
      if (failed) dispatchOrFail(layer.dispatch, request.opts, request.handler)
      else decide(layer, request, result)
    }, (err: Error) => failWith(request.handler, err))
  }
  const settle = layer.coalescer.lead(id, waiter)
  if (settle === undefined) {
    log('miss for %s: waiting for the identical request in flight', id)
    signal?.addEventListener('abort', onAbort, { once: true })
    return
  }
  sendToOrigin(layer, request, 'miss', (stored) => {
    settle(stored ? 'stored' : 'not-stored')
    reportMissSettled(layer.config.store, request.key, stored)
  })
}
