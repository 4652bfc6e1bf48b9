/**
 * How error messages show a URL the caller gave: like any other bad value, but with the user
 * information hidden, because `user:password@` in an origin or proxy URI is a credential and
 * error messages end up in logs.
 * @module
 */

import { describeValue } from './describe-value.js'

/** A URI scheme and the `//` of an authority at the start of a string (RFC 3986 §3). */
const SCHEME_AND_SLASHES = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * `uri` without its user information. The string may be malformed, so no parser can say where
 * the password ends: an unencoded `/`, `#`, `?`, `:` or `@` may be part of it. Everything between
 * the scheme and the LAST `@` is hidden; a host or path that happens to hold an `@` is hidden too,
 * which is the safe side to err on. Without `//` after it, what looks like a scheme may be the
 * user name (`user:password@host`), so it is hidden as well.
 */
export function redactUserinfo (uri: string): string {
  const at = uri.lastIndexOf('@')
  if (at === -1) return uri
  const scheme = SCHEME_AND_SLASHES.exec(uri)?.[0] ?? ''
  return `${scheme}***@${uri.slice(at + 1)}`
}

/** The `href` of a parsed URL with its user information (if any) shown as `***`, for messages and logs. */
export function hrefWithoutCredentials (url: URL): string {
  if (url.username === '' && url.password === '') return url.href
  return `${url.protocol}//***@${url.host}${url.pathname}${url.search}${url.hash}`
}

/** Renders a URL (string, `URL` or anything else) for an error message, user information hidden. */
export function describeUrl (value: unknown): string {
  if (value instanceof URL) return describeValue(hrefWithoutCredentials(value))
  return describeValue(typeof value === 'string' ? redactUserinfo(value) : value)
}
