/**
 * `interceptors.deadline()`: one time budget for a whole exchange (queue, connect, head, body,
 * and every retry and redirect composed inside it), failing with a `DeadlineExceededError` that
 * names the budget and the phase it ran out in. Expiries are logged with `NODE_DEBUG=conduit:deadline`.
 * @module
 */

import { copyOptions, failOption, MAX_TIMER_MS } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { DEADLINE_BUDGET_OPTION, DeadlineBudget, deadlineBudgetOf } from './deadline-budget.js'
import type { CarriesDeadlineBudget } from './deadline-budget.js'
import { DeadlineHandler } from './deadline-handler.js'

// What the interceptors below a deadline read of it (retry, redirect and rate limit spend its budget).
export { deadlineBudgetOf, DeadlineBudget } from './deadline-budget.js'


/** Options of {@link deadline}. */
export interface DeadlineInterceptorOptions {
  /**
   * The budget of every exchange, in milliseconds; a request's own `deadlineMs` dispatch option
   * replaces it. Without either, requests pass through untouched.
   * @defaultValue none
   */
  timeoutMs?: number | undefined
}

declare module '../../src/handler.js' {
  interface DispatchOptions {
    /** The request's own budget in milliseconds, replacing the deadline interceptor's `timeoutMs`. */
    deadlineMs?: number | undefined
  }
}

const BUDGET_RULE = `a positive number of milliseconds up to ${MAX_TIMER_MS}`

function checkBudget (value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_MS) failOption('deadline()', name, BUDGET_RULE, value)
  return value
}

/** The options the layers below see: the request's own `deadlineMs` is spent here. */
function withoutOwnBudget (opts: DispatchOptions): DispatchOptions {
  const below = copyOptions(opts)
  below.deadlineMs = undefined
  return below
}

/**
 * The deadline interceptor. Compose it outside (after, in `compose()`'s list) the retry and
 * redirect interceptors it should bound: they then read the time left and refuse a wait or an
 * attempt that could not finish within it. A budget already set by a deadline further out that
 * ends sooner is kept. Bad options throw an `InvalidArgumentError` naming the value.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.retry(), interceptors.deadline({ timeoutMs: 2000 }))
 * await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET', deadlineMs: 500 })
 */
export function deadline (options: DeadlineInterceptorOptions = {}): Interceptor {
  if (options === null || typeof options !== 'object') failOption('deadline()', 'options', 'an object', options)
  const defaultMs = checkBudget(options.timeoutMs, 'timeoutMs')
  return (dispatch: Dispatch): Dispatch => function dispatchWithDeadline (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null) return dispatch(opts, handler)
    const own = checkBudget(opts.deadlineMs, 'deadlineMs')
    const timeoutMs = own ?? defaultMs
    const outer = deadlineBudgetOf(opts)
    if (timeoutMs === undefined || (outer !== undefined && outer.leftMs() <= timeoutMs)) {
      return dispatch(own === undefined ? opts : withoutOwnBudget(opts), handler)
    }
    const budget = new DeadlineBudget(timeoutMs, opts)
    const deadlineHandler = new DeadlineHandler(handler, budget)
    let accepted: boolean
    try {
      const below: DispatchOptions & CarriesDeadlineBudget = withoutOwnBudget(opts)
      below[DEADLINE_BUDGET_OPTION] = budget
      accepted = dispatch(below, deadlineHandler)
    } catch (err) {
      deadlineHandler.cancel()
      throw err
    }
    deadlineHandler.dispatched(accepted)
    return accepted
  }
}
