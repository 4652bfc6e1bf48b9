/**
 * Checks shared by `request()`, `stream()` and `pipeline()`, made before anything is dispatched:
 * these options are only read once the response head arrives, too late to fail clearly.
 * @module
 */

import type { DispatchOptions } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError } from '../errors.js'
import { failOption } from '../validation/options.js'
import { copyOptions } from '../runtime/copy-options.js'
import { checkSignal, isEventTargetSignal } from './abort-signal.js'
import type { ApiSignal } from './abort-signal.js'

/** The options every request-level API reads itself. */
export interface ApiOptions {
  method?: string | undefined
  signal?: ApiSignal | null | undefined
  onInfo?: unknown
}

/** Throws {@link InvalidArgumentError} for a bad signal, a bad `onInfo` or a `CONNECT` method (which has its own API). */
export function checkApiOptions (who: string, opts: ApiOptions): void {
  checkSignal(who, opts.signal)
  if (opts.onInfo != null && typeof opts.onInfo !== 'function') {
    failOption(who, 'onInfo', 'a function', opts.onInfo)
  }
  if (opts.method === 'CONNECT') {
    throw new InvalidArgumentError(`${who}: method "CONNECT" is not supported here; use connect()`)
  }
}

/**
 * The options handed to `dispatch`: an EventEmitter signal is watched by the API handler alone,
 * so it is left out (the layers below only understand EventTarget signals).
 */
export function toDispatchOptions<T extends DispatchOptions> (opts: T): T {
  const signal = opts.signal as ApiSignal | null | undefined
  if (signal == null || isEventTargetSignal(signal)) return opts
  const copy = copyOptions(opts)
  copy.signal = undefined
  return copy
}

/** The options with the method they default to filled in, for a request that left it out. */
export function withMethod<T extends { method?: string | undefined }> (opts: T, method: string): T {
  const copy = copyOptions(opts)
  copy.method = method
  return copy
}
