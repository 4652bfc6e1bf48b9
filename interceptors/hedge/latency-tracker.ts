/**
 * The latencies (time to the response head) the hedge interceptor saw per origin, the most
 * recent ones in a ring, and the percentile of them it waits before sending a copy.
 * @module
 */

import { LATENCY_SAMPLES } from './options.js'

/** Origins tracked; past it the oldest is forgotten, so unbounded origins cannot grow memory. */
const MAX_ORIGINS = 1000

/** The recent latencies of one origin. */
class LatencyRing {
  readonly #samples = new Float64Array(LATENCY_SAMPLES)
  #count = 0
  #next = 0
  // The sorted copy is made again only after a new sample, not for every request.
  #sorted: Float64Array | null = null

  get count (): number { return this.#count }

  add (ms: number): void {
    this.#samples[this.#next] = ms
    this.#next = (this.#next + 1) % LATENCY_SAMPLES
    if (this.#count < LATENCY_SAMPLES) this.#count++
    this.#sorted = null
  }

  /** The nearest-rank `p`th percentile of the samples. */
  percentile (p: number): number {
    this.#sorted ??= this.#samples.slice(0, this.#count).sort()
    const rank = Math.ceil((p / 100) * this.#count)
    return this.#sorted[Math.max(0, rank - 1)]!
  }
}

/** Latencies by origin, for one hedge interceptor. */
export class LatencyTracker {
  readonly #rings = new Map<string, LatencyRing>()

  /** Records that a request to `key` got its response head after `ms`. */
  record (key: string, ms: number): void {
    let ring = this.#rings.get(key)
    if (ring === undefined) {
      if (this.#rings.size >= MAX_ORIGINS) this.#rings.delete(this.#rings.keys().next().value!)
      ring = new LatencyRing()
      this.#rings.set(key, ring)
    }
    ring.add(ms)
  }

  /** The `p`th percentile of `key`'s latencies, or undefined while fewer than `minSamples` are known. */
  percentile (key: string, p: number, minSamples: number): number | undefined {
    const ring = this.#rings.get(key)
    return ring === undefined || ring.count < minSamples ? undefined : ring.percentile(p)
  }
}
