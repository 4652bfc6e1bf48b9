/**
 * Plain-HTTP targets through an HTTP(S) proxy without a tunnel: the request goes to the proxy with
 * the absolute URL as its target (RFC 9112 §3.2.2). A `407` from the proxy is a refusal, not a
 * response of the target, so it fails the request with the status instead of reaching the caller.
 * @module
 */

import { ProxyConnectionError, DecoratorHandler, SENSITIVE_HEADERS, copyOptions } from '../../src/handler.js'
import type { CarriesSensitiveHeaders, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import { asProxyError } from './proxy-errors.js'
import type { ResolvedProxy } from './proxy-options.js'

/**
 * Rewrites dispatch options for the proxy: its origin, the absolute target, and the proxy headers
 * added to `headers` (a fresh record the caller owns) where the request has none of that name.
 */
export function absoluteFormOptions (
  opts: DispatchOptions,
  targetOrigin: string,
  headers: Record<string, string | string[]>,
  proxy: ResolvedProxy
): DispatchOptions & CarriesSensitiveHeaders {
  const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`
  // Filling the owned record beats spreading two header objects into a new one by ~100x on V8.
  for (const name in proxy.headers) headers[name] ??= proxy.headers[name] as string | string[]
  const sent: DispatchOptions & CarriesSensitiveHeaders = copyOptions(opts)
  sent.origin = proxy.origin
  sent.path = `${targetOrigin}${path}`
  sent.headers = headers
  sent[SENSITIVE_HEADERS] = proxy.sensitiveHeaders
  return sent
}

/** Forwards a proxied response, turning a `407` and TLS failures to the proxy into proxy errors. */
export class AbsoluteFormHandler extends DecoratorHandler {
  readonly #proxy: ResolvedProxy
  readonly #request: string
  #refusal: Error | null = null
  #done = false

  constructor (handler: DispatchHandler, proxy: ResolvedProxy, request: string) {
    super(handler)
    this.#proxy = proxy
    this.#request = request
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (this.#done) return
    if (statusCode === 407) {
      this.#refusal = new ProxyConnectionError(
        `Proxy ${this.#proxy.label} refused ${this.#request}: 407 ${statusMessage || 'Proxy Authentication Required'}`,
        { statusCode }
      )
      controller.abort(this.#refusal)
      return
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#done || this.#refusal !== null) return
    super.onResponseData(controller, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (this.#done) return
    this.#done = true
    if (this.#refusal !== null) super.onResponseError(controller, this.#refusal)
    else super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    if (this.#done) return
    this.#done = true
    super.onResponseError(controller, this.#refusal ?? asProxyError(error, this.#proxy))
  }
}
