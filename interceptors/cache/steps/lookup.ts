/**
 * Step 1 of a request's walk through the cache: read the store. A synchronous store (memory,
 * SQLite) answers within the dispatch call, so a hit is played before dispatch() returns, as a
 * network dispatch would start within it; an asynchronous one continues when it settles. A
 * HEAD the store has nothing for is answered from a stored GET (RFC 9110 §9.3.2).
 * @module
 */

import type { GetResult } from '../../../src/handler.js'
import { dispatchOrFail, failWith } from '../dispatch-safely.js'
import { describeKey, log } from '../log.js'
import { isPending, readStore } from '../store-calls.js'
import type { StoreRead } from '../store-calls.js'
import type { CacheLayer, CacheableRequest } from './cache-layer.js'
import { decide, decideFromStoredGet } from './decide.js'

/** What runs once the store answered. */
type AfterRead = (layer: CacheLayer, request: CacheableRequest, read: StoreRead) => void

/** Reads the store for `request` and hands what it found to the decide step. */
export function lookUp (layer: CacheLayer, request: CacheableRequest): void {
  continueAfterRead(layer, request, readStore(layer.config.store, request.key), readForRequest)
}

function readForRequest (layer: CacheLayer, request: CacheableRequest, read: StoreRead): void {
  if (read.failed) {
    dispatchOrFail(layer.dispatch, request.opts, request.handler)
    return
  }
  const stored: GetResult | undefined = read.result
  if (stored === undefined && request.key.method === 'HEAD' && layer.config.methods.has('GET')) {
    // A HEAD answer carries a GET answer's fields, so a usable stored GET response answers a
    // HEAD (without its body).
    continueAfterRead(layer, request, readStore(layer.config.store, { ...request.key, method: 'GET' }), readForHead)
    return
  }
  decide(layer, request, stored)
}

function readForHead (layer: CacheLayer, request: CacheableRequest, read: StoreRead): void {
  decideFromStoredGet(layer, request, read.result)
}

/**
 * Runs `next` with what the store answered: within this call when it answered synchronously
 * (no promise, no closure on a hit), otherwise once it settles. A throw from `next` fails the
 * request instead of escaping.
 */
function continueAfterRead (layer: CacheLayer, request: CacheableRequest, read: StoreRead | Promise<StoreRead>, next: AfterRead): void {
  if (isPending(read)) {
    read.then((settled) => { next(layer, request, settled) }).then(undefined, (err: Error) => { failLookup(request, err) })
    return
  }
  try {
    next(layer, request, read)
  } catch (err) {
    failLookup(request, err as Error)
  }
}

function failLookup (request: CacheableRequest, err: Error): void {
  log('cache failure for %s: %s', describeKey(request.key), err.message)
  failWith(request.handler, err)
}
