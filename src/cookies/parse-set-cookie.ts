/**
 * Parsing one `Set-Cookie` field value into a {@link Cookie}, by the algorithm of RFC 6265bis
 * section 5.6 with the attribute rules of its section 5.6.x, giving the same results as undici.
 * @module
 */

/** A cookie as `Set-Cookie` carries it: name, value and the attributes that were recognised. */
export interface Cookie {
  /** The cookie name (may be empty when the header had no `=`). */
  name: string
  /** The cookie value, quotes included if it was quoted. */
  value: string
  /** `Expires`: a Date (absent when the attribute did not parse as a date) or, when setting, a time in milliseconds. */
  expires?: Date | number | undefined
  /** `Max-Age` in seconds, as written (not capped; zero or negative means the cookie has expired). */
  maxAge?: number | undefined
  /** `Domain`, lower-cased and without a leading dot. */
  domain?: string | undefined
  /** `Path`; `/` when the attribute was empty or did not start with `/`. */
  path?: string | undefined
  /** `Secure` was present. */
  secure?: boolean | undefined
  /** `HttpOnly` was present. */
  httpOnly?: boolean | undefined
  /** `SameSite`, when its value was one of the three known ones (any case). */
  sameSite?: 'Strict' | 'Lax' | 'None' | undefined
  /** Attributes with other names, each as `name=value`. */
  unparsed?: string[] | undefined
}

/** Longest name plus value, in characters, a cookie may have (the Cookie Store API's limit). */
export const MAX_NAME_VALUE_LENGTH = 4096
/** Longest attribute value, in characters; a longer attribute is ignored. */
export const MAX_ATTRIBUTE_VALUE_LENGTH = 1024

/** True when `text` holds a control character other than horizontal tab (U+0000-0008, U+000A-001F, U+007F). */
export function hasControlCharacter (text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code <= 0x08 || (code >= 0x0a && code <= 0x1f) || code === 0x7f) return true
  }
  return false
}

/** Splits `text` at the first `separator`: the part before it and the part after, or the whole text and null. */
function splitOnce (text: string, separator: string): [string, string | null] {
  const at = text.indexOf(separator)
  return at === -1 ? [text, null] : [text.slice(0, at), text.slice(at + 1)]
}

const SAME_SITE: Record<string, 'Strict' | 'Lax' | 'None'> = { strict: 'Strict', lax: 'Lax', none: 'None' }
// RFC 6265bis section 5.6.2: digits with an optional leading "-".
const DELTA_SECONDS = /^-?\d+$/

// One attribute (name and value already trimmed) applied to the cookie being built.
function applyAttribute (cookie: Cookie, name: string, value: string): void {
  switch (name.toLowerCase()) {
    case 'expires': {
      // A value that is not a date is ignored, as RFC 6265bis section 5.6.1 says (and undici 8 does).
      const expires = new Date(value)
      if (!Number.isNaN(expires.getTime())) cookie.expires = expires
      return
    }
    case 'max-age':
      // A negative age is kept: the cookie expires at once, which is what the server asked for.
      if (DELTA_SECONDS.test(value)) cookie.maxAge = Number(value)
      return
    case 'domain':
      cookie.domain = (value.startsWith('.') ? value.slice(1) : value).toLowerCase()
      return
    case 'path':
      cookie.path = value.startsWith('/') ? value : '/'
      return
    case 'secure':
      cookie.secure = true
      return
    case 'httponly':
      cookie.httpOnly = true
      return
    case 'samesite': {
      const sameSite = SAME_SITE[value.toLowerCase()]
      if (sameSite !== undefined) cookie.sameSite = sameSite
      return
    }
    default:
      (cookie.unparsed ??= []).push(`${name}=${value}`)
  }
}

/**
 * Parses a `Set-Cookie` value. Returns null when the cookie must be ignored: a control character
 * (other than tab) anywhere, or a name and value longer than {@link MAX_NAME_VALUE_LENGTH} together.
 * Without `=` the whole pair is the value and the name is empty.
 */
export function parseSetCookie (header: string): Cookie | null {
  if (hasControlCharacter(header)) return null
  const [pair, attributes] = splitOnce(header, ';')
  const [before, after] = splitOnce(pair, '=')
  // String.prototype.trim, as undici uses: it removes Unicode white space too, not only SP and HTAB.
  const name = after === null ? '' : before.trim()
  const value = (after ?? before).trim()
  if (name.length + value.length > MAX_NAME_VALUE_LENGTH) return null
  const cookie: Cookie = { name, value }
  if (attributes === null) return cookie
  for (const av of attributes.split(';')) {
    const [attributeName, attributeValue] = splitOnce(av, '=')
    const trimmedValue = (attributeValue ?? '').trim()
    if (trimmedValue.length > MAX_ATTRIBUTE_VALUE_LENGTH) continue
    applyAttribute(cookie, attributeName.trim(), trimmedValue)
  }
  return cookie
}

/**
 * A `Set-Cookie` value as a cookie jar should receive it: null when {@link parseSetCookie}
 * refuses it (the cookie must then be ignored entirely), else the value without the attributes
 * that parser ignores for being too long, so a jar with other parsing rules stores what this
 * parser accepts and nothing more.
 */
export function storableSetCookie (header: string): string | null {
  if (parseSetCookie(header) === null) return null
  const at = header.indexOf(';')
  if (at === -1) return header
  const attributes = header.slice(at + 1).split(';')
  const kept = attributes.filter((av) => {
    const eq = av.indexOf('=')
    return eq === -1 || av.slice(eq + 1).trim().length <= MAX_ATTRIBUTE_VALUE_LENGTH
  })
  return kept.length === attributes.length ? header : [header.slice(0, at), ...kept].join(';')
}
