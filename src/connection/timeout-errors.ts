/**
 * The errors of a request whose headers or body timer ran out, worded once for HTTP/1.1 and
 * HTTP/2.
 * @module
 */

import { BodyTimeoutError, HeadersTimeoutError } from '../errors.js'
import type { ClientRequest } from './client-request.js'
import { T_HEADERS } from './connection-timer.js'

/** No response head within `ms`; `note` adds to the option's name (how the time was counted). */
export function headersTimeoutError (req: ClientRequest, ms: number, note = ''): HeadersTimeoutError {
  return new HeadersTimeoutError(`no response head from ${req.origin} for ${req.method} ${req.path} within ${ms} ms (headersTimeout${note})`)
}

/** No response body data for `ms`. */
export function bodyTimeoutError (req: ClientRequest, ms: number): BodyTimeoutError {
  return new BodyTimeoutError(`no response body data from ${req.origin} for ${req.method} ${req.path} within ${ms} ms (bodyTimeout)`)
}

/**
 * The error a request's timer of `kind` means after `ms`: none for the body timer of a request
 * whose consumer paused it (the wait is the consumer's, not the server's).
 */
export function timerError (kind: number, req: ClientRequest, ms: number): Error | null {
  if (kind === T_HEADERS) return headersTimeoutError(req, ms)
  return req.paused ? null : bodyTimeoutError(req, ms)
}
