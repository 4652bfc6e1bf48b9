/**
 * HTTP/1.1 framing constants of the response parser (one source of truth for each).
 * @module
 */

/** Longest chunk-size line (size, extensions and CRLF) accepted in a chunked body. */
export const MAX_CHUNK_LINE_SIZE = 4096

/** The end of a message head. */
export const CRLF_CRLF = Buffer.from('\r\n\r\n', 'latin1')
