/**
 * The limiter of one key: a token bucket (rate and burst), a cap on requests in flight, and what
 * the server said (`Retry-After` on a 429/503, `RateLimit`, `RateLimit-Policy`). Requests wait
 * in a queue in arrival order. The waits are pacing, not I/O bounds: they run on the caller's
 * clock (`Date.now()` and the global `setTimeout`), so a fake-timer test moves them.
 * @module
 */

import type { RateLimitPolicy, RateLimitState } from './ratelimit-fields.js'
import type { ResolvedRateLimitOptions } from './options.js'

/** A request waiting for its turn. */
export interface Waiter {
  /** Sends the request: called once, when a token and a slot are free. */
  run: () => void
}

/** Why a request waits, for the log. */
export type WaitReason = 'rate' | 'concurrency' | 'retry-after' | 'ratelimit'

/** The state of one key. */
export class Limiter {
  readonly key: string
  readonly #options: ResolvedRateLimitOptions
  readonly #queue: Waiter[] = []
  #tokens: number
  #refilledAt: number
  #inFlight = 0
  #pausedUntil = 0
  #server: { remaining: number, resetAt: number } | null = null
  #policy: RateLimitPolicy | null = null
  #timer: ReturnType<typeof setTimeout> | null = null
  readonly #log: (message: string) => void

  constructor (key: string, options: ResolvedRateLimitOptions, now: number, log: (message: string) => void) {
    this.key = key
    this.#options = options
    this.#tokens = options.burst
    this.#refilledAt = now
    this.#log = log
  }

  /** Requests waiting. */
  get queued (): number { return this.#queue.length }

  /** True when nothing waits or runs: the limiter may be forgotten. */
  get idle (): boolean { return this.#queue.length === 0 && this.#inFlight === 0 && this.#timer === null }

  /** Queues `waiter` and sends what may be sent. */
  enqueue (waiter: Waiter): void {
    this.#queue.push(waiter)
    this.#pump()
  }

  /** Takes a waiter out of the queue (its request was aborted); true if it was there. */
  remove (waiter: Waiter): boolean {
    const i = this.#queue.indexOf(waiter)
    if (i === -1) return false
    this.#queue.splice(i, 1)
    return true
  }

  /** The milliseconds a request arriving now would wait before it could be sent (0 when it could go at once). */
  waitMs (now: number): number {
    return this.#wait(now)[0]
  }

  /** A sent request ended: its slot is free. */
  release (): void {
    this.#inFlight--
    this.#pump()
  }

  /** Reads the server's answer: a refusal's `Retry-After`, the `RateLimit` fields. */
  observe (now: number, statusCode: number, retryAfterMs: number | undefined, state: RateLimitState | undefined, policy: RateLimitPolicy | undefined): void {
    if ((statusCode === 429 || statusCode === 503) && retryAfterMs !== undefined && retryAfterMs > 0) {
      const until = now + Math.min(retryAfterMs, this.#options.maxPauseMs)
      if (until > this.#pausedUntil) {
        this.#pausedUntil = until
        this.#log(`${this.key}: status ${statusCode} asks for ${retryAfterMs}ms; holding requests until then`)
      }
    }
    if (state !== undefined) {
      this.#server = { remaining: state.remaining, resetAt: now + Math.min(state.resetSeconds * 1000, this.#options.maxPauseMs) }
      if (state.remaining === 0) this.#log(`${this.key}: RateLimit says none left for ${state.resetSeconds}s; holding requests`)
    }
    if (policy !== undefined && this.#options.rate === undefined) this.#policy = policy
  }

  // The wait before the next request may go, and why.
  #wait (now: number): [number, WaitReason] {
    let wait = 0
    let reason: WaitReason = 'rate'
    if (this.#pausedUntil > now) {
      wait = this.#pausedUntil - now
      reason = 'retry-after'
    }
    const server = this.#server
    if (server !== null && server.resetAt <= now) this.#server = null
    else if (server !== null && server.remaining <= 0 && server.resetAt - now > wait) {
      wait = server.resetAt - now
      reason = 'ratelimit'
    }
    const rate = this.#ratePerMs()
    if (rate !== undefined) {
      this.#refill(now, rate)
      const forToken = this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) / rate)
      if (forToken > wait) {
        wait = forToken
        reason = 'rate'
      }
    }
    return [wait, reason]
  }

  #ratePerMs (): number | undefined {
    if (this.#options.rate !== undefined) return this.#options.rate / 1000
    const policy = this.#policy
    return policy === null ? undefined : policy.quota / (policy.windowSeconds * 1000)
  }

  #burst (): number {
    return this.#options.rate !== undefined ? this.#options.burst : Math.max(1, this.#policy?.quota ?? 1)
  }

  #refill (now: number, ratePerMs: number): void {
    const elapsed = now - this.#refilledAt
    if (elapsed > 0) this.#tokens = Math.min(this.#burst(), this.#tokens + elapsed * ratePerMs)
    this.#refilledAt = now
  }

  #pump (): void {
    while (this.#queue.length > 0) {
      if (this.#inFlight >= this.#options.maxConcurrent) return
      const now = Date.now()
      const [wait, reason] = this.#wait(now)
      if (wait > 0) {
        this.#sleep(wait, reason)
        return
      }
      if (this.#ratePerMs() !== undefined) this.#tokens -= 1
      if (this.#server !== null) this.#server.remaining--
      this.#inFlight++
      this.#queue.shift()!.run()
    }
  }

  #sleep (ms: number, reason: WaitReason): void {
    if (this.#timer !== null) return
    this.#log(`${this.key}: ${this.#queue.length} request(s) wait ${ms}ms (${reason})`)
    // Pacing follows the caller's clock on purpose (docs/transport.md, "Fake clocks in tests").
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.#pump()
    }, ms)
  }
}
