/**
 * `interceptors.circuitBreaker()`: stops sending requests to an upstream that keeps failing.
 * Per key (the origin by default) a circuit opens after consecutive failures or a failure rate
 * over a rolling window, fails requests fast with a `CircuitOpenError` while open, then lets
 * probes through and closes when they succeed. State changes go to the
 * `conduit:circuitBreaker:stateChange` diagnostics channel and `NODE_DEBUG=conduit:circuit-breaker`.
 * @module
 */

import { CircuitOpenError, InvalidReturnValueError, describeValue, failDispatch, showRequest } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { normalizeOrigin } from '../request-identity.js'
import { CircuitHandler } from './circuit-handler.js'
import { CircuitRegistry } from './circuit-registry.js'
import { resolveCircuitBreakerOptions } from './options.js'
import type { CircuitBreakerOptions } from './options.js'

export type { CircuitBreakerOptions } from './options.js'
export type { CircuitState, CircuitStateChange } from './circuit.js'

/**
 * The circuit breaker interceptor. Compose it inside `retry()` (before it in `compose()`'s list)
 * so every attempt is counted and a retry meets an open circuit at once (`CircuitOpenError` is
 * not retried). Bad options throw an `InvalidArgumentError` naming the value.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.circuitBreaker({ consecutiveFailures: 3, openMs: 10_000 }), interceptors.retry())
 */
export function circuitBreaker (options?: CircuitBreakerOptions): Interceptor {
  const resolved = resolveCircuitBreakerOptions(options)
  // Shared by every dispatcher this interceptor is composed onto: one Agent's pools, or several Agents.
  const circuits = new CircuitRegistry(resolved)
  const keyOf = resolved.key
  return (dispatch: Dispatch): Dispatch => function dispatchThroughCircuit (opts: DispatchOptions, handler: DispatchHandler): boolean {
    // A protocol switch hands the socket over: there is no response to judge the upstream by.
    if (typeof opts !== 'object' || opts === null || opts.upgrade != null || opts.method === 'CONNECT') return dispatch(opts, handler)
    const key: unknown = keyOf === undefined ? (opts.origin === undefined ? '' : normalizeOrigin(opts.origin)) : keyOf(opts)
    if (typeof key !== 'string') {
      return failDispatch(handler, new InvalidReturnValueError(`circuitBreaker(): key must return a string, got ${describeValue(key)}`))
    }
    const circuit = circuits.get(key)
    const admission = circuit.admit(Date.now())
    if (typeof admission === 'object') {
      const wait = admission.waitMs > 0 ? `a probe may pass in ${admission.waitMs}ms` : 'its probes are in flight'
      return failDispatch(handler, new CircuitOpenError(
        `circuitBreaker(): the circuit for ${key} is ${circuit.state} (${circuit.openReason}); ${wait}: ${showRequest(opts)} not sent`,
        key,
        admission.waitMs
      ))
    }
    return dispatch(opts, new CircuitHandler(handler, circuit, admission === 'probe', resolved))
  }
}
