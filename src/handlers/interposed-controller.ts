/**
 * Forwarding handlers that show the caller a controller of their own in front of the one the
 * dispatch below hands them: to hold back decoded data on pause, to absorb an abort, or to keep
 * one controller across several attempts (redirect hops, a DNS failover).
 * @module
 */

import type { DispatchController } from '../contracts/dispatch-contract.js'
import { DecoratorHandler } from './decorator-handler.js'
import { ForwardingController } from './forwarding-controller.js'

/**
 * A {@link DecoratorHandler} whose caller sees `callerController` with every hook, while the
 * handler keeps the controller of the dispatch below in `upstream`.
 */
export abstract class InterposedControllerHandler extends DecoratorHandler {
  /** The controller of the dispatch below, once it started. */
  protected upstream: DispatchController | null = null
  /** What the caller's handler receives in place of `upstream`. */
  protected abstract readonly callerController: DispatchController

  protected override controllerFor (): DispatchController {
    return this.callerController
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.upstream = controller
    super.onRequestStart(controller, context)
  }
}

/**
 * A handler that may dispatch the request more than once (a redirect hop, a failover): the
 * caller gets `onRequestStart` once, and one controller that follows each new attempt.
 */
export class AttemptSpanningHandler extends InterposedControllerHandler {
  /** Follows the current attempt's controller; a pause carries over to the next attempt. */
  protected readonly callerController: ForwardingController = new ForwardingController()
  #started = false

  /** Starts each attempt; only the first reaches the caller, with the caller's context. */
  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.upstream = controller
    this.callerController.target = controller
    if (this.#started) return
    this.#started = true
    super.onRequestStart(controller, this.callerContext(context))
  }

  /** The context the caller's `onRequestStart` receives; the default passes it on. */
  protected callerContext (context: unknown): unknown {
    return context
  }
}
