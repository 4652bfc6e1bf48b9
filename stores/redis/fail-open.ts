/**
 * Failing open: every Redis operation of the store goes through {@link FailOpen.run}, which answers
 * `undefined` (a miss, a dropped write) instead of an error, within a bounded time, and reports
 * what went wrong to the store's error callback. After a timeout Redis is left alone for a short
 * while, so a stalled server costs one timeout per pause rather than one per request.
 * @module
 */

import { StoreTimeoutError, runtimeTimers } from '../../src/handler.js'

/** What {@link FailOpen} needs from the store. */
export interface FailOpenOptions {
  /** Longest wait for one operation. */
  timeoutMs: number
  /** How long Redis is skipped after a timeout. */
  pauseMs: number
  /** True when the connection can take commands right now. */
  ready: () => boolean
  /**
   * While the very first connection is being made, a promise of it; otherwise undefined. Operations
   * issued at startup wait for it (within their deadline) instead of failing at once.
   */
  firstConnection: () => Promise<void> | undefined
  /** Current time in ms (injectable for tests). */
  now: () => number
  /** Receives every failure. */
  report: (err: Error) => void
}

/** Runs Redis operations with a deadline, a pause after timeouts, and error reporting. */
export class FailOpen {
  #options: FailOpenOptions
  #pausedUntil = 0

  constructor (options: FailOpenOptions) {
    this.#options = options
  }

  /** False while Redis is known to be away or is being left alone after a timeout. */
  get available (): boolean {
    const o = this.#options
    return (o.ready() || o.firstConnection() !== undefined) && o.now() >= this.#pausedUntil
  }

  /** Resolves when `pending` settles or `timeoutMs` passes, whichever comes first; never rejects. */
  settle (pending: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = runtimeTimers.setTimeout(resolve, this.#options.timeoutMs)
      timer.unref()
      pending.then(() => {}, () => {}).finally(() => {
        runtimeTimers.clearTimeout(timer)
        resolve()
      })
    })
  }

  /**
   * Runs `operation` and resolves with its result, or with `undefined` when Redis is unavailable,
   * fails, or takes longer than `timeoutMs`. Never rejects. An outage seen through `ready()` is
   * not reported here: the connection's own error already was.
   */
  run<T> (label: string, operation: () => Promise<T>): Promise<T | undefined> {
    if (!this.available) return Promise.resolve(undefined)
    const { timeoutMs, pauseMs, now, report, firstConnection } = this.#options
    const connecting = firstConnection()
    return new Promise<T | undefined>((resolve) => {
      let settled = false
      const timer = runtimeTimers.setTimeout(() => {
        if (settled) return
        settled = true
        this.#pausedUntil = now() + pauseMs
        report(new StoreTimeoutError(`RedisCacheStore: ${label} got no answer within ${timeoutMs} ms; treated as a miss`))
        resolve(undefined)
      }, timeoutMs)
      timer.unref()
      let pending: Promise<T>
      try {
        pending = connecting === undefined ? operation() : connecting.then(operation)
      } catch (err) {
        pending = Promise.reject(err)
      }
      pending.then((result) => {
        if (settled) return
        settled = true
        runtimeTimers.clearTimeout(timer)
        resolve(result)
      }, (err: unknown) => {
        if (settled) return
        settled = true
        runtimeTimers.clearTimeout(timer)
        report(err instanceof Error ? err : new Error(String(err)))
        resolve(undefined)
      })
    })
  }
}
