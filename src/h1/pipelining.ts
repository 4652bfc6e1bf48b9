/**
 * Which requests may be written behind others still waiting for their answers (RFC 9112
 * section 9.3.2).
 * @module
 */

import { BODY_BYTES, BODY_NONE } from '../connection/request-body.js'
import type { ClientRequest } from '../connection/client-request.js'

/**
 * Whether `req` may join a non-empty pipeline. A request that changes state, switches protocols
 * or streams its body waits for an empty one: if the connection fails, nothing queued behind it
 * may be replayed blindly.
 */
export function mayJoinPipeline (req: ClientRequest): boolean {
  return req.idempotent && req.upgrade === null && req.method !== 'CONNECT' && (req.bodyKind === BODY_NONE || req.bodyKind === BODY_BYTES)
}
