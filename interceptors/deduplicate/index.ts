/**
 * `interceptors.deduplicate()`: identical safe requests in flight at the same time share one
 * origin request. Decisions are logged with `NODE_DEBUG=conduit:deduplicate`.
 * @module
 */

import { debuglog } from 'node:util'
import { normalizeHeaders, showRequest } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../../src/handler.js'
import { normalizeOrigin, overriddenHost, pathWithQuery } from '../request-identity.js'
import { resolveDeduplicateOptions } from './options.js'
import type { DeduplicateInterceptorOptions, ResolvedDeduplicateOptions } from './options.js'
import { SharedResponse } from './shared-response.js'

export type { DeduplicateInterceptorOptions } from './options.js'

const log = debuglog('conduit:deduplicate')

/**
 * The identity of a request: origin, the authority its own `Host` names when that is another
 * (the cache's rule: such a request has another effective request URI, whatever
 * `excludeHeaderNames` says), method, path with query, and its headers in a fixed order.
 */
function requestKey (opts: DispatchOptions, headers: IncomingHeaders, excluded: ReadonlySet<string>): string {
  const fields: Array<[string, string | string[]]> = []
  for (const name of Object.keys(headers).sort()) if (!excluded.has(name)) fields.push([name, headers[name]!])
  return JSON.stringify([normalizeOrigin(opts.origin), overriddenHost(opts) ?? null, opts.method, pathWithQuery(opts), fields])
}

function shouldShare (opts: DispatchOptions, headers: IncomingHeaders, options: ResolvedDeduplicateOptions): boolean {
  if (!options.methods.has(opts.method) || opts.body != null || opts.upgrade != null) return false
  for (const name of Object.keys(headers)) if (options.skipHeaderNames.has(name)) return false
  return true
}

/**
 * The deduplicate interceptor. Requests are identical when origin, method, path and headers
 * (less `excludeHeaderNames`) match; a request arriving while an identical one waits for its
 * answer joins it, and each caller gets the status, headers and its own copy of the body.
 * Once the answer has begun, a new identical request goes out on its own. Requests with a body
 * or a header listed in `skipHeaderNames` are never shared. Bad options throw an `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.deduplicate())
 * const [a, b] = await Promise.all([1, 2].map(() => agent.request({ origin: 'http://127.0.0.1:3000', path: '/config', method: 'GET' })))
 */
export function deduplicate (options?: DeduplicateInterceptorOptions): Interceptor {
  const resolved = resolveDeduplicateOptions(options)
  return (dispatch: Dispatch): Dispatch => {
    const inFlight = new Map<string, SharedResponse>()
    return function deduplicatingDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
      if (typeof opts !== 'object' || opts === null || opts.origin == null) return dispatch(opts, handler)
      const headers = normalizeHeaders(opts.headers)
      if (!shouldShare(opts, headers, resolved)) return dispatch(opts, handler)
      const key = requestKey(opts, headers, resolved.excludeHeaderNames)
      const shared = inFlight.get(key)
      if (shared !== undefined && shared.join(handler)) {
        log('%s joins the identical request in flight (%d callers)', showRequest({ method: opts.method, origin: opts.origin, path: pathWithQuery(opts) }), shared.size)
        return true
      }
      const response = new SharedResponse(handler, resolved.maxBufferSize, () => {
        if (inFlight.get(key) === response) inFlight.delete(key)
      })
      inFlight.set(key, response)
      try {
        return dispatch(opts, response)
      } catch (err) {
        if (inFlight.get(key) === response) inFlight.delete(key)
        throw err
      }
    }
  }
}
