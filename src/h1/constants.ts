/**
 * HTTP/1.1 protocol constants shared by the response parser and the request writer,
 * and the transport defaults (one source of truth for each).
 * @module
 */

/** Default limit for a response head (status line + headers) and for a trailer section, in bytes. */
export const DEFAULT_MAX_HEADER_SIZE = 16 * 1024

/** Longest chunk-size line (size, extensions and CRLF) accepted in a chunked body. */
export const MAX_CHUNK_LINE_SIZE = 4096

/** A `token` (RFC 9110 section 5.6.2): header names and methods. */
export const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Characters a field value may not contain (RFC 9110 section 5.5): controls other than HTAB, DEL, and anything outside latin1. */
export const INVALID_VALUE_RE = /[^\t\x20-\x7e\x80-\xff]/

/** The end of a message head. */
export const CRLF_CRLF = Buffer.from('\r\n\r\n', 'latin1')
