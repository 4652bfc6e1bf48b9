/**
 * The queue of a dispatcher that has several dispatchers under it (Pool, BalancedPool,
 * RoundRobinPool): requests that arrived while every one of them was busy, in order. A queued
 * request whose signal aborts leaves the queue at once and fails, without waiting for a slot.
 * @module
 */

import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { failDispatch } from '../handlers/fail-dispatch.js'
import { RequestAbortedError } from '../errors.js'

/** One waiting request. */
export interface QueuedDispatch {
  opts: DispatchOptions
  handler: DispatchHandler
}

interface Entry extends QueuedDispatch {
  /** Removes the abort listener of `opts.signal`, when one was added. */
  unlisten: (() => void) | null
}

/** Requests waiting for a dispatcher, first in first out. */
export class DispatchQueue {
  #entries: Entry[] = []
  #whenEmpty: Array<() => void> = []

  /** Requests waiting. */
  get length (): number { return this.#entries.length }

  /** Adds a request at the end; its signal, if any, can take it out again. */
  push (opts: DispatchOptions, handler: DispatchHandler): void {
    const entry: Entry = { opts, handler, unlisten: null }
    const signal = opts.signal
    if (signal != null && typeof signal.addEventListener === 'function') {
      // A request waiting here has no dispatcher yet to watch its signal; an abort must not wait for one.
      const onAbort = (): void => {
        const i = this.#entries.indexOf(entry)
        if (i === -1) return
        this.#entries.splice(i, 1)
        failDispatch(handler, signal.reason instanceof Error ? signal.reason : new RequestAbortedError())
        this.#settleIfEmpty()
      }
      signal.addEventListener('abort', onAbort, { once: true })
      entry.unlisten = () => signal.removeEventListener('abort', onAbort)
    }
    this.#entries.push(entry)
  }

  /** Takes the first request out; undefined when none waits. */
  shift (): QueuedDispatch | undefined {
    const entry = this.#entries.shift()
    if (entry === undefined) return undefined
    entry.unlisten?.()
    if (this.#entries.length === 0) this.#settleIfEmpty()
    return entry
  }

  /** Resolves once no request waits (at once when none does). */
  whenEmpty (): Promise<void> {
    if (this.#entries.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.#whenEmpty.push(resolve))
  }

  /** Fails every waiting request with `error` and empties the queue. */
  failAll (error: Error): void {
    const entries = this.#entries.splice(0)
    for (const { handler, unlisten } of entries) {
      unlisten?.()
      failDispatch(handler, error)
    }
    this.#settleIfEmpty()
  }

  #settleIfEmpty (): void {
    if (this.#entries.length !== 0 || this.#whenEmpty.length === 0) return
    const waiting = this.#whenEmpty.splice(0)
    for (const resolve of waiting) resolve()
  }
}
