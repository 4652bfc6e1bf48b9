/**
 * The cookie helpers undici exports: reading `Cookie` and `Set-Cookie` from a Headers object,
 * appending `Set-Cookie`, and parsing one `Set-Cookie` value. Arguments are converted as WebIDL
 * would (undici's rules), so the same inputs give the same results.
 * @module
 */

import { describeValue } from '../validation/describe-value.js'
import { requireArguments, toDOMString } from '../fetch/webidl.js'
import { parseSetCookie } from './parse-set-cookie.js'
import type { Cookie } from './parse-set-cookie.js'
import { serializeCookie } from './serialize-cookie.js'
import type { ConvertedCookie } from './serialize-cookie.js'

export type { Cookie } from './parse-set-cookie.js'

/**
 * What the cookie helpers accept as headers: conduit's `Headers`, the runtime's, or any object
 * with the same `get`, `append` and `getSetCookie` methods (undici's own Headers included).
 */
export interface HeadersLike {
  /** The combined value of header `name`, or null. */
  get (name: string): string | null
  /** Adds a value to header `name`. */
  append (name: string, value: string): void
  /** Every `Set-Cookie` value, one entry each. */
  getSetCookie (): string[]
}

/** The optional attributes of {@link deleteCookie}: the `Path` and `Domain` the cookie was set with. */
export interface DeleteCookieAttributes {
  /** `Path` of the cookie to delete. */
  path?: string | null | undefined
  /** `Domain` of the cookie to delete. */
  domain?: string | null | undefined
}

function checkHeaders (headers: unknown, what: string): asserts headers is HeadersLike {
  const h = headers as Partial<HeadersLike> | null
  if (typeof h !== 'object' || h === null || typeof h.get !== 'function' || typeof h.append !== 'function' || typeof h.getSetCookie !== 'function') {
    throw new TypeError(`${what}: headers must be a Headers object, got ${describeValue(headers)}`)
  }
}

/**
 * The cookies of the `Cookie` request header as a record of name to value (null prototype, so a
 * cookie named `__proto__` is kept). Names are trimmed, values are kept as written.
 * @example
 * getCookies(new Headers({ cookie: 'session=abc; theme=dark' })) // { session: 'abc', theme: 'dark' }
 */
export function getCookies (headers: HeadersLike): Record<string, string> {
  requireArguments(arguments.length, 1, 'getCookies')
  checkHeaders(headers, 'getCookies')
  const out: Record<string, string> = Object.create(null) as Record<string, string>
  const cookie = headers.get('cookie')
  if (cookie === null || cookie === '') return out
  for (const piece of cookie.split(';')) {
    const at = piece.indexOf('=')
    if (at === -1) out[piece.trim()] = ''
    else out[piece.slice(0, at).trim()] = piece.slice(at + 1)
  }
  return out
}

/**
 * Every `Set-Cookie` of a response, parsed. A value the parser must ignore (control characters,
 * oversized) is null in the list, as in undici.
 * @example
 * getSetCookies(response.headers) // [{ name: 'session', value: 'abc', path: '/', httpOnly: true }]
 */
export function getSetCookies (headers: HeadersLike): Array<Cookie | null> {
  requireArguments(arguments.length, 1, 'getSetCookies')
  checkHeaders(headers, 'getSetCookies')
  return headers.getSetCookie().map((value) => parseSetCookie(value))
}

/**
 * Parses one `Set-Cookie` value by the rules of RFC 6265bis; null when the value must be ignored.
 * @example
 * parseCookie('id=a3fWa; Max-Age=2592000; Secure') // { name: 'id', value: 'a3fWa', maxAge: 2592000, secure: true }
 */
export function parseCookie (header: string): Cookie | null {
  return parseSetCookie(toDOMString(header, 'parseCookie'))
}

// WebIDL's ConvertToInt for 64-bit integers without [EnforceRange]: NaN and infinities become 0,
// the rest is truncated and wrapped modulo 2^64.
function toInteger64 (value: unknown, signed: boolean): number {
  const x = Number(value)
  if (!Number.isFinite(x) || x === 0) return 0
  const wrapped = Math.trunc(x) % 2 ** 64
  return signed && wrapped >= 2 ** 63 ? wrapped - 2 ** 64 : wrapped
}

const nullable = <T>(value: unknown, convert: (v: unknown) => T): T | null =>
  value === undefined || value === null ? null : convert(value)

