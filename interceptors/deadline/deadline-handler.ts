/**
 * `DeadlineHandler`: holds one exchange to its budget. It follows the phase from the hooks it
 * sees, and when the budget runs out aborts whatever is running below it (an attempt, a retry's
 * wait, a redirect hop) with a `DeadlineExceededError` naming the phase.
 * @module
 */

import { debuglog } from 'node:util'
import type { Duplex } from 'node:stream'
import { DecoratorHandler, SimpleController, runtimeTimers } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import type { DeadlineBudget } from './deadline-budget.js'

const debug = debuglog('conduit:deadline')

/** Ends one dispatch with a `DeadlineExceededError` once its budget is spent. */
export class DeadlineHandler extends DecoratorHandler {
  readonly #budget: DeadlineBudget
  #timer: ReturnType<typeof setTimeout> | null
  #controller: DispatchController | null = null
  #expired: Error | null = null
  #done = false

  constructor (handler: DispatchHandler, budget: DeadlineBudget) {
    super(handler)
    this.#budget = budget
    // The deadline bounds I/O: it runs on the runtime's timer, which a test's fake clock leaves alone.
    this.#timer = runtimeTimers.setTimeout(() => this.#expire(), budget.leftMs())
  }

  /** Told once the first attempt is handed down: a refused dispatch waits in a queue, an accepted one connects. */
  dispatched (accepted: boolean): void {
    if (accepted && this.#budget.phase === 'queue') this.#budget.phase = 'connect'
  }

  /** The dispatch threw before it started: the timer goes, nothing else was begun. */
  cancel (): void {
    this.#finish()
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    if (this.#done) {
      controller.abort(this.#expired ?? this.#budget.exceeded())
      return
    }
    this.#controller = controller
    super.onRequestStart(controller, context)
  }

  override onBodySent (chunk: Uint8Array | string): void {
    this.#written()
    super.onBodySent(chunk)
  }

  override onRequestSent (): void {
    this.#written()
    super.onRequestSent()
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (this.#done) return
    if (statusCode >= 200) this.#budget.phase = 'body'
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#done) return
    super.onResponseData(controller, chunk)
  }

  override onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    if (this.#done) {
      socket.destroy()
      return
    }
    this.#finish()
    super.onRequestUpgrade(controller, statusCode, headers, socket)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (this.#done) return
    this.#finish()
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    if (this.#done) return
    this.#finish()
    // Once the budget is spent, whatever the layers below report for the abort is the deadline.
    super.onResponseError(controller, this.#expired ?? error)
  }

  // Sending the request (its head, then its body) is past connecting: what is left is the answer.
  #written (): void {
    const phase = this.#budget.phase
    if (phase === 'queue' || phase === 'connect') this.#budget.phase = 'headers'
  }

  #finish (): void {
    this.#done = true
    if (this.#timer !== null) runtimeTimers.clearTimeout(this.#timer)
    this.#timer = null
  }

  #expire (): void {
    this.#timer = null
    if (this.#done) return
    const err = this.#budget.exceeded()
    this.#expired = err
    if (debug.enabled) debug(err.message)
    const controller = this.#controller
    if (controller !== null && !controller.aborted) {
      controller.abort(err)
      return
    }
    // Nothing below has started the request yet (or it ignored the abort): the exchange ends here.
    this.#done = true
    this.handler.onResponseError?.(controller ?? new SimpleController(), err)
  }
}
