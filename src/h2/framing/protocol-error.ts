/**
 * The error an HTTP/2 frame layer raises when the peer breaks RFC 9113 or one of the session's
 * limits: it carries the error code the session sends (in GOAWAY or RST_STREAM) and, when a
 * limit was exceeded, the limit's name, so the caller learns what happened and which knob governs it.
 * @module
 */

import { SocketError } from '../../errors.js'
import { rstCodeName } from '../error-codes.js'

/** A connection error (`streamId` 0) or a stream error of HTTP/2, with the code sent to the peer. */
export class H2ProtocolError extends SocketError {
  /** The RFC 9113 error code (`ErrorCode`) sent, or received when `remote` is true. */
  readonly errorCode: number
  /** The stream the error is about; 0 for a connection error. */
  readonly streamId: number
  /** The session limit the peer exceeded (`maxContinuationFrames`…), or null. */
  readonly limit: string | null
  /** True when the peer sent the code (GOAWAY or RST_STREAM), false when this side detected it. */
  readonly remote: boolean

  constructor (errorCode: number, streamId: number, message: string, limit: string | null = null, remote = false) {
    super(`HTTP/2 ${streamId === 0 ? 'connection' : `stream ${streamId}`} error ${rstCodeName(errorCode)}: ${message}`)
    this.errorCode = errorCode
    this.streamId = streamId
    this.limit = limit
    this.remote = remote
  }
}

/** Shorthand for a connection error: the session sends GOAWAY with `code` and closes. */
export function connectionError (code: number, message: string, limit: string | null = null): H2ProtocolError {
  return new H2ProtocolError(code, 0, message, limit)
}

/** Shorthand for a stream error: the session resets `streamId` with `code` and goes on. */
export function streamError (code: number, streamId: number, message: string): H2ProtocolError {
  return new H2ProtocolError(code, streamId, message)
}
