/**
 * Counts the frames a peer can send in bulk to make a session work without progress, per
 * window of time, and ends the connection with ENHANCE_YOUR_CALM once one kind is over its
 * limit: each count is a number, so a flood costs constant memory and the check constant time.
 * @module
 */

import type { FloodLimits } from './session-options.js'
import { connectionError } from './protocol-error.js'
import { ErrorCode } from './protocol.js'

/** The kinds of frames counted, each with the limit that bounds it. */
export type FloodKind = 'maxSettings' | 'maxPings' | 'maxResets' | 'maxEmptyFrames' | 'maxIgnoredFrames' | 'maxStreamErrors'

const KINDS: readonly FloodKind[] = ['maxSettings', 'maxPings', 'maxResets', 'maxEmptyFrames', 'maxIgnoredFrames', 'maxStreamErrors']

/** Per-kind counters over a sliding-by-reset window. */
export class FloodGuard {
  readonly #limits: FloodLimits
  readonly #counts = new Map<FloodKind, number>(KINDS.map((kind) => [kind, 0]))
  #windowStart: number

  constructor (limits: FloodLimits, now: number) {
    this.#limits = limits
    this.#windowStart = now
  }

  /** Counts one frame of `kind` at `now`; throws the connection error once the kind is over its limit. */
  note (kind: FloodKind, now: number): void {
    if (now - this.#windowStart >= this.#limits.windowMs) {
      for (const name of KINDS) this.#counts.set(name, 0)
      this.#windowStart = now
    }
    const count = this.#counts.get(kind)! + 1
    this.#counts.set(kind, count)
    const limit = this.#limits[kind]
    if (count > limit) {
      throw connectionError(ErrorCode.ENHANCE_YOUR_CALM, `the peer sent more than ${limit} frames of one kind within ${this.#limits.windowMs} ms (limit ${kind})`, kind)
    }
  }
}
