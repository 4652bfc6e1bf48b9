/**
 * A controller whose target can change. A revalidation hands the caller one controller up
 * front; it steers the network request first and, when a 304 lets the cache answer, the
 * replay of the stored body.
 * @module
 */

import type { DispatchController } from '../../src/handler.js'

/** Forwards abort/pause/resume to the current target and remembers them for the next one. */
export class ForwardingController implements DispatchController {
  #target: DispatchController | null = null
  #aborted = false
  #paused = false
  #reason: Error | null = null

  /** Points the controller at `target`, carrying over a pending pause or abort. */
  setTarget (target: DispatchController): void {
    this.#target = target
    if (this.#aborted && this.#reason !== null) target.abort(this.#reason)
    else if (this.#paused) target.pause()
  }

  get aborted (): boolean { return this.#aborted }
  get paused (): boolean { return this.#paused }
  get reason (): Error | null { return this.#reason }

  abort (reason: Error): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#target?.abort(reason)
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
