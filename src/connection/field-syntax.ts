/**
 * The syntax of HTTP fields and methods (RFC 9110), the same for every wire protocol: what a
 * request may send and what a response head is checked against.
 * @module
 */

/** A `token` (RFC 9110 section 5.6.2): header names and methods. */
export const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Characters a field value may not contain (RFC 9110 section 5.5): controls other than HTAB, DEL, and anything outside latin1. */
export const INVALID_VALUE_RE = /[^\t\x20-\x7e\x80-\xff]/

/**
 * Lower-cased forms of the field names {@link lowerFieldName} found to be tokens. A service sends
 * the same few names on every request, so each is matched and lower-cased once. Bounded: names
 * made up per request do not grow it without end.
 */
const CHECKED_NAMES = new Map<string, string>()
const CHECKED_NAMES_MAX = 256

/** `name` lower-cased when it is a token (a valid field name), else null. */
export function lowerFieldName (name: string): string | null {
  const known = CHECKED_NAMES.get(name)
  if (known !== undefined) return known
  if (!TOKEN_RE.test(name)) return null
  const lower = name.toLowerCase()
  if (CHECKED_NAMES.size < CHECKED_NAMES_MAX) CHECKED_NAMES.set(name, lower)
  return lower
}

/**
 * True when `value` holds a character {@link INVALID_VALUE_RE} refuses. A walk over the char
 * codes: request values are short, and for them the regex machinery costs more than the scan.
 */
export function hasInvalidValueChar (value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x20 ? code !== 0x09 : code === 0x7f || code > 0xff) return true
  }
  return false
}

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
