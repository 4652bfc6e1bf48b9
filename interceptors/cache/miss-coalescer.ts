/**
 * Collapsing concurrent misses (request coalescing): while one request for a URL is on its way
 * to the origin, identical requests wait for it instead of going out too. When its response
 * has been stored they are answered from the store; when it turns out not storable (or fails)
 * each goes to the origin on its own, so no response meant for one request reaches another
 * unless the cache would have served it anyway.
 * @module
 */

/** How the leading request ended, as far as the waiting ones care. */
export type LeaderOutcome = 'stored' | 'not-stored'

/** Called once when the leader's outcome is known. */
export type Waiter = (outcome: LeaderOutcome) => void

/** In-flight misses by URL identity. */
export class MissCoalescer {
  readonly #inflight = new Map<string, Set<Waiter>>()

  /**
   * Makes the caller the leader for `id` (returns a function to report its outcome, to be
   * called exactly once), or, when a leader is already out, queues `waiter` and returns undefined.
   */
  lead (id: string, waiter: Waiter): ((outcome: LeaderOutcome) => void) | undefined {
    const waiting = this.#inflight.get(id)
    if (waiting !== undefined) {
      waiting.add(waiter)
      return undefined
    }
    const followers = new Set<Waiter>()
    this.#inflight.set(id, followers)
    let settled = false
    return (outcome) => {
      if (settled) return
      settled = true
      this.#inflight.delete(id)
      for (const follower of followers) follower(outcome)
    }
  }

  /** Stops waiting (the waiting request was aborted); true when it was still queued. */
  leave (id: string, waiter: Waiter): boolean {
    return this.#inflight.get(id)?.delete(waiter) ?? false
  }
}
