/**
 * The error of the HPACK codec: a header block that breaks RFC 7541 or the limits the client set.
 * Its message names the problem and never a header value (a value may be a credential).
 * @module
 */

import { LibraryError } from '../../errors.js'
import { ErrorCode } from '../error-codes.js'

/** The stable code of every {@link HpackError}. */
export const HPACK_ERROR_CODE = 'LIB_ERR_HPACK'

/** What was wrong with a header block, in a word a caller can switch on. */
export type HpackProblem =
  | 'INTEGER_OVERFLOW'
  | 'TRUNCATED'
  | 'BAD_INDEX'
  | 'BAD_HUFFMAN'
  | 'TABLE_SIZE_UPDATE'
  | 'STRING_TOO_LONG'
  | 'HEADER_LIST_TOO_LARGE'
  | 'MALFORMED_FIELD'
  | 'DECODER_FAILED'

/**
 * The problems that leave the connection's HPACK state intact, with the code that resets the
 * stream: a malformed field, and a header list past its limit (the rest of its block was read
 * to keep the table in step, RFC 9113 section 4.3).
 */
const STREAM_ERRORS: Partial<Record<HpackProblem, number>> = {
  MALFORMED_FIELD: ErrorCode.PROTOCOL_ERROR,
  HEADER_LIST_TOO_LARGE: ErrorCode.CANCEL
}

/**
 * A header block could not be decoded. `h2Code` is the HTTP/2 error code to end with:
 * COMPRESSION_ERROR ends the connection (the decoder's table can no longer follow the peer's);
 * with `streamOnly` the code resets only the stream whose block held a malformed field
 * (PROTOCOL_ERROR) or outgrew the header list limit (CANCEL), and the table is intact.
 */
export class HpackError extends LibraryError {
  /** Which rule the block broke. */
  problem: HpackProblem
  /** The HTTP/2 error code (RFC 9113 section 7) the session should send. */
  h2Code: number
  /** True when only the stream is malformed and the connection's HPACK state is intact. */
  streamOnly: boolean
  constructor (problem: HpackProblem, message: string) {
    super(`HPACK: ${message}`)
    this.name = 'HpackError'
    this.code = HPACK_ERROR_CODE
    this.problem = problem
    const streamCode = STREAM_ERRORS[problem]
    this.streamOnly = streamCode !== undefined
    this.h2Code = streamCode ?? ErrorCode.COMPRESSION_ERROR
  }
}
