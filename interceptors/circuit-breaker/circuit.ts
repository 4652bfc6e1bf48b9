/**
 * One circuit: closed (requests pass, outcomes counted), open (requests fail fast), half-open
 * (a few probes pass; their outcome closes or reopens it). Time is read from `Date.now()` when a
 * request arrives or ends, never from a timer: the windows follow the caller's clock, so a test
 * moves them with a fake one, and an idle circuit costs nothing.
 * @module
 */

import type { ResolvedCircuitBreakerOptions } from './options.js'
import { RollingWindow } from '../rolling-window.js'

/** The states of a circuit. */
export type CircuitState = 'closed' | 'open' | 'half-open'

/** A state change, as published on `conduit:circuitBreaker:stateChange`. */
export interface CircuitStateChange {
  /** The circuit's key (the origin, unless a key function chose another). */
  key: string
  /** The state left. */
  from: CircuitState
  /** The state entered. */
  to: CircuitState
  /** Why, in words (`5 consecutive failures, the last status 503`). */
  reason: string
}

/** What a circuit lets a request do: pass, pass as a probe, or fail fast (with the wait until a probe may pass). */
export type Admission = 'pass' | 'probe' | { waitMs: number }

/** The state machine of one key. */
export class Circuit {
  readonly key: string
  #state: CircuitState = 'closed'
  #openedAt = 0
  #probing = 0
  #probed = 0
  #consecutive = 0
  #openReason = ''
  readonly #window: RollingWindow
  readonly #options: ResolvedCircuitBreakerOptions
  readonly #onChange: (change: CircuitStateChange) => void

  constructor (key: string, options: ResolvedCircuitBreakerOptions, onChange: (change: CircuitStateChange) => void) {
    this.key = key
    this.#options = options
    this.#window = new RollingWindow(options.windowMs)
    this.#onChange = onChange
  }

  /** The state now (an open circuit whose time is up reads as half-open only once a request arrives). */
  get state (): CircuitState { return this.#state }

  /** Why the circuit last opened. */
  get openReason (): string { return this.#openReason }

  /** Decides whether a request arriving at `now` may pass. */
  admit (now: number): Admission {
    if (this.#state === 'closed') return 'pass'
    if (this.#state === 'open') {
      const waitMs = this.#openedAt + this.#options.openMs - now
      if (waitMs > 0) return { waitMs }
      this.#change('half-open', `open for ${this.#options.openMs}ms, letting ${this.#options.halfOpenProbes} probe(s) through`)
      this.#probing = 0
      this.#probed = 0
    }
    if (this.#probing >= this.#options.halfOpenProbes) return { waitMs: 0 }
    this.#probing++
    return 'probe'
  }

  /** A request that passed succeeded. */
  succeeded (probe: boolean, now: number): void {
    if (probe) {
      if (this.#state !== 'half-open') return
      this.#probing--
      if (++this.#probed < this.#options.halfOpenProbes) return
      this.#window.clear()
      this.#consecutive = 0
      this.#change('closed', `${this.#probed} probe(s) succeeded`)
      return
    }
    if (this.#state !== 'closed') return
    this.#consecutive = 0
    this.#window.record(now, false)
  }

  /** A request that passed failed; `what` describes the failure (`status 503`, `ECONNREFUSED`). */
  failed (probe: boolean, now: number, what: string): void {
    if (probe) {
      if (this.#state !== 'half-open') return
      this.#probing--
      this.#open(now, `a probe failed: ${what}`)
      return
    }
    if (this.#state !== 'closed') return
    this.#consecutive++
    this.#window.record(now, true)
    const { consecutiveFailures, minimumRequests, failureRate, windowMs } = this.#options
    if (consecutiveFailures > 0 && this.#consecutive >= consecutiveFailures) {
      this.#open(now, `${this.#consecutive} consecutive failures, the last ${what}`)
      return
    }
    const { total, marked: failed } = this.#window.counts(now)
    if (total >= minimumRequests && failed / total >= failureRate) {
      this.#open(now, `${failed} of ${total} requests failed in ${windowMs}ms (failureRate ${failureRate}), the last ${what}`)
    }
  }

  /** A request that passed ended with no verdict on the upstream (the caller aborted it). */
  released (probe: boolean): void {
    if (probe && this.#state === 'half-open') this.#probing--
  }

  #open (now: number, reason: string): void {
    this.#openedAt = now
    this.#openReason = reason
    this.#change('open', reason)
  }

  #change (to: CircuitState, reason: string): void {
    const from = this.#state
    this.#state = to
    this.#onChange({ key: this.key, from, to, reason })
  }
}
