/**
 * Writing a {@link Cookie} as a `Set-Cookie` value (RFC 6265 section 4.1.1), with the checks and
 * attribute order undici uses. A refused name, domain or path is named in the error; a refused
 * value only by its bad character, since cookie values are credentials.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import { describeBadHeaderValue } from '../observability/redaction.js'
import { describeValue } from '../validation/describe-value.js'
import type { Cookie } from './parse-set-cookie.js'

/** A cookie after setCookie() converted its fields: every attribute present, null when unset. */
export interface ConvertedCookie {
  name: string
  /** Undefined when the caller gave none: an error, unless the name is empty and nothing is set. */
  value: string | undefined
  expires: Date | number | null
  maxAge: number | null
  domain: string | null
  path: string | null
  secure: boolean | null
  httpOnly: boolean | null
  sameSite: Cookie['sameSite']
  unparsed: string[]
}

// token (RFC 9110): visible ASCII except separators.
const BAD_NAME = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/
// cookie-octet: visible ASCII except DQUOTE, comma, semicolon and backslash.
const BAD_VALUE_OCTET = /[^\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]/
// path-value: any CHAR except CTLs or ";".
const BAD_PATH = /[^\x20-\x3a\x3c-\x7e]/
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/
const MAX_DOMAIN_LENGTH = 255
// The largest time value a Date holds (100,000,000 days either side of the epoch).
const MAX_TIME_VALUE = 8.64e15

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

function checkName (name: string, what: string): void {
  const bad = BAD_NAME.exec(name)
  if (bad !== null) throw new InvalidArgumentError(`${what}: invalid cookie name ${describeValue(name)}: character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not allowed in a token`)
}

function checkValue (value: string, what: string): void {
  const quoted = value.startsWith('"')
  if (quoted && (value.length === 1 || !value.endsWith('"'))) {
    throw new InvalidArgumentError(`${what}: invalid cookie value: an opening double quote without a closing one (${value.length} characters; the value is not shown, as it may be a credential)`)
  }
  const inner = quoted ? value.slice(1, -1) : value
  if (BAD_VALUE_OCTET.test(inner)) throw new InvalidArgumentError(`${what}: invalid cookie value: ${describeBadHeaderValue(inner, BAD_VALUE_OCTET)}`)
}

function checkDomain (domain: string, what: string): void {
  // A single space is the RFC 1034 <domain> alternative for the root.
  if (domain === ' ') return
  const valid = domain.length <= MAX_DOMAIN_LENGTH && domain.split('.').every((label) => DOMAIN_LABEL.test(label))
  if (!valid) throw new InvalidArgumentError(`${what}: invalid cookie domain ${describeValue(domain)}`)
}

function checkPath (path: string, what: string): void {
  if (BAD_PATH.test(path)) throw new InvalidArgumentError(`${what}: invalid cookie path ${describeValue(path)}`)
}

const pad = (n: number): string => String(n).padStart(2, '0')

/** `Thu, 01 Jan 1970 00:00:00 GMT`: the IMF-fixdate form (RFC 9110 section 5.6.7) of a time in milliseconds. */
export function imfDate (time: number): string {
  const d = new Date(time)
  return `${DAYS[d.getUTCDay()]!}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]!} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`
}

/**
 * The `Set-Cookie` value for `cookie`, or null for an empty name (nothing to set). The `__Secure-`
 * prefix forces `Secure`; `__Host-` forces `Secure`, `Path=/` and no `Domain` (cookie prefixes).
 * Throws an {@link InvalidArgumentError} for a name, value, domain, path, negative max-age or
 * unparsed attribute that may not appear in the header.
 */
export function serializeCookie (input: ConvertedCookie, what: string): string | null {
  if (input.name.length === 0) return null
  const cookie = { ...input }
  checkName(cookie.name, what)
  if (cookie.value === undefined) throw new TypeError(`${what}: cookie.value is required`)
  checkValue(cookie.value, what)
  const out = [`${cookie.name}=${cookie.value}`]
  if (cookie.name.startsWith('__Secure-')) cookie.secure = true
  if (cookie.name.startsWith('__Host-')) {
    cookie.secure = true
    cookie.domain = null
    cookie.path = '/'
  }
  if (cookie.secure === true) out.push('Secure')
  if (cookie.httpOnly === true) out.push('HttpOnly')
  if (cookie.maxAge !== null) {
    if (cookie.maxAge < 0) throw new InvalidArgumentError(`${what}: cookie maxAge must not be negative, got ${cookie.maxAge}`)
    out.push(`Max-Age=${cookie.maxAge}`)
  }
  if (cookie.domain !== null && cookie.domain !== '') {
    checkDomain(cookie.domain, what)
    out.push(`Domain=${cookie.domain}`)
  }
  if (cookie.path !== null && cookie.path !== '') {
    checkPath(cookie.path, what)
    out.push(`Path=${cookie.path}`)
  }
  if (cookie.expires !== null) {
    const time = cookie.expires instanceof Date ? cookie.expires.getTime() : cookie.expires
    // A time no Date can hold (an invalid Date, NaN, beyond the range) leaves Expires out.
    if (Number.isFinite(time) && Math.abs(time) <= MAX_TIME_VALUE) out.push(`Expires=${imfDate(time)}`)
  }
  if (cookie.sameSite !== undefined) out.push(`SameSite=${cookie.sameSite}`)
  for (const part of cookie.unparsed) {
    const at = part.indexOf('=')
    if (at === -1) throw new InvalidArgumentError(`${what}: an unparsed cookie attribute must be written name=value, got ${describeValue(part)}`)
    const name = part.slice(0, at).trim()
    const value = part.slice(at + 1)
    checkName(name, what)
    checkValue(value, what)
    out.push(`${name}=${value}`)
  }
  return out.join('; ')
}
