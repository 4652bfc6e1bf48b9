/**
 * The global dispatcher, used by the top-level `request()` and by `fetch()` when no dispatcher
 * is given. It lives on `globalThis` under a `Symbol.for` key, so two copies of the package
 * (two versions in one dependency tree) share it.
 *
 * `setGlobalDispatcher` also installs the dispatcher where the runtime's own `fetch` looks for
 * its global dispatcher (`Symbol.for('undici.globalDispatcher.1')`): conduit dispatchers accept
 * that fetch's handler shape, so after the call the runtime's `fetch` goes through conduit too,
 * interceptors included.
 * @module
 */

import { Dispatcher } from './dispatcher/dispatcher.js'
import { Agent } from './dispatcher/agent.js'
import { describeValue } from './validation/describe-value.js'
import { InvalidArgumentError } from './errors.js'

/** Key of conduit's global dispatcher on `globalThis`. */
export const GLOBAL_DISPATCHER = Symbol.for('conduit.globalDispatcher.1')
/** Key under which the runtime's built-in fetch (undici 7 and older, up to Node 24) looks for its global dispatcher. */
export const RUNTIME_FETCH_GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')
/** Key under which the runtime's built-in fetch of undici 8 (Node 26) looks for it. */
export const RUNTIME_FETCH_GLOBAL_DISPATCHER_2 = Symbol.for('undici.globalDispatcher.2')

type GlobalSlots = Record<symbol, unknown>

/**
 * Makes `dispatcher` the global one (for conduit and for the runtime's built-in fetch).
 * @example
 * setGlobalDispatcher(new Agent().compose(interceptors.retry()))
 * await fetch('http://127.0.0.1:3000/') // the runtime's fetch now retries through conduit
 */
export function setGlobalDispatcher (dispatcher: Dispatcher): void {
  if (dispatcher === null || typeof dispatcher !== 'object' || typeof (dispatcher as Dispatcher).dispatch !== 'function') {
    throw new InvalidArgumentError(`setGlobalDispatcher: expected a dispatcher (an object with dispatch()), got ${describeValue(dispatcher)}`)
  }
  const slots = globalThis as unknown as GlobalSlots
  Object.defineProperty(slots, GLOBAL_DISPATCHER, { value: dispatcher, writable: true, enumerable: false, configurable: true })
  // conduit dispatchers take both handler shapes, so one dispatcher serves either runtime slot.
  for (const key of [RUNTIME_FETCH_GLOBAL_DISPATCHER, RUNTIME_FETCH_GLOBAL_DISPATCHER_2]) {
    // The runtime defines its slot as writable but not configurable once its fetch has run:
    // assign when it exists, define it the same way when it does not.
    if (Object.getOwnPropertyDescriptor(slots, key) !== undefined) {
      slots[key] = dispatcher
    } else {
      Object.defineProperty(slots, key, { value: dispatcher, writable: true, enumerable: false, configurable: false })
    }
  }
}

/** Returns the global dispatcher, creating a default {@link Agent} on first use. */
export function getGlobalDispatcher (): Dispatcher {
  const slots = globalThis as unknown as GlobalSlots
  let dispatcher = slots[GLOBAL_DISPATCHER] as Dispatcher | undefined
  if (dispatcher === undefined) {
    dispatcher = new Agent()
    Object.defineProperty(slots, GLOBAL_DISPATCHER, { value: dispatcher, writable: true, enumerable: false, configurable: true })
  }
  return dispatcher
}
