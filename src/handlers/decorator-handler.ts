/**
 * The one forwarding handler base: every interceptor handler extends it, so a hook it does not
 * override reaches the caller's handler unchanged.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'
import { DualShapeHandler } from './dual-shape-handler.js'

/**
 * Base class for interceptor authors, and the one every conduit interceptor handler extends:
 * forwards every hook to the inner handler. Override the hooks you need and call `super` to
 * pass them on; a hook you do not override (1xx information, body-sent, upgrade...) still
 * reaches the caller. A handler that shows the caller a controller of its own (one that outlives
 * a retry attempt, say) overrides {@link DecoratorHandler.controllerFor}.
 * @example
 * class CountBytes extends DecoratorHandler {
 *   bytes = 0
 *   override onResponseData (controller, chunk) { this.bytes += chunk.length; super.onResponseData(controller, chunk) }
 * }
 */
export class DecoratorHandler extends DualShapeHandler implements DispatchHandler {
  /** The handler every hook is forwarded to. */
  protected readonly handler: DispatchHandler

  constructor (handler: DispatchHandler) {
    super()
    if (typeof handler !== 'object' || handler === null) {
      throw new TypeError(`DecoratorHandler: handler must be an object, got ${describeValue(handler)}`)
    }
    // Not adapted again: a handler reaching an interceptor was adapted at the public dispatch().
    this.handler = handler
  }

  /**
   * The controller the inner handler receives with a forwarded hook, given the one this handler
   * received. The default passes it on as it is.
   */
  protected controllerFor (controller: DispatchController): DispatchController {
    return controller
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(this.controllerFor(controller), context)
  }

  onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.handler.onRequestUpgrade?.(this.controllerFor(controller), statusCode, headers, socket)
  }

  onResponseInformation (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    this.handler.onResponseInformation?.(this.controllerFor(controller), statusCode, headers)
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.handler.onResponseStart?.(this.controllerFor(controller), statusCode, headers, statusMessage)
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(this.controllerFor(controller), chunk)
  }

  onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    this.handler.onResponseEnd?.(this.controllerFor(controller), trailers)
  }

  onResponseError (controller: DispatchController, error: Error): void {
    this.handler.onResponseError?.(this.controllerFor(controller), error)
  }

  onBodySent (chunk: Uint8Array | string): void {
    this.handler.onBodySent?.(chunk)
  }

  onRequestSent (): void {
    this.handler.onRequestSent?.()
  }
}
