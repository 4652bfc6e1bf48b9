import { clearTimeout, setTimeout } from '../runtime/timers.js'
/**
 * The timers of a connection (headers, body, idle). One Node timer is kept per purpose and
 * re-armed with `refresh()` while its duration stays the same, so a request on a kept-alive
 * connection creates no timer of its own. Timers are unref'd: they never keep a process alive.
 *
 * Node measures a timer from the event loop's cached time, which stands still while one callback
 * runs. So within a batch (the owner handling one socket read), re-arming or refreshing a timer
 * that was refreshed already in the same batch would set the same start again, and is skipped:
 * a response that arrives in one read refreshes the timer once, not once per head, body and next
 * request.
 * @module
 */

/** Not armed. */
export const T_NONE = 0
/** Waiting for a response head (`headersTimeout`). */
export const T_HEADERS = 1
/** Waiting for the next body chunk (`bodyTimeout`). */
export const T_BODY = 2
/** A kept-alive connection waiting for its next request (`keepAliveTimeout`). */
export const T_IDLE = 3

/** A timer armed for one purpose at a time; `onFire` gets the purpose it was armed for. */
export class ConnectionTimer<Target = unknown> {
  /** What the timer is armed for (T_*), T_NONE when disarmed. */
  kind = T_NONE
  /** Duration of the current Node timer in milliseconds. */
  ms = 0
  #timer: NodeJS.Timeout | null = null
  readonly #onFire: (this: Target, kind: number) => void
  /** What `onFire` is called on. */
  readonly #target: Target
  #inBatch = false
  /** The Node timer was (re)started during the current batch. */
  #startedInBatch = false

  /**
   * @param onFire - called with the purpose the timer fired for
   * @param target - what `onFire` is called on: with it, an owner of many timers (one per
   *   HTTP/2 stream) passes one shared method instead of a closure per timer
   */
  constructor (onFire: (this: Target, kind: number) => void, target?: Target) {
    this.#onFire = onFire
    this.#target = target as Target
  }

  /** Arms the timer for `kind`; `ms` 0 means no timeout. */
  arm (kind: number, ms: number): void {
    if (ms === 0) {
      this.kind = T_NONE
      return
    }
    this.kind = kind
    if (this.#timer !== null && this.ms === ms) {
      this.#restart()
      return
    }
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.ms = ms
    // The timer's argument is this object: one shared callback, no closure per timer.
    this.#timer = setTimeout(ConnectionTimer.#fire, ms, this as ConnectionTimer<unknown>)
    this.#timer.unref()
    this.#startedInBatch = this.#inBatch
  }

  /** Restarts the countdown of the armed timer (activity seen). */
  refresh (): void {
    if (this.kind !== T_NONE) this.#restart()
  }

  /** The owner starts handling one event loop callback (a socket read); see the module notes. */
  startBatch (): void {
    this.#inBatch = true
    this.#startedInBatch = false
  }

  /** The callback that {@link startBatch} announced returns to the event loop. */
  endBatch (): void {
    this.#inBatch = false
    this.#startedInBatch = false
  }

  #restart (): void {
    if (this.#startedInBatch) return
    this.#timer!.refresh()
    this.#startedInBatch = this.#inBatch
  }

  /** Leaves the Node timer in place (it may be re-armed cheaply) but ignores it when it fires. */
  disarm (): void {
    this.kind = T_NONE
  }

  /** Cancels the Node timer for good. */
  clear (): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    this.#startedInBatch = false
    this.kind = T_NONE
  }

  static #fire (timer: ConnectionTimer<unknown>): void {
    const kind = timer.kind
    timer.kind = T_NONE
    if (kind !== T_NONE) timer.#onFire.call(timer.#target, kind)
  }
}
