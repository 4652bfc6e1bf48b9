/**
 * The option checks the pooling dispatchers (Agent, Pool, RoundRobinPool, BalancedPool) share,
 * worded by the one kit ({@link failOption}): each constructor names itself as `who`, so a bad
 * value reads `Pool: connections must be ..., got -1` whichever class was given it.
 * @module
 */

import { failOption } from '../validation/options.js'

/** Throws unless the constructor's `options` argument is an object. */
export function checkOptionsObject (who: string, options: unknown): void {
  if (options === null || typeof options !== 'object') failOption(who, 'options', 'an object', options)
}

/** Throws unless `connections` is absent, null or a non-negative integer (0 and null: no limit). */
export function checkConnections (who: string, connections: unknown): void {
  if (connections != null && (!Number.isInteger(connections) || (connections as number) < 0)) {
    failOption(who, 'connections', 'a non-negative integer or null', connections)
  }
}

/** Throws unless option `name` (a factory, a clock) is absent or a function. */
export function checkFunctionOption (who: string, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') failOption(who, name, 'a function', value)
}
