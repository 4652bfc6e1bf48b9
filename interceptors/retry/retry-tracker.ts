/**
 * Keeps track of the retried dispatches of one dispatcher, so that closing it can wait for those
 * between attempts and destroying it can end their waits at once. The retry interceptor hears of
 * both through the dispatch lifecycle of the dispatcher it is composed on.
 * @module
 */

import type { Duplex } from 'node:stream'
import { DecoratorHandler, ClientClosedError, ClientDestroyedError } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import type { RetryHandler } from './retry-handler.js'

// Tells the tracker when the caller's handler has seen the end of its dispatch.
class SettleNotice extends DecoratorHandler {
  readonly #onSettled: () => void

  constructor (handler: DispatchHandler, onSettled: () => void) {
    super(handler)
    this.#onSettled = onSettled
  }

  override onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.#onSettled()
    super.onRequestUpgrade(controller, statusCode, headers, socket)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    this.#onSettled()
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    this.#onSettled()
    super.onResponseError(controller, error)
  }
}

/** The set of retried dispatches still running on one dispatcher. */
export class RetryTracker {
  readonly #live = new Set<RetryHandler>()
  #waiters: Array<() => void> = []
  #refusal: (() => Error) | null = null

  /** Once set (by close or destroy), the error new requests fail with; null while open. */
  refusal (): Error | null {
    return this.#refusal === null ? null : this.#refusal()
  }

  /** Refuses new requests with `ClientClosedError`; resolves once the running ones have ended. */
  close (): Promise<void> {
    this.#refusal ??= () => new ClientClosedError()
    return this.idle()
  }

  /** Refuses new requests with `ClientDestroyedError` and ends the running ones with `reason`. */
  destroy (reason: Error): void {
    this.#refusal = () => new ClientDestroyedError()
    for (const handler of [...this.#live]) handler.abort(reason)
  }

  /** Number of retried dispatches that have not ended yet. */
  get size (): number {
    return this.#live.size
  }

  /** Creates a tracked handler: `create` receives the caller's handler wrapped to report its end. */
  watch (caller: DispatchHandler, create: (handler: DispatchHandler) => RetryHandler): RetryHandler {
    let retryHandler: RetryHandler | null = null
    let settled = false
    const onSettled = (): void => {
      settled = true
      if (retryHandler !== null) this.#forget(retryHandler)
    }
    retryHandler = create(new SettleNotice(caller, onSettled))
    if (!settled) this.#live.add(retryHandler)
    return retryHandler
  }

  /** Removes a handler whose first dispatch threw, so it never started. */
  forget (handler: RetryHandler): void {
    this.#forget(handler)
  }

  /** Resolves once no retried dispatch is running. */
  idle (): Promise<void> {
    if (this.#live.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  #forget (handler: RetryHandler): void {
    if (!this.#live.delete(handler) || this.#live.size > 0) return
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }
}
