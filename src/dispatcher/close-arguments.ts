/**
 * The two calling forms of `close()` and `destroy()` (promise or node-style callback), read and
 * settled in one place so every dispatcher accepts and reports them alike.
 * @module
 */

import { failOption } from '../validation/options.js'

/** Callback form of `close()` / `destroy()`. */
export type CloseCallback = (err?: Error | null) => void

/** What a `destroy()` call asked for, whichever of its three forms was used. */
export interface DestroyArguments {
  /** The error to fail requests with; null means the dispatcher's default (`ClientDestroyedError`). */
  err: Error | null
  /** The callback to report through; undefined means the caller wants the promise. */
  callback: CloseCallback | undefined
}

/**
 * Reads `destroy()`, `destroy(err)`, `destroy(callback)` and `destroy(err, callback)` into one shape.
 * @throws InvalidArgumentError when a callback is given that is not a function
 */
export function destroyArguments (errOrCallback: Error | null | undefined | CloseCallback, callback: CloseCallback | undefined): DestroyArguments {
  if (typeof errOrCallback === 'function') return { err: null, callback: checkCallback(errOrCallback, 'destroy') }
  return { err: errOrCallback ?? null, callback: checkCallback(callback, 'destroy') }
}

/**
 * Checks the optional callback of `close()` / `destroy()` before any work starts, so a wrong
 * argument throws at the call instead of failing later inside a promise nobody handles.
 * @throws InvalidArgumentError when `callback` is neither undefined nor a function
 */
export function checkCallback (callback: unknown, method: 'close' | 'destroy'): CloseCallback | undefined {
  if (callback !== undefined && typeof callback !== 'function') {
    failOption(method, 'callback', 'a function', callback)
  }
  return callback as CloseCallback | undefined
}

/**
 * Returns `done` when no callback was given; otherwise reports its outcome through `callback`
 * (`null` on success, the error on failure) and returns nothing, as the callback forms do.
 */
export function settleClose (done: Promise<void>, callback: CloseCallback | undefined): Promise<void> | void {
  if (callback === undefined) return done
  done.then(() => callback(null), (err: Error) => callback(err))
}
