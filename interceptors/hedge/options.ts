/**
 * Hedge options: the public type, the defaults (one place), and their validation.
 * @module
 */

import { describeValueWithItems, failOption, MAX_TIMER_MS } from '../../src/handler.js'
import type { OptionFailure } from '../../src/handler.js'

/** The hedge budget's settings, as `hedge({ budget })` takes them. */
export interface HedgeBudgetOptions {
  /**
   * Hedges allowed per request made in the window (0 to 1): `0.1` lets one request in ten send a second copy.
   * @defaultValue `0.1`
   */
  ratio?: number | undefined
  /**
   * Hedges always allowed per window, whatever the traffic, so a quiet client can still hedge.
   * @defaultValue `10`
   */
  minHedges?: number | undefined
  /**
   * Length of the rolling window, in milliseconds.
   * @defaultValue `10000`
   */
  windowMs?: number | undefined
}

/** Options of `interceptors.hedge()`. */
export interface HedgeOptions {
  /**
   * A fixed delay, in milliseconds, after which a request still unanswered is sent again. With
   * `percentile` it is the delay used until enough latencies are known.
   * @defaultValue none: the delay follows `percentile`
   */
  delayMs?: number | undefined
  /**
   * The delay is this percentile (above 0, below 100) of the latencies (time to the response
   * head) the interceptor observed for the request's origin, once it saw `minSamples` of them.
   * @defaultValue `95` when `delayMs` is not set, none otherwise
   */
  percentile?: number | undefined
  /**
   * Latencies an origin must have shown before its percentile is used; until then only `delayMs`
   * (if set) hedges.
   * @defaultValue `20`
   */
  minSamples?: number | undefined
  /**
   * Extra copies one request may send, each one delay after the previous.
   * @defaultValue `1`
   */
  maxHedges?: number | undefined
  /**
   * Methods hedged: safe or idempotent ones, since the server may see every copy. A request's
   * `idempotent: true` opts it in whatever its method, `idempotent: false` opts it out.
   * @defaultValue `['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']`
   */
  methods?: readonly string[] | undefined
  /**
   * The cap on the extra load, shared by every request through the interceptor: over a rolling
   * window at most `minHedges` plus `ratio` times the requests made send a copy. The window
   * follows the caller's clock (`Date.now()`).
   * @defaultValue `{ ratio: 0.1, minHedges: 10, windowMs: 10000 }`
   */
  budget?: HedgeBudgetOptions | undefined
}

/** {@link HedgeBudgetOptions} with the defaults filled in. */
export interface ResolvedHedgeBudget {
  readonly ratio: number
  readonly minHedges: number
  readonly windowMs: number
}

/** {@link HedgeOptions} with every default filled in. */
export interface ResolvedHedgeOptions {
  readonly delayMs: number | undefined
  readonly percentile: number | undefined
  readonly minSamples: number
  readonly maxHedges: number
  readonly methods: ReadonlySet<string>
  readonly budget: ResolvedHedgeBudget
}

/** The documented hedge defaults. */
export const HEDGE_DEFAULTS = Object.freeze({
  percentile: 95,
  minSamples: 20,
  maxHedges: 1,
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']),
  budget: Object.freeze({ ratio: 0.1, minHedges: 10, windowMs: 10_000 })
})

/** Latencies kept per origin for the percentile: the most recent ones. */
export const LATENCY_SAMPLES = 200
/** Most copies of one request: past a few, hedging is a load generator, not a tail cutter. */
const MAX_HEDGES = 5
const WHO = 'hedge()'
const SHOWN_WITH_ITEMS: OptionFailure = Object.freeze({ show: describeValueWithItems })

function integer (name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    failOption(WHO, name, `an integer from ${min} to ${max}`, value)
  }
  return value
}

function delay (name: string, value: unknown): number {
  if (typeof value !== 'number' || !(value >= 0) || value > MAX_TIMER_MS) {
    failOption(WHO, name, `a non-negative number of milliseconds up to ${MAX_TIMER_MS}`, value)
  }
  return value
}

function resolveBudget (value: unknown): ResolvedHedgeBudget {
  const d = HEDGE_DEFAULTS.budget
  if (value === undefined) return d
  if (typeof value !== 'object' || value === null || Array.isArray(value)) failOption(WHO, 'budget', 'an object { ratio, minHedges, windowMs }', value, SHOWN_WITH_ITEMS)
  const b = value as HedgeBudgetOptions
  const ratio: unknown = b.ratio ?? d.ratio
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) failOption(WHO, 'budget.ratio', 'a number from 0 to 1', ratio)
  const windowMs: unknown = b.windowMs ?? d.windowMs
  if (typeof windowMs !== 'number' || !(windowMs > 0) || windowMs > MAX_TIMER_MS) {
    failOption(WHO, 'budget.windowMs', `a positive number of milliseconds up to ${MAX_TIMER_MS}`, windowMs)
  }
  return Object.freeze({ ratio, minHedges: integer('budget.minHedges', b.minHedges ?? d.minHedges, 0, Number.MAX_SAFE_INTEGER), windowMs })
}

/** Fills in the defaults and validates every option; throws an `InvalidArgumentError` naming the bad value. */
export function resolveHedgeOptions (options: HedgeOptions | null | undefined): ResolvedHedgeOptions {
  const o = options ?? {}
  if (typeof o !== 'object' || Array.isArray(o)) failOption(WHO, 'options', 'an object', o)
  const d = HEDGE_DEFAULTS
  const delayMs = o.delayMs === undefined ? undefined : delay('delayMs', o.delayMs)
  const percentile: unknown = o.percentile ?? (delayMs === undefined ? d.percentile : undefined)
  if (percentile !== undefined && (typeof percentile !== 'number' || !(percentile > 0 && percentile < 100))) {
    failOption(WHO, 'percentile', 'a number above 0 and below 100', percentile)
  }
  const methods: unknown = o.methods ?? d.methods
  if (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string' && m.length > 0)) {
    failOption(WHO, 'methods', 'an array of method names', methods, SHOWN_WITH_ITEMS)
  }
  return Object.freeze({
    delayMs,
    percentile: percentile as number | undefined,
    minSamples: integer('minSamples', o.minSamples ?? d.minSamples, 1, LATENCY_SAMPLES),
    maxHedges: integer('maxHedges', o.maxHedges ?? d.maxHedges, 1, MAX_HEDGES),
    methods: new Set((methods as string[]).map((m) => m.toUpperCase())),
    budget: resolveBudget(o.budget)
  })
}
