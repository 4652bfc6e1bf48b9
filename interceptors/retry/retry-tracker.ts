/**
 * Keeps track of the retried dispatches of one dispatcher, so that closing it can wait for those
 * between attempts and destroying it can end their waits at once. The retry interceptor hears of
 * both through the dispatch lifecycle of the dispatcher it is composed on.
 * @module
 */

import { ClientClosedError, ClientDestroyedError } from '../../src/handler.js'
import type { RetryHandler } from './retry-handler.js'

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

  /** Counts `handler` as running until {@link RetryTracker.forget} is called for it (its end, or a first dispatch that threw). */
  track (handler: RetryHandler): void {
    this.#live.add(handler)
  }

  /** Stops counting `handler`: its dispatch ended, or its first dispatch threw. */
  forget (handler: RetryHandler): void {
    if (!this.#live.delete(handler) || this.#live.size > 0) return
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }

  /** Resolves once no retried dispatch is running. */
  idle (): Promise<void> {
    if (this.#live.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }
}
