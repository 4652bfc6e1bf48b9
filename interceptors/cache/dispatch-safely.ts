/**
 * Reporting errors to a handler, and dispatching, from the cache's asynchronous paths, where a
 * throw would otherwise become an unhandled rejection.
 * @module
 */

import type { Dispatch, DispatchHandler, DispatchOptions } from '../../src/handler.js'
import { failDispatch } from '../../src/handler.js'
import { log } from './log.js'

/** Ends the request with `err`; a handler that throws while told is only logged. */
export function failWith (handler: DispatchHandler, err: Error): void {
  try {
    failDispatch(handler, err)
  } catch (thrown) {
    log('handler threw in onResponseError: %s', (thrown as Error).message)
  }
}

/** Calls the next dispatch from an asynchronous path, where a synchronous throw must become onResponseError. */
export function dispatchOrFail (dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler): void {
  try {
    dispatch(opts, handler)
  } catch (err) {
    failWith(handler, err as Error)
  }
}
