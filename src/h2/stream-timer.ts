/**
 * The headers and body timers of an HTTP/2 stream. A session carries many streams at once, and a
 * Node timer for each (started per stream, refreshed per body chunk, cleared at its end) costs
 * more than the stream's own work: so a long timeout (the defaults are minutes) is kept as plain
 * fields that the session's sweep ({@link STREAM_SWEEP_MS}) checks, one timer per session. A
 * timeout that is short next to the sweep's interval gets a Node timer of its own, as before,
 * because the sweep could make it fire late by more than a small part of it.
 * @module
 */

import { ConnectionTimer, T_NONE } from '../connection/connection-timer.js'

/** Milliseconds between two sweeps of a session's stream timers. */
export const STREAM_SWEEP_MS = 500
/**
 * The shortest timeout the sweep keeps. A swept timeout fires at most two sweeps late (one for the
 * sweep that notes the start, one for the sweep that sees it ran out): for this one, a quarter of it.
 */
export const SWEPT_MIN_MS = 8 * STREAM_SWEEP_MS

/** A timer armed for one purpose at a time; see the module notes. */
export class StreamTimer<Target> {
  /** What the timer is armed for (T_*), T_NONE when disarmed. */
  kind = T_NONE
  /** The timeout armed, in milliseconds. */
  ms = 0
  /** When the countdown started (`monotonicNow()` at the sweep that noted it); valid once `#started`. */
  #since = 0
  /** The sweep has noted the start of the current countdown. */
  #started = false
  /** The Node timer for a timeout too short for the sweep; made by the first such timeout. */
  #exact: ConnectionTimer<StreamTimer<unknown>> | null = null
  readonly #onFire: (this: Target, kind: number) => void
  readonly #target: Target

  /**
   * @param onFire - called on `target` with the purpose the timer fired for: one shared method for
   *   every stream rather than a closure per stream
   */
  constructor (onFire: (this: Target, kind: number) => void, target: Target) {
    this.#onFire = onFire
    this.#target = target
  }

  /** Arms the timer for `kind`; `ms` 0 means no timeout. */
  arm (kind: number, ms: number): void {
    if (ms === 0) {
      this.disarm()
      return
    }
    this.kind = kind
    this.ms = ms
    if (ms < SWEPT_MIN_MS) {
      (this.#exact ??= new ConnectionTimer<StreamTimer<unknown>>(StreamTimer.#fireExact, this as StreamTimer<unknown>)).arm(kind, ms)
      return
    }
    this.#exact?.clear()
    this.#started = false
  }

  /** Restarts the countdown (a body chunk arrived). */
  refresh (): void {
    if (this.kind === T_NONE) return
    if (this.ms < SWEPT_MIN_MS) this.#exact!.refresh()
    // The next sweep notes the new start: a chunk costs a write, not a clock read.
    else this.#started = false
  }

  /** Stops the countdown; the timer may be armed again. */
  disarm (): void {
    this.kind = T_NONE
    this.#exact?.disarm()
  }

  /** Stops the countdown for good (the stream ended). */
  clear (): void {
    this.kind = T_NONE
    this.#exact?.clear()
  }

  /** The session's sweep at `now` (`monotonicNow()`): fires a swept timeout that ran out. */
  sweep (now: number): void {
    if (this.kind === T_NONE || this.ms < SWEPT_MIN_MS) return
    if (!this.#started) {
      this.#started = true
      this.#since = now
      return
    }
    if (now - this.#since < this.ms) return
    const kind = this.kind
    this.kind = T_NONE
    this.#onFire.call(this.#target, kind)
  }

  static #fireExact (this: StreamTimer<unknown>, kind: number): void {
    this.kind = T_NONE
    this.#onFire.call(this.#target, kind)
  }
}
