import { nextTick } from '../runtime/timers.js'
/**
 * Running user code (callbacks, factories, event listeners) from inside the transport: what it
 * throws must reach the process as an uncaught exception, as with undici, and must neither be
 * swallowed nor fail the request or the connection it was called from.
 * @module
 */

/**
 * Calls `fn(...args)`; an exception it throws is rethrown on the next tick, outside the
 * transport's call stack, so it surfaces as `uncaughtException`.
 */
export function callUserCode<A extends unknown[]> (fn: (...args: A) => unknown, ...args: A): void {
  try {
    fn(...args)
  } catch (err) {
    nextTick(rethrow, err)
  }
}

/**
 * Emits `event` on `emitter`; a listener that throws does not stop the caller (the transport)
 * and its exception surfaces as `uncaughtException`.
 */
export function emitSafely (emitter: { emit (event: string, ...args: unknown[]): boolean }, event: string, ...args: unknown[]): void {
  // The same as callUserCode, written out: a 'drain' is emitted per request under load, and a
  // closure per call would be garbage per request.
  try {
    emitter.emit(event, ...args)
  } catch (err) {
    nextTick(rethrow, err)
  }
}

function rethrow (err: unknown): never {
  throw err
}
