/**
 * `interceptors.dns()`: resolves host names itself, keeps the addresses for up to `maxTTL`,
 * spreads requests over them round-robin, and fails over between IPv4 and IPv6. Decisions are
 * logged with `NODE_DEBUG=conduit:dns`.
 * @module
 */

import { isIP } from 'node:net'
import { SimpleController, copyOptions, normalizeHeaders, failOption } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { DnsHandler } from './dns-handler.js'
import { resolveDnsOptions, resolveDnsRequestOptions } from './options.js'
import type { DnsInterceptorOptions, DnsRequestOptions, DnsRequestOverrides } from './options.js'
import { DnsResolver, addressOrigin, log } from './resolver.js'

export type { DnsInterceptorOptions, DnsLookup, DnsPick, DnsRequestOverrides } from './options.js'
export type { DnsFamilyRecords, DnsOriginRecords, DnsRecord, DnsStorage } from './records.js'

declare module '../../src/handler.js' {
  interface DispatchOptions {
    /** The request's own `dualStack`, `affinity`, `lookup` and `pick`, read by the dns interceptor. */
    dns?: DnsRequestOverrides | null | undefined
  }
}

function originUrl (origin: string | URL): URL | null {
  if (origin instanceof URL) return origin
  try {
    return new URL(origin)
  } catch {
    return null
  }
}

/**
 * The DNS interceptor. Requests to an IP address pass untouched; for a host name the request
 * goes to one of its addresses with the original `Host` header. A failed resolution fails the
 * request with the resolver's error. Bad options throw an `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.dns({ maxTTL: 30_000 }))
 * const { statusCode } = await agent.request({ origin: 'http://localhost:3000', path: '/', method: 'GET' })
 */
export function dns (options?: DnsInterceptorOptions): Interceptor {
  const resolved = resolveDnsOptions(options)
  const resolver = new DnsResolver(resolved)
  return (dispatch: Dispatch): Dispatch => function resolvingDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null || opts.origin == null) return dispatch(opts, handler)
    const origin = originUrl(opts.origin)
    if (origin === null || isIP(origin.hostname.replace(/^\[|\]$/g, '')) !== 0) return dispatch(opts, handler)
    let request: DnsRequestOptions = resolved
    if (opts.dns != null) {
      if (typeof opts.dns !== 'object') failOption('dns()', 'the dns request option', 'an object', opts.dns)
      request = resolveDnsRequestOptions(opts.dns, resolved, 'dns()')
    }
    resolver.resolve(origin, request, (err, record) => {
      if (err !== null) {
        handler.onResponseError?.(new SimpleController(), err)
        return
      }
      if (record === null) {
        dispatch(opts, handler)
        return
      }
      const headers = normalizeHeaders(opts.headers)
      headers.host ??= origin.host
      const sent = copyOptions(opts)
      sent.origin = addressOrigin(origin, record)
      sent.headers = headers
      sent.servername = origin.hostname
      sent.dns = undefined
      log('%s via %s', origin.host, sent.origin)
      try {
        dispatch(sent, new DnsHandler(handler, { resolver, dispatch, origin, opts: sent, record, dualStack: request.dualStack }))
      } catch (thrown) {
        handler.onResponseError?.(new SimpleController(), thrown as Error)
      }
    })
    return true
  }
}
