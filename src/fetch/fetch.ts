/**
 * `fetch()`: the Fetch Standard's entry point over any conduit Dispatcher.
 * @module
 */

import { getGlobalDispatcher } from '../global.js'
import { FetchHandler, networkError } from './fetch-handler.js'
import { isUnmeasuredForeignBody, measureForeignBody } from './foreign-body.js'
import { requestStateFor } from './request.js'
import type { RequestInfo } from './request.js'
import type { RequestInit, RequestState } from './request-state.js'
import type { Response } from './response.js'
import { checkProgressOptions } from '../api/transfer-progress.js'
import type { TransferProgressOptions } from '../api/transfer-progress.js'

/**
 * Fetches `input`. Resolves once the response head arrives (an HTTP error status still resolves;
 * check `response.ok`); rejects with `TypeError('fetch failed')`, the real error as `cause`, on a
 * network failure, and with the signal's reason when aborted. `init.dispatcher` picks the
 * dispatcher (default: the global one), so interceptors composed on it apply to fetch too.
 * @example
 * const response = await fetch('http://127.0.0.1:3000/items', { dispatcher: agent })
 * const items = await response.json()
 */
// The default keeps `fetch.length` at 1, as WebIDL counts only the required `input`.
export function fetch (input: RequestInfo, init: RequestInit | undefined = undefined): Promise<Response> {
  if (arguments.length === 0) return Promise.reject(new TypeError('fetch: the input argument is required'))
  let state: RequestState
  try {
    state = requestStateFor(input, init, 'fetch')
  } catch (err) {
    return Promise.reject(err)
  }
  let progress: TransferProgressOptions | null = null
  if (init != null && (init.onUploadProgress != null || init.onDownloadProgress != null)) {
    try {
      checkProgressOptions('fetch', init, true)
    } catch (err) {
      return Promise.reject(err)
    }
    progress = { onUploadProgress: init.onUploadProgress, onDownloadProgress: init.onDownloadProgress }
  }
  const promise = new Promise<Response>(takeSettlers)
  const resolve = pendingResolve!
  const reject = pendingReject!
  pendingResolve = null
  pendingReject = null
  try {
    const handler = new FetchHandler(state, state.dispatcher ?? getGlobalDispatcher(), resolve, reject, progress)
    if (!isUnmeasuredForeignBody(state.body) || state.signal?.aborted === true) {
      handler.start()
    } else {
      // Another implementation's Request hides its body's length: learn it before sending.
      measureForeignBody(state.body).then(() => handler.start(), (err: unknown) => reject(networkError(err)))
    }
  } catch (err) {
    // As a throw inside a promise executor would: the promise rejects, unless it already settled.
    reject(err)
  }
  return promise
}

// The settling functions of the promise fetch() is making, handed over by its executor. One
// module-level executor instead of a closure per call: the executor runs synchronously inside
// the Promise constructor, so the two are taken before anything else can run.
let pendingResolve: ((response: Response) => void) | null = null
let pendingReject: ((reason: unknown) => void) | null = null

function takeSettlers (resolve: (response: Response) => void, reject: (reason: unknown) => void): void {
  pendingResolve = resolve
  pendingReject = reject
}
