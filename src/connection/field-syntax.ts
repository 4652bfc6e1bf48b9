/**
 * The syntax of HTTP fields and methods (RFC 9110), the same for every wire protocol: what a
 * request may send and what a response head is checked against.
 * @module
 */

/** A `token` (RFC 9110 section 5.6.2): header names and methods. */
export const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Characters a field value may not contain (RFC 9110 section 5.5): controls other than HTAB, DEL, and anything outside latin1. */
export const INVALID_VALUE_RE = /[^\t\x20-\x7e\x80-\xff]/
