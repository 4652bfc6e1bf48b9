/**
 * A budget of extra sends (retries, hedged copies) over a rolling window: a floor plus a share of
 * the requests made in it, so a struggling upstream meets a bounded share of extra load however
 * many requests fail or lag. The window follows the caller's clock (`Date.now()`).
 * @module
 */

import { RollingWindow } from './rolling-window.js'

/** The spending of one budget of extra sends, shared by every request through one interceptor. */
export class RequestShare {
  readonly #noun: string
  readonly #floorName: string
  readonly #floor: number
  readonly #ratio: number
  readonly #windowMs: number
  // Requests unmarked, extra sends marked.
  readonly #window: RollingWindow

  /**
   * @param noun - what is spent, for the log ("retry", "hedge")
   * @param floorName - the option the floor came from, for the log
   */
  constructor (noun: string, floorName: string, floor: number, ratio: number, windowMs: number) {
    this.#noun = noun
    this.#floorName = floorName
    this.#floor = floor
    this.#ratio = ratio
    this.#windowMs = windowMs
    this.#window = new RollingWindow(windowMs)
  }

  /** A request was made. */
  requested (now: number): void {
    this.#window.record(now, false)
  }

  /** Takes one extra send from the budget when it has one; otherwise returns why not, for the log. */
  withdraw (now: number): string | null {
    const { total, marked: spent } = this.#window.counts(now)
    const requests = total - spent
    if (spent >= this.#floor + Math.floor(this.#ratio * requests)) {
      return `the ${this.#noun} budget is spent: ${spent} ${this.#noun === 'retry' ? 'retries' : `${this.#noun}s`} for ${requests} requests in ${this.#windowMs}ms (${this.#floorName} ${this.#floor}, ratio ${this.#ratio})`
    }
    this.#window.record(now, true)
    return null
  }
}
