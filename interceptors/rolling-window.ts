/**
 * Events over the last `windowMs`, some of them marked (failures for the circuit breaker,
 * retries for the retry budget), in a ring of buckets: recording and reading cost the same
 * whatever the traffic, and old buckets fall out as time moves on. Time is given by the caller
 * (`Date.now()`), so the window follows the caller's clock.
 * @module
 */

const BUCKETS = 10

/** A rolling count of events over a window of time. */
export class RollingWindow {
  readonly #bucketMs: number
  readonly #slot = new Array<number>(BUCKETS).fill(-1)
  readonly #total = new Array<number>(BUCKETS).fill(0)
  readonly #marked = new Array<number>(BUCKETS).fill(0)

  constructor (windowMs: number) {
    this.#bucketMs = windowMs / BUCKETS
  }

  /** Counts one event at time `now` (milliseconds), marked or not. */
  record (now: number, marked: boolean): void {
    const index = Math.floor(now / this.#bucketMs)
    const i = index % BUCKETS
    if (this.#slot[i] !== index) {
      this.#slot[i] = index
      this.#total[i] = 0
      this.#marked[i] = 0
    }
    this.#total[i]!++
    if (marked) this.#marked[i]!++
  }

  /** Events, and marked ones, counted in the window that ends at `now`. */
  counts (now: number): { total: number, marked: number } {
    const current = Math.floor(now / this.#bucketMs)
    let total = 0
    let marked = 0
    for (let i = 0; i < BUCKETS; i++) {
      const slot = this.#slot[i]!
      if (slot > current - BUCKETS && slot <= current) {
        total += this.#total[i]!
        marked += this.#marked[i]!
      }
    }
    return { total, marked }
  }

  /** Forgets every event. */
  clear (): void {
    this.#slot.fill(-1)
  }
}
