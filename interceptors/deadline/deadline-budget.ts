/**
 * The time budget of one exchange, as the deadline interceptor hands it down the stack: the
 * layers below it (retry, redirect) read the time left from it before starting a wait or an
 * attempt, and tell it which phase the request is in.
 * @module
 */

import { DeadlineExceededError, runtimeTimers, showRequest } from '../../src/handler.js'
import type { DeadlinePhase, DispatchOptions, ShownRequest } from '../../src/handler.js'

/** The dispatch option the budget travels in, from the deadline interceptor to the layers below. */
export const DEADLINE_BUDGET_OPTION = 'deadlineBudget'

/** Dispatch options that carry a {@link DeadlineBudget}: state the interceptor passes down, not a caller's option. */
export interface CarriesDeadlineBudget {
  /** The budget of the exchange the request belongs to. */
  [DEADLINE_BUDGET_OPTION]?: DeadlineBudget | undefined
}

const PHASE_WORDS: Readonly<Record<DeadlinePhase, string>> = Object.freeze({
  queue: 'waiting for a free connection',
  connect: 'connecting',
  headers: 'waiting for the response head',
  body: 'reading the response body',
  'retry-wait': 'waiting to retry'
})

/**
 * The budget of one exchange. Time is read on the runtime's monotonic clock: the deadline bounds
 * I/O, which must end whatever a test does with a fake clock.
 */
export class DeadlineBudget {
  /** The whole budget, in milliseconds. */
  readonly timeoutMs: number
  /** The phase the request is in, kept up to date by the layers that see it change. */
  phase: DeadlinePhase = 'queue'
  readonly #endsAt: number
  // Rendered only when an error names it: most exchanges end well inside their budget.
  readonly #request: ShownRequest

  constructor (timeoutMs: number, opts: DispatchOptions) {
    this.timeoutMs = timeoutMs
    this.#endsAt = runtimeTimers.monotonicNow() + timeoutMs
    this.#request = { method: opts.method, origin: opts.origin, path: opts.path }
  }

  /** Milliseconds left, 0 once spent. */
  leftMs (): number {
    return Math.max(0, this.#endsAt - runtimeTimers.monotonicNow())
  }

  /** True when `waitMs` can be waited with time still left afterwards for an attempt. */
  allows (waitMs: number): boolean {
    return this.#endsAt - runtimeTimers.monotonicNow() > waitMs
  }

  /** The error the exchange ends with when the budget runs out in `phase` (the current one by default). */
  exceeded (phase: DeadlinePhase = this.phase, cause?: Error): DeadlineExceededError {
    return new DeadlineExceededError(
      `deadline of ${this.timeoutMs}ms exceeded while ${PHASE_WORDS[phase]} (phase ${phase}): ${showRequest(this.#request)}`,
      this.timeoutMs,
      phase,
      cause === undefined ? undefined : { cause }
    )
  }

  /**
   * The error for a retry that cannot be waited for and sent within the budget: raised at once,
   * rather than after a wait that could only end in the deadline.
   */
  retryRefused (waitMs: number, cause: Error): DeadlineExceededError {
    return new DeadlineExceededError(
      `deadline of ${this.timeoutMs}ms leaves ${Math.floor(this.leftMs())}ms, not enough to wait ${waitMs}ms and retry (phase retry-wait): ${showRequest(this.#request)}`,
      this.timeoutMs,
      'retry-wait',
      { cause }
    )
  }
}

/** The budget a request carries from a deadline interceptor above, if any. */
export function deadlineBudgetOf (opts: DispatchOptions): DeadlineBudget | undefined {
  const budget: unknown = (opts as CarriesDeadlineBudget)[DEADLINE_BUDGET_OPTION]
  return budget instanceof DeadlineBudget ? budget : undefined
}
