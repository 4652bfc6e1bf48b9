/**
 * An estimate of the connection's bandwidth-delay product, to grow the receive window so a
 * download is not held back by a window smaller than what the link carries in one round trip.
 * A sample is one round trip, measured by a PING sent when data starts arriving and its ACK;
 * the bytes that arrived meanwhile are what the link delivered in that time. When they filled
 * most of the window, the window was the bottleneck: it grows to twice the sample, up to a cap.
 * @module
 */

/** The part of the window a sample must fill for the window to count as the bottleneck. */
const FILL_RATIO = 2 / 3

/** Samples round trips and says when the window should grow. */
export class BdpEstimator {
  /** The current receive window it estimates for. */
  window: number
  readonly #cap: number
  #sampling = false
  #bytes = 0
  #sentAt = 0

  constructor (window: number, cap: number) {
    this.window = window
    this.#cap = cap
  }

  /** True once the window reached its cap: nothing more to measure. */
  get done (): boolean {
    return this.window >= this.#cap
  }

  /** Counts `bytes` of DATA at `now`; true when the caller should send a PING to start a sample. */
  received (bytes: number, now: number): boolean {
    if (this.#sampling) {
      this.#bytes += bytes
      return false
    }
    if (this.done) return false
    this.#sampling = true
    this.#bytes = bytes
    this.#sentAt = now
    return true
  }

  /** Ends the sample at the PING's ACK; returns the round trip in ms and the new window, or null if unchanged. */
  acknowledged (now: number): { rtt: number, window: number | null } {
    const rtt = now - this.#sentAt
    this.#sampling = false
    const bytes = this.#bytes
    this.#bytes = 0
    if (bytes < this.window * FILL_RATIO || this.done) return { rtt, window: null }
    this.window = Math.min(this.#cap, Math.max(2 * bytes, this.window))
    return { rtt, window: this.window }
  }
}
