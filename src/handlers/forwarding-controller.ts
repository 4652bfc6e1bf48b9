/**
 * A controller that stays the same for the caller while the response behind it changes: a
 * retry moves from one attempt to the next, a cache revalidation from the network request to
 * the replay of the stored body.
 * @module
 */

import type { RequestTimings } from '../contracts/request-timings.js'
import type { DispatchController } from '../contracts/dispatch-contract.js'
import { RequestAbortedError } from '../errors.js'

/** Options of a {@link ForwardingController}. */
export interface ForwardingControllerOptions {
  /**
   * Runs once when the caller aborts, in place of aborting the target: the owner then decides
   * how to end the current attempt (or a wait between attempts).
   * @defaultValue undefined: the abort goes to the current target, and to any later one
   */
  onAbort?: ((reason: Error) => void) | undefined
}

/**
 * A stable {@link DispatchController} in front of a sequence of controllers. Pause and resume go
 * to the current target and a pause carries over to the next one, so a caller that paused stays
 * paused across the switch.
 * @example
 * const controller = new ForwardingController()
 * handler.onRequestStart?.(controller, context)
 * controller.target = networkController // later: controller.target = replayController
 */
export class ForwardingController implements DispatchController {
  #target: DispatchController | null = null
  #paused = false
  #reason: Error | null = null
  readonly #onAbort: ((reason: Error) => void) | undefined

  /** @param options - see {@link ForwardingControllerOptions} */
  constructor (options: ForwardingControllerOptions = {}) {
    this.#onAbort = options.onAbort
  }

  /** The controller now delivering to the caller, or null between targets. */
  get target (): DispatchController | null { return this.#target }
  /** Switches to `target`, which inherits a pending pause (and, without `onAbort`, an abort). */
  set target (target: DispatchController | null) {
    this.#target = target
    if (target === null) return
    if (this.#reason !== null && this.#onAbort === undefined) target.abort(this.#reason)
    else if (this.#paused) target.pause()
  }

  /** True once the caller aborted, or the current target was aborted (by its signal, for one). */
  get aborted (): boolean { return this.#reason !== null || (this.#target?.aborted ?? false) }
  /** True while the caller has paused. */
  get paused (): boolean { return this.#paused }
  /** The current target's timings: those of the attempt now delivering (see {@link DispatchController.timings}). */
  get timings (): RequestTimings | null { return this.#target?.timings ?? null }
  /** The caller's abort reason, else the current target's, else null. */
  get reason (): Error | null { return this.#reason ?? this.#target?.reason ?? null }

  /** Aborts once: through `onAbort` when one was given, otherwise the current target. */
  abort (reason: Error): void {
    if (this.#reason !== null) return
    this.#reason = reason ?? new RequestAbortedError()
    if (this.#onAbort !== undefined) this.#onAbort(this.#reason)
    else this.#target?.abort(this.#reason)
  }

  /** Pauses the current target and every later one until `resume()`. */
  pause (): void {
    this.#paused = true
    this.#target?.pause()
  }

  /** Resumes the current target. */
  resume (): void {
    this.#paused = false
    this.#target?.resume()
  }
}