// USVString conversion: lone surrogates become U+FFFD. (String#toWellFormed is in Node 20 but not in the ES2023 typings.)
const toUSVString = (text: string): string => (text as unknown as { toWellFormed (): string }).toWellFormed()

const SAME_SITE_VALUES = new Set(['Strict', 'Lax', 'None'])

// The WebIDL dictionary conversion of undici's Cookie: members read in lexicographical order.
function convertCookie (input: unknown, what: string): ConvertedCookie {
  if (input !== undefined && input !== null && typeof input !== 'object' && typeof input !== 'function') {
    throw new TypeError(`${what}: cookie must be an object, got ${describeValue(input)}`)
  }
  const dict = (input ?? {}) as Record<string, unknown>
  const domain = nullable(dict.domain, (v) => toDOMString(v, `${what}: cookie.domain`))
  const expires = nullable(dict.expires, (v) => typeof v === 'number' ? toInteger64(v, false) : new Date(v as string))
  const httpOnly = nullable(dict.httpOnly, Boolean)
  const maxAge = nullable(dict.maxAge, (v) => toInteger64(v, true))
  const rawName = dict.name
  if (rawName === undefined) throw new TypeError(`${what}: cookie.name is required`)
  const name = toDOMString(rawName, `${what}: cookie.name`)
  const path = nullable(dict.path, (v) => toDOMString(v, `${what}: cookie.path`))
  let sameSite: Cookie['sameSite']
  if (dict.sameSite !== undefined) {
    const text = toUSVString(String(dict.sameSite))
    if (!SAME_SITE_VALUES.has(text)) throw new TypeError(`${what}: cookie.sameSite must be one of Strict, Lax, None, got ${describeValue(text)}`)
    sameSite = text as Cookie['sameSite']
  }
  const secure = nullable(dict.secure, Boolean)
  const unparsed = dict.unparsed === undefined ? [] : toStringList(dict.unparsed, `${what}: cookie.unparsed`)
  const value = dict.value === undefined ? undefined : toDOMString(dict.value, `${what}: cookie.value`)
  return { name, value, expires, maxAge, domain, path, secure, httpOnly, sameSite, unparsed }
}

function toStringList (value: unknown, what: string): string[] {
  const iterable = value as Iterable<unknown> | null
  if (typeof iterable !== 'object' || iterable === null || typeof iterable[Symbol.iterator] !== 'function') {
    throw new TypeError(`${what} must be an iterable of strings, got ${describeValue(value)}`)
  }
  return Array.from(iterable, (item) => toDOMString(item, what))
}

/**
 * Appends a `Set-Cookie` for `cookie` to `headers`. A cookie with an empty name is skipped. A
 * name, value, domain or path that may not appear in the header throws an `InvalidArgumentError`
 * (the value itself is never shown: cookie values are credentials).
 * @example
 * setCookie(headers, { name: 'session', value: 'abc', httpOnly: true, sameSite: 'Lax', maxAge: 3600 })
 */
export function setCookie (headers: HeadersLike, cookie: Cookie): void {
  requireArguments(arguments.length, 2, 'setCookie')
  checkHeaders(headers, 'setCookie')
  const text = serializeCookie(convertCookie(cookie, 'setCookie'), 'setCookie')
  if (text !== null) headers.append('set-cookie', text)
}

/**
 * Appends a `Set-Cookie` that deletes the cookie `name`: empty value, `Expires` at the epoch, and
 * the `path` and `domain` it was set with (a cookie is only replaced by one with the same ones).
 * @example
 * deleteCookie(headers, 'session', { path: '/' }) // set-cookie: session=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT
 */
export function deleteCookie (headers: HeadersLike, name: string, attributes?: DeleteCookieAttributes): void {
  checkHeaders(headers, 'deleteCookie')
  requireArguments(arguments.length, 2, 'deleteCookie')
  const cookieName = toDOMString(name, 'deleteCookie: name')
  if (attributes !== undefined && attributes !== null && typeof attributes !== 'object' && typeof attributes !== 'function') {
    throw new TypeError(`deleteCookie: attributes must be an object, got ${describeValue(attributes)}`)
  }
  const domain = nullable(attributes?.domain, (v) => toDOMString(v, 'deleteCookie: attributes.domain'))
  const path = nullable(attributes?.path, (v) => toDOMString(v, 'deleteCookie: attributes.path'))
  setCookie(headers, { name: cookieName, value: '', expires: new Date(0), domain: domain ?? undefined, path: path ?? undefined })
}
