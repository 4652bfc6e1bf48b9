/**
 * Step 3, when the stored response must be checked with the origin first (RFC 9111 §4.3): a
 * conditional request from its validators, answered through the revalidation handler; or, for
 * a response served stale while revalidating (RFC 5861 §3), the same request in the background.
 * @module
 */

import type { DispatchHandler, DispatchOptions, GetResult, IncomingHeaders } from '../../../src/handler.js'
import { ForwardingController, copyOptions } from '../../../src/handler.js'
import { CacheRevalidationHandler } from '../cache-revalidation-handler.js'
import { dispatchOrFail } from '../dispatch-safely.js'
import { firstHeaderValue } from '../header-value.js'
import { parseHttpDate } from '../http-date.js'
import { describeKey, log } from '../log.js'
import type { Reuse } from '../reuse-decision.js'
import type { CacheLayer, CacheableRequest } from './cache-layer.js'

/** How a revalidation goes: why it goes to the origin, and what may stand in when the origin fails. */
export type Revalidation = Pick<Extract<Reuse, { action: 'revalidate' }>, 'originReason' | 'staleIfErrorUntil' | 'mustRevalidate'>

/** A background refresh answers nobody, so no stale response stands in for its failures. */
const IN_BACKGROUND: Revalidation = { originReason: 'stale', staleIfErrorUntil: undefined, mustRevalidate: undefined }

/**
 * Revalidates `stored` for `request`, the answer going to `handler`. In the `background` the
 * caller has been answered already: no `cache-status`, and the caller's signal does not apply.
 */
export function revalidate (layer: CacheLayer, request: CacheableRequest, stored: GetResult, revalidation: Revalidation, handler: DispatchHandler, background: boolean): void {
  const { config } = layer
  const modifiedSince = modifiedSinceValidator(stored)
  const controller = new ForwardingController()
  const attempt = (conditional: boolean, started: boolean): void => {
    const headers: IncomingHeaders = { ...request.headers }
    if (conditional && stored.etag !== undefined) headers['if-none-match'] = stored.etag
    if (conditional && modifiedSince !== undefined) headers['if-modified-since'] = modifiedSince
    const revalidationHandler = new CacheRevalidationHandler({
      store: config.store,
      key: request.key,
      stored,
      conditional,
      started,
      retryUnconditionally: () => attempt(false, true),
      shared: config.shared,
      cacheByDefault: config.cacheByDefault,
      cacheStatus: config.cacheStatus && !background,
      requestTime: Date.now(),
      originReason: revalidation.originReason,
      staleIfErrorUntil: revalidation.staleIfErrorUntil,
      mustRevalidate: revalidation.mustRevalidate,
      controller,
      signal: background ? undefined : request.opts.signal
    }, handler)
    const opts: DispatchOptions = copyOptions(request.opts)
    opts.headers = headers
    if (background) opts.signal = undefined
    dispatchOrFail(layer.dispatch, opts, revalidationHandler)
  }
  attempt(stored.etag !== undefined || modifiedSince !== undefined, false)
}

/**
 * The `If-Modified-Since` to revalidate `stored` with: its `Last-Modified` when that is a valid
 * HTTP-date; without one and without an ETag, its `Date` (RFC 9110 §13.1.3 lets a cache use
 * it), or when it was stored. A stored response is therefore always revalidated conditionally,
 * as undici does, rather than fetched again in full.
 */
function modifiedSinceValidator (stored: GetResult): string | undefined {
  const lastModified = firstHeaderValue(stored.headers['last-modified'])
  if (lastModified !== undefined && parseHttpDate(lastModified) !== undefined) return lastModified
  if (stored.etag !== undefined) return undefined
  const date = firstHeaderValue(stored.headers.date)
  if (date !== undefined && parseHttpDate(date) !== undefined) return date
  return new Date(stored.cachedAt).toUTCString()
}

/** Revalidates `stored` in the background (stale-while-revalidate), at most once at a time per key. */
export function refreshInBackground (layer: CacheLayer, request: CacheableRequest, stored: GetResult): void {
  const id = describeKey(request.key)
  if (layer.refreshing.has(id)) return
  layer.refreshing.add(id)
  log('revalidating %s in the background (stale-while-revalidate)', id)
  const done = (): void => { layer.refreshing.delete(id) }
  const sink: DispatchHandler = {
    onResponseEnd: done,
    onResponseError: (_controller, err) => {
      log('background revalidation of %s failed: %s', id, err.message)
      done()
    }
  }
  revalidate(layer, request, stored, IN_BACKGROUND, sink, true)
}
