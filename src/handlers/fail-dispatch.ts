/**
 * Ending a dispatch with an error before any connection took it: a refusal after close, a
 * rejected option found late, an abort while queued.
 * @module
 */

import type { DispatchHandler } from '../contracts/dispatch-contract.js'
import { SimpleController } from './simple-controller.js'

/**
 * Reports `err` through the handler's `onResponseError`, with a controller of its own since no
 * transport controls the dispatch, and returns false as `dispatch` does for a request it did not take.
 */
export function failDispatch (handler: DispatchHandler, err: Error): false {
  handler.onResponseError?.(new SimpleController(), err)
  return false
}
