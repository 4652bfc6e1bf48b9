/**
 * The controller the caller's handler holds for the whole retried dispatch. Each attempt has its
 * own transport controller; this one forwards to whichever attempt is delivering, and keeps the
 * caller's pause across a switch to a new attempt.
 * @module
 */

import type { DispatchController } from '../../src/handler.js'
import { RequestAbortedError } from '../../src/errors.js'

/** A stable {@link DispatchController} over a sequence of attempt controllers. */
export class RetryController implements DispatchController {
  #paused = false
  #target: DispatchController | null = null
  #abortReason: Error | null = null
  readonly #onAbort: (reason: Error) => void

  /** `onAbort` runs when the caller aborts; the handler ends the current attempt or wait. */
  constructor (onAbort: (reason: Error) => void) {
    this.#onAbort = onAbort
  }

  /** The attempt controller now delivering to the caller, or null between attempts. */
  get target (): DispatchController | null { return this.#target }
  set target (target: DispatchController | null) {
    this.#target = target
    if (target !== null && this.#paused) target.pause()
  }

  get aborted (): boolean { return this.#abortReason !== null || (this.#target?.aborted ?? false) }
  get paused (): boolean { return this.#paused }
  get reason (): Error | null { return this.#abortReason ?? this.#target?.reason ?? null }

  abort (reason: Error): void {
    if (this.#abortReason !== null) return
    this.#abortReason = reason ?? new RequestAbortedError()
    this.#onAbort(this.#abortReason)
  }

  pause (): void {
    this.#paused = true
    this.#target?.pause()
  }

  resume (): void {
    this.#paused = false
    this.#target?.resume()
  }
}
