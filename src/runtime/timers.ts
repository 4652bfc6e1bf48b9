/**
 * The runtime's own timers, immediates, ticks and clock, taken once when this module loads.
 *
 * A test suite that installs a fake clock after importing conduit (sinon's or Jest's fake
 * timers, `node:test`'s `mock.timers`) replaces the globals; I/O must not stop because of it. A
 * socket's write batch, a connection's timeouts, a pool's drain, a WebSocket's close timer: each
 * schedules through the functions here, which keep pointing at the real ones. Timers a test is
 * meant to move on its own clock (retry backoff, a mock reply's delay) look the global up when
 * they run instead; docs/transport.md lists which is which.
 * @module
 */

import * as timers from 'node:timers'

/** The runtime's `setTimeout`. */
export const setTimeout: typeof timers.setTimeout = timers.setTimeout
/** The runtime's `clearTimeout`. */
export const clearTimeout: typeof timers.clearTimeout = timers.clearTimeout
/** The runtime's `setInterval`. */
export const setInterval: typeof timers.setInterval = timers.setInterval
/** The runtime's `clearInterval`. */
export const clearInterval: typeof timers.clearInterval = timers.clearInterval
/** The runtime's `setImmediate`. */
export const setImmediate: typeof timers.setImmediate = timers.setImmediate
/** The runtime's `clearImmediate`. */
export const clearImmediate: typeof timers.clearImmediate = timers.clearImmediate
/** The runtime's `process.nextTick`. */
export const nextTick: typeof process.nextTick = process.nextTick
/** The runtime's `queueMicrotask`. */
export const queueMicrotask: typeof globalThis.queueMicrotask = globalThis.queueMicrotask

const realPerformanceNow = performance.now.bind(performance)

/** Milliseconds on the runtime's monotonic clock (`performance.now()`), which no fake clock moves. */
export function monotonicNow (): number {
  return realPerformanceNow()
}
