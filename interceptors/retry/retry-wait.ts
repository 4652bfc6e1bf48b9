/**
 * The wait between two attempts: a timer plus the request's abort signal, both let go together.
 * @module
 */

import { RequestAbortedError, runtimeTimers } from '../../src/handler.js'
import type { DispatchOptions } from '../../src/handler.js'

/** A cancellable wait between attempts that also listens to the request's signal. */
export class RetryWait {
  #timer: ReturnType<typeof setTimeout> | null = null
  #immediate: ReturnType<typeof setImmediate> | null = null
  #unlisten: (() => void) | null = null

  /**
   * Calls `onAbort` as soon as `signal` aborts (at once when it already has), until {@link clear}.
   * Between attempts no transport watches the signal, so the wait must.
   */
  watch (signal: DispatchOptions['signal'], onAbort: (reason: Error) => void): void {
    if (signal == null || this.#unlisten !== null) return
    const listener = (): void => {
      const reason: unknown = signal.reason
      onAbort(reason instanceof Error ? reason : new RequestAbortedError())
    }
    if (signal.aborted) {
      listener()
      return
    }
    signal.addEventListener('abort', listener, { once: true })
    this.#unlisten = () => signal.removeEventListener('abort', listener)
  }

  /**
   * Calls `onElapsed` after `delayMs` (after the current I/O turn when 0), unless cleared first.
   * The backoff follows the global clock, so a test with fake timers moves it on its own clock, as
   * undici's does; a zero wait is no backoff and runs on the runtime's own immediate.
   */
  sleep (delayMs: number, onElapsed: () => void): void {
    if (delayMs <= 0) {
      this.#immediate = runtimeTimers.setImmediate(() => {
        this.#immediate = null
        onElapsed()
      })
      return
    }
    this.#timer = setTimeout(() => {
      this.#timer = null
      onElapsed()
    }, delayMs)
  }

  /** Stops the timer and the signal listener; nothing of the wait is left behind. */
  clear (): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    if (this.#immediate !== null) runtimeTimers.clearImmediate(this.#immediate)
    this.#timer = null
    this.#immediate = null
    this.#unlisten?.()
    this.#unlisten = null
  }
}
