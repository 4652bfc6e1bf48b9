/**
 * The seam between the HTTP/2 session and a header compression codec (HPACK, RFC 7541): the
 * session hands a complete field block to `decode` and a header list to `encode`, and knows
 * nothing of the encoding, so the codec plugs in without the session changing.
 * @module
 */

/** A header list in order, names lowercase, pseudo-headers (`:status`…) first. */
export type HeaderList = Array<[string, string]>

/** A field-block codec the session uses for every HEADERS, CONTINUATION and trailer block. */
export interface HeaderBlockCodec {
  /**
   * Decodes one complete field block, given as the fragments it arrived in. Throws when the
   * block is not valid (the session then ends the connection with COMPRESSION_ERROR, as RFC 9113
   * section 4.3 requires, unless the error is an `H2ProtocolError` naming its own code), or when
   * its decoded list is over `maxListSize` bytes as RFC 9113 section 6.5.2 counts them.
   */
  decode: (fragments: readonly Buffer[], maxListSize: number) => HeaderList
  /** Encodes a request's or trailers' header list as one field block. */
  encode: (headers: HeaderList) => Buffer
  /** The peer's SETTINGS_HEADER_TABLE_SIZE, the most the encoder's dynamic table may hold. */
  setEncoderTableSize?: (size: number) => void
}
