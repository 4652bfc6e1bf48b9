/**
 * The request as diagnostics messages show it. Built here rather than in the transport, because
 * what it shows is an observability decision: credential values are redacted, and the caller
 * tag is shown both as it is and as the `fetch` flag subscribers already rely on.
 * @module
 */

import type { DiagnosticsRequest } from '../diagnostics.js'
import type { DispatchOptions } from '../contracts/dispatch-contract.js'
import { FETCH_NAMESPACE } from './debug-log.js'
import { redactHeaders, sensitiveHeaderNames } from './redaction.js'

/** What the view is made of: the request as the transport prepared it. */
export interface ViewedRequest {
  /** The origin the request goes to. */
  origin: string
  /** The normalized method. */
  method: string
  /** The request target, query included. */
  path: string
  /** The headers as the caller gave them. */
  headers: DispatchOptions['headers']
}

/**
 * The diagnostics view of `request`.
 * @param sensitive - the extra header names to redact, as the dispatch options gave them
 * @param caller - the caller tag, or null
 */
export function requestView (request: ViewedRequest, sensitive: unknown, caller: string | null): DiagnosticsRequest {
  return {
    origin: request.origin,
    method: request.method,
    path: request.path,
    headers: redactHeaders(request.headers, sensitiveHeaderNames(sensitive)),
    caller,
    fetch: caller === FETCH_NAMESPACE
  }
}
