/**
 * Updating a stored response's header fields from a later response that confirms it: a 304
 * to a revalidation (RFC 9111 §4.3.4) or a HEAD response (§4.3.5). Both follow §3.2.
 * @module
 */

import type { CacheValue, IncomingHeaders } from '../../src/handler.js'
import { decideStorage } from './storage-decision.js'
import type { StorageDecision } from './storage-decision.js'

/** Fields an update must not change in the stored response (§3.2), plus hop-by-hop ones. */
const NOT_UPDATED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'upgrade', 'trailer', 'proxy-connection'])

/** What the refreshed response is decided against. */
export interface UpdateInput {
  stored: CacheValue
  received: IncomingHeaders
  requestHeaders: IncomingHeaders
  shared: boolean
  cacheByDefault: number | undefined
  requestTime: number
}

/** The stored fields overlaid with the received ones, and whether the result may be stored again. */
export function updateStored (input: UpdateInput): { merged: IncomingHeaders, decision: StorageDecision } {
  const { stored, received } = input
  const merged: IncomingHeaders = { ...stored.headers }
  delete merged.age
  for (const name of Object.keys(received)) {
    if (!NOT_UPDATED.has(name)) merged[name] = received[name]
  }
  const decision = decideStorage({
    statusCode: stored.statusCode,
    statusMessage: stored.statusMessage,
    headers: merged,
    requestHeaders: input.requestHeaders,
    shared: input.shared,
    cacheByDefault: input.cacheByDefault,
    requestTime: input.requestTime,
    responseTime: Date.now()
  })
  return { merged, decision }
}
