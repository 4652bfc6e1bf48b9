/**
 * The checks an HTTP/2 exchange runs on its stream's {@link ResponseLimits}, as functions shared
 * by every stream, so that a check costs no closure.
 * @module
 */

import type { ResponseLimits } from '../connection/response-limits.js'
import type { ClientRequest } from '../connection/client-request.js'

/** One check of a stream's {@link ResponseLimits}: `length` is the body bytes that arrived, if any. */
export type LimitCheck = (limits: ResponseLimits, req: ClientRequest, length: number) => void

/** Counts a 1xx head against `maxInformationalResponses`. */
export const countInformational: LimitCheck = (limits, req) => { limits.informational(req) }

/** Counts body bytes against `maxResponseSize`. */
export const countBody: LimitCheck = (limits, req, length) => { limits.body(req, length) }
