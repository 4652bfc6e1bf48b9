/**
 * The seam between the HTTP/2 session and a header compression codec (HPACK, RFC 7541): the
 * session hands each field block fragment to `decodeFragment` as its frame arrives and a header
 * list to `encode`, and knows nothing of the encoding, so the codec plugs in without the session
 * changing.
 * @module
 */

import type { LibraryError } from '../../errors.js'

/** A header list in order, names lowercase, pseudo-headers (`:status`…) first. */
export type HeaderList = Array<[string, string]>

/**
 * An error a codec throws that costs only the stream whose block it was decoding (a malformed
 * field, a header list past its limit): the session resets that stream with `h2Code`, hands the
 * error to the stream's listener, and feeds the codec the rest of the block, so the codec's state
 * stays in step with the peer's (RFC 9113 section 4.3).
 */
export interface StreamScopedCodecError extends LibraryError {
  readonly streamOnly: true
  /** The HTTP/2 error code (RFC 9113 section 7) the stream is reset with. */
  readonly h2Code: number
}

/** True when `error` is a {@link StreamScopedCodecError}. */
export function isStreamScoped (error: unknown): error is StreamScopedCodecError {
  const e = error as Partial<StreamScopedCodecError> | null
  return typeof e === 'object' && e !== null && e.streamOnly === true && typeof e.h2Code === 'number'
}

/** A field-block codec the session uses for every HEADERS, CONTINUATION and trailer block. */
export interface HeaderBlockCodec {
  /**
   * Decodes the next fragment of a field block (a HEADERS or CONTINUATION payload, padding
   * removed), as it arrives: returns the header list after the block's last fragment
   * (`endOfBlock`), null before. A decoded list over `maxListSize` bytes, as RFC 9113 section 6.5.2
   * counts them, is refused from the fragment where it shows. Throws a
   * {@link StreamScopedCodecError} for a problem of the stream alone (its later fragments then
   * return null); any other error ends the connection with COMPRESSION_ERROR, unless it is an
   * `H2ProtocolError` naming its own code.
   */
  decodeFragment: (fragment: Buffer, endOfBlock: boolean, maxListSize: number) => HeaderList | null
  /** Encodes a request's or trailers' header list as one field block. */
  encode: (headers: HeaderList) => Buffer
  /** The peer's SETTINGS_HEADER_TABLE_SIZE, the most the encoder's dynamic table may hold. */
  setEncoderTableSize?: (size: number) => void
}
