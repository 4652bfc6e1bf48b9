/**
 * The promise-or-callback shape of `close()` and `destroy()`, shared by the mock dispatchers.
 * @module
 */

import type { CloseCallback } from '../dispatcher/dispatcher.js'

/** Runs `work`; with a callback, reports through it, otherwise returns the promise. */
export function withCloseCallback (work: () => Promise<void>, callback: CloseCallback | undefined): Promise<void> | void {
  const promise = work()
  if (callback === undefined) return promise
  promise.then(() => callback(null), (err: Error) => callback(err))
}
