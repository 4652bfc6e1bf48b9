/**
 * The syntax of HTTP fields and methods (RFC 9110), the same for every wire protocol: what a
 * request may send and what a response head is checked against.
 * @module
 */

/** A `token` (RFC 9110 section 5.6.2): header names and methods. */
export const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Characters a field value may not contain (RFC 9110 section 5.5): controls other than HTAB, DEL, and anything outside latin1. */
export const INVALID_VALUE_RE = /[^\t\x20-\x7e\x80-\xff]/

function isOws (code: number): boolean {
  return code === 0x20 || code === 0x09
}

/**
 * `value` without the optional whitespace (SP and HTAB only, RFC 9110 section 5.6.3) around it;
 * any other space character is content. A walk from both ends, since a regex over a long run of
 * blanks is quadratic.
 */
export function trimOws (value: string): string {
  let start = 0
  let end = value.length
  while (start < end && isOws(value.charCodeAt(start))) start++
  while (end > start && isOws(value.charCodeAt(end - 1))) end--
  return start === 0 && end === value.length ? value : value.slice(start, end)
}
