/**
 * A controller for responses that no connection produces (cache hits, mock replies, refusals).
 * @module
 */

import type { DispatchController } from '../contracts/dispatch-contract.js'
import { RequestAbortedError } from '../errors.js'

/**
 * A plain {@link DispatchController} whose abort/pause/resume call the given functions.
 * Transports and interceptors that produce responses themselves (cache hits, mocks) use it.
 */
export class SimpleController implements DispatchController {
  #aborted = false
  #paused = false
  #reason: Error | null = null
  #onAbort: ((reason: Error) => void) | undefined
  #onPause: (() => void) | undefined
  #onResume: (() => void) | undefined

  constructor (hooks: { abort?: (reason: Error) => void, pause?: () => void, resume?: () => void } = {}) {
    this.#onAbort = hooks.abort
    this.#onPause = hooks.pause
    this.#onResume = hooks.resume
  }

  get aborted (): boolean { return this.#aborted }
  get paused (): boolean { return this.#paused }
  get reason (): Error | null { return this.#reason }

  abort (reason: Error): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason ?? new RequestAbortedError()
    this.#onAbort?.(this.#reason)
  }

  pause (): void {
    if (this.#paused) return
    this.#paused = true
    this.#onPause?.()
  }

  resume (): void {
    if (!this.#paused) return
    this.#paused = false
    this.#onResume?.()
  }
}
