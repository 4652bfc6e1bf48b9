/**
 * Handlers of the current shape that read the response head from `controller.rawHeaders`, as
 * undici 8's fetch does (the runtime's own fetch from Node 26 on): conduit's controllers carry no
 * raw head, and such a handler would see a response without headers. Adapted once, where the
 * handler enters conduit through a public `dispatch()`.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { RequestTimings } from '../contracts/request-timings.js'
import type { DispatchController, DispatchHandler, IncomingHeaders, LegacyDispatchHandler } from '../contracts/dispatch-contract.js'
import { toRawHeaders } from './raw-headers.js'
import { DualShapeHandler } from './dual-shape-handler.js'

/**
 * True for a handler that marks itself as undici's fetch: it has the current hooks and also
 * undici's `onResponseStarted`, and reads the head from the controller.
 */
export function readsRawHead (handler: DispatchHandler): boolean {
  return typeof (handler as LegacyDispatchHandler).onResponseStarted === 'function'
}

/** A controller that also carries the head (and trailers) as undici's raw arrays. */
class RawHeadController implements DispatchController {
  readonly inner: DispatchController
  /** The response headers as `[name, value, ...]` Buffers. */
  rawHeaders: Buffer[] = []
  /** The trailers as `[name, value, ...]` Buffers. */
  rawTrailers: Buffer[] = []

  constructor (inner: DispatchController) {
    this.inner = inner
  }

  get aborted (): boolean { return this.inner.aborted }
  get paused (): boolean { return this.inner.paused }
  get reason (): Error | null { return this.inner.reason }
  abort (reason: Error): void { this.inner.abort(reason) }
  pause (): void { this.inner.pause() }
  resume (): void { this.inner.resume() }
  get timings (): RequestTimings | null { return this.inner.timings ?? null }
}

/** Forwards every hook, handing the handler a controller that carries the raw head. */
export class RawHeadHandler extends DualShapeHandler implements DispatchHandler {
  readonly #handler: DispatchHandler & LegacyDispatchHandler
  #controller: RawHeadController | null = null

  constructor (handler: DispatchHandler) {
    super()
    this.#handler = handler as DispatchHandler & LegacyDispatchHandler
  }

  #wrap (controller: DispatchController): RawHeadController {
    if (this.#controller?.inner !== controller) this.#controller = new RawHeadController(controller)
    return this.#controller
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(this.#wrap(controller), context)
  }

  onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    const wrapped = this.#wrap(controller)
    wrapped.rawHeaders = toRawHeaders(headers)
    this.#handler.onRequestUpgrade?.(wrapped, statusCode, headers, socket)
  }

  onResponseInformation (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    this.#handler.onResponseInformation?.(this.#wrap(controller), statusCode, headers)
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const wrapped = this.#wrap(controller)
    wrapped.rawHeaders = toRawHeaders(headers)
    this.#handler.onResponseStarted?.()
    this.#handler.onResponseStart?.(wrapped, statusCode, headers, statusMessage)
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    this.#handler.onResponseData?.(this.#wrap(controller), chunk)
  }

  onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    const wrapped = this.#wrap(controller)
    wrapped.rawTrailers = toRawHeaders(trailers)
    this.#handler.onResponseEnd?.(wrapped, trailers)
  }

  onResponseError (controller: DispatchController, error: Error): void {
    this.#handler.onResponseError?.(this.#wrap(controller), error)
  }

  onBodySent (chunk: Uint8Array | string): void {
    this.#handler.onBodySent?.(chunk)
  }

  onRequestSent (): void {
    this.#handler.onRequestSent?.()
  }
}
