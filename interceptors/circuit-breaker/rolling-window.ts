/**
 * Requests and failures over the last `windowMs`, in a ring of buckets: recording and reading
 * cost the same whatever the traffic, and old buckets fall out as time moves on.
 * @module
 */

const BUCKETS = 10

/** A rolling count of outcomes over a window of time. */
export class RollingWindow {
  readonly #bucketMs: number
  readonly #slot = new Array<number>(BUCKETS).fill(-1)
  readonly #total = new Array<number>(BUCKETS).fill(0)
  readonly #failed = new Array<number>(BUCKETS).fill(0)

  constructor (windowMs: number) {
    this.#bucketMs = windowMs / BUCKETS
  }

  /** Counts one outcome at time `now` (milliseconds). */
  record (now: number, failed: boolean): void {
    const index = Math.floor(now / this.#bucketMs)
    const i = index % BUCKETS
    if (this.#slot[i] !== index) {
      this.#slot[i] = index
      this.#total[i] = 0
      this.#failed[i] = 0
    }
    this.#total[i]!++
    if (failed) this.#failed[i]!++
  }

  /** Requests and failures counted in the window that ends at `now`. */
  counts (now: number): { total: number, failed: number } {
    const current = Math.floor(now / this.#bucketMs)
    let total = 0
    let failed = 0
    for (let i = 0; i < BUCKETS; i++) {
      const slot = this.#slot[i]!
      if (slot > current - BUCKETS && slot <= current) {
        total += this.#total[i]!
        failed += this.#failed[i]!
      }
    }
    return { total, failed }
  }

  /** Forgets every outcome. */
  clear (): void {
    this.#slot.fill(-1)
  }
}
