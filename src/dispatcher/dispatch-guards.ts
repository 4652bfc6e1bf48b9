/**
 * The checks every dispatcher makes before it takes a request: options that are an object, and
 * a refusal of requests once the dispatcher is closed or destroyed.
 * @module
 */

import { ClientClosedError, ClientDestroyedError } from '../errors.js'
import { failOption } from '../validation/options.js'

/**
 * Throws when dispatch options are not an object, or carry a signal that cannot be listened to,
 * before anything is queued or written. Checked once, at the public `dispatch()`: the layers
 * inside trust the signal they are handed.
 * @throws InvalidArgumentError naming what was given instead
 */
export function checkDispatchOptions (opts: unknown): void {
  if (opts === null || typeof opts !== 'object') {
    failOption('dispatch', 'options', 'an object', opts)
  }
  const signal = (opts as { signal?: unknown }).signal
  if (signal != null && typeof (signal as { addEventListener?: unknown }).addEventListener !== 'function') {
    failOption('dispatch', 'signal', 'an AbortSignal or an object with addEventListener', signal)
  }
}

/**
 * The error a request to a dispatcher that stopped taking requests fails with:
 * `ClientClosedError` while `close()` is pending, `ClientDestroyedError` once it completed or
 * after `destroy()`.
 */
export function closedError (destroyed: boolean): Error {
  return destroyed ? new ClientDestroyedError() : new ClientClosedError()
}
