/**
 * HTTP `CONNECT` tunnels (RFC 9110 §9.3.6): ask the proxy for a byte stream to `host:port`
 * and hand the raw socket over once it answers 2xx. Any other answer is a refusal, reported
 * with the proxy's status; nothing is retried here, so a refusing proxy fails a request once.
 * @module
 */

import type { Duplex } from 'node:stream'
import { ProxyConnectionError, SENSITIVE_HEADERS, DualShapeHandler } from '../../src/handler.js'
import type { CarriesSensitiveHeaders, DispatchController, DispatchHandler, DispatchOptions, DispatchTarget, IncomingHeaders } from '../../src/handler.js'
import { asProxyError } from './proxy-errors.js'
import type { ResolvedProxy } from './proxy-options.js'
import { authority } from './tunnel-target.js'
import type { TunnelTarget } from './tunnel-target.js'

/** Receives the outcome of one CONNECT exchange, exactly once. */
type TunnelCallback = (err: Error | null, socket?: Duplex) => void

class ConnectHandler extends DualShapeHandler implements DispatchHandler {
  readonly #proxy: ResolvedProxy
  readonly #target: string
  #callback: TunnelCallback | null
  #refusal: Error | null = null
  #controller: DispatchController | null = null

  constructor (proxy: ResolvedProxy, target: string, callback: TunnelCallback) {
    super()
    this.#proxy = proxy
    this.#target = target
    this.#callback = callback
  }

  #settle (err: Error | null, socket?: Duplex): void {
    const callback = this.#callback
    if (callback === null) {
      socket?.destroy()
      return
    }
    this.#callback = null
    callback(err, socket)
  }

  onRequestStart (controller: DispatchController): void {
    this.#controller = controller
  }

  /** Gives up on the tunnel (the connect deadline passed); a socket arriving later is destroyed. */
  cancel (reason: Error): void {
    this.#callback = null
    this.#controller?.abort(reason)
  }

  onRequestUpgrade (_controller: DispatchController, _statusCode: number, _headers: IncomingHeaders, socket: Duplex): void {
    this.#settle(null, socket)
  }

  onResponseStart (controller: DispatchController, statusCode: number, _headers: IncomingHeaders, statusMessage?: string): void {
    const reason = statusMessage ? ` ${statusMessage}` : ''
    this.#refusal = new ProxyConnectionError(
      `Proxy ${this.#proxy.label} refused CONNECT to ${this.#target}: ${statusCode}${reason}`,
      { statusCode }
    )
    // The refusal body is of no use; aborting frees the proxy connection at once.
    controller.abort(this.#refusal)
  }

  onResponseEnd (): void {
    this.#settle(this.#refusal ?? new ProxyConnectionError(`Proxy ${this.#proxy.label} ended CONNECT to ${this.#target} without a tunnel`))
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.fail(error)
  }

  /** Reports a failure to reach or talk to the proxy (the refusal, when one was seen, explains it best). */
  fail (error: Error): void {
    this.#settle(this.#refusal ?? asProxyError(error, this.#proxy))
  }
}

/**
 * Headers of a `CONNECT` request: the proxy headers (with credentials), `host` set to the tunnel
 * target, and `proxy-connection: keep-alive` unless the agent's `connections` is 0.
 */
export function connectHeaders (proxy: ResolvedProxy, target: string, keepAlive: boolean): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { ...proxy.headers, host: target }
  // Non-standard, but some proxies close after CONNECT without it.
  if (keepAlive) headers['proxy-connection'] = 'keep-alive'
  return headers
}

/**
 * Opens a tunnel to `target` through the HTTP(S) proxy behind `proxyClient`; returns a function that cancels it.
 * The callback receives the raw socket, or a {@link ProxyConnectionError} (with the proxy's
 * status) / `SecureProxyConnectionError` when the proxy refused or could not be reached.
 */
export function openConnectTunnel (
  proxyClient: DispatchTarget,
  proxy: ResolvedProxy,
  target: TunnelTarget,
  options: { keepAlive: boolean, timeoutMs: number },
  callback: TunnelCallback
): (reason: Error) => void {
  const path = authority(target)
  const handler = new ConnectHandler(proxy, path, callback)
  try {
    const connect: DispatchOptions & CarriesSensitiveHeaders = {
      origin: proxy.origin,
      method: 'CONNECT',
      path,
      headers: connectHeaders(proxy, path, options.keepAlive),
      [SENSITIVE_HEADERS]: proxy.sensitiveHeaders,
      ...(options.timeoutMs > 0 ? { headersTimeout: options.timeoutMs } : {})
    }
    proxyClient.dispatch(connect, handler)
  } catch (err) {
    handler.fail(err as Error)
  }
  return (reason) => handler.cancel(reason)
}
