/**
 * Step 3, when the stored response must be checked with the origin first (RFC 9111 §4.3): a
 * conditional request from its validators, answered through the revalidation handler; or, for
 * a response served stale while revalidating (RFC 5861 §3), the same request in the background.
 * @module
 */

import type { DispatchHandler, DispatchOptions, GetResult, IncomingHeaders } from '../../../src/handler.js'
import { ForwardingController } from '../../../src/handler.js'
import { CacheRevalidationHandler } from '../cache-revalidation-handler.js'
import { dispatchOrFail } from '../dispatch-safely.js'
import { firstHeaderValue } from '../header-value.js'
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
  const lastModified = firstHeaderValue(stored.headers['last-modified'])
  const controller = new ForwardingController()
  const attempt = (conditional: boolean, started: boolean): void => {
    const headers: IncomingHeaders = { ...request.headers }
    if (conditional && stored.etag !== undefined) headers['if-none-match'] = stored.etag
    if (conditional && lastModified !== undefined) headers['if-modified-since'] = lastModified
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
    const opts: DispatchOptions = { ...request.opts, headers }
    if (background) opts.signal = undefined
    dispatchOrFail(layer.dispatch, opts, revalidationHandler)
  }
  attempt(stored.etag !== undefined || lastModified !== undefined, false)
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
