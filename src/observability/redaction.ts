/**
 * The one place that renders URLs, origins, requests and headers for people: every error
 * message, log line, debug line, diagnostics channel message and snapshot-miss explanation goes
 * through it. Whatever reaches a person or a log may be stored, forwarded and pasted into an
 * issue, so credentials are hidden here, once, rather than remembered at each call site:
 *
 * - user information in a URL (`http://user:password@host`) shows as `***@`;
 * - the values of credential headers ({@link isCredentialHeader}: `authorization`, `cookie`,
 *   `set-cookie`, `proxy-authorization`, API-key and token headers) show as {@link REDACTED};
 * - a header value refused for a bad character is described by that character, never shown.
 * @module
 */

import type { OutgoingHeaders } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'

/** What a hidden header value shows instead of the secret. */
export const REDACTED = '[redacted]'

/**
 * Dispatch option key: lower-case names of extra request headers whose values must be hidden
 * (the proxy interceptor names the headers of its `headers` option, meant for the proxy only).
 */
export const SENSITIVE_HEADERS: unique symbol = Symbol.for('conduit.sensitiveHeaders')

/** The empty set of extra sensitive names, shared. */
const NO_NAMES: ReadonlySet<string> = new Set()

/** Headers that carry credentials by definition (RFC 9110 §11, RFC 6265). */
const CREDENTIAL_HEADER_NAMES: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])

/**
 * Header names that carry credentials by convention: `x-api-key`, `api-key`, `x-auth-token`,
 * `private-token`, `x-amz-security-token`, `x-csrf-token`, `x-session-id`... A word of the
 * name (between dashes) says what it holds.
 */
const CREDENTIAL_NAME_WORD = /(?:^|-)(?:auth|authorization|token|secret|password|passwd|credentials?|session|api-?key|apikey|key)(?:-|$)/

/**
 * Verdicts of {@link isCredentialHeader} by name as given. A traced service asks about the same
 * few names on every request (`traceparent` in each `sendHeaders` message), so each is lower-cased
 * and matched once. Bounded: names made up per request do not grow it without end.
 */
const VERDICTS = new Map<string, boolean>()
const VERDICTS_MAX = 256

/** True when the value of header `name` (any case) is a credential and must never be shown. */
export function isCredentialHeader (name: string): boolean {
  const known = VERDICTS.get(name)
  if (known !== undefined) return known
  const lower = name.toLowerCase()
  const verdict = CREDENTIAL_HEADER_NAMES.has(lower) || CREDENTIAL_NAME_WORD.test(lower)
  if (VERDICTS.size < VERDICTS_MAX) VERDICTS.set(name, verdict)
  return verdict
}

/** Words of a query parameter name that say its value is a credential (`access_token`, `api_key`, `X-Amz-Signature`, `sessionId`). */
const SECRET_PARAMETER_WORDS: ReadonlySet<string> = new Set([
  'token', 'key', 'apikey', 'secret', 'password', 'passwd', 'pwd', 'pass', 'signature', 'sig',
  'auth', 'credential', 'credentials', 'session', 'sessionid', 'sid', 'jwt', 'otp'
])

/**
 * True when URL query parameter `name` is named like a secret: one of its words (split at
 * `_`, `-`, `.` and lower-to-upper case changes) is in {@link SECRET_PARAMETER_WORDS}, so
 * `token`, `api_key`, `access_token`, `X-Amz-Signature` and `clientSecret` are, `monkey` is not.
 */
export function isSecretQueryParameter (name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/)
  return words.some((word) => SECRET_PARAMETER_WORDS.has(word))
}

/** True when a name in `fields` (`[name, value, ...]`) is a credential header's ({@link isCredentialHeader}). */
export function namesCredential (fields: readonly string[]): boolean {
  for (let i = 0; i < fields.length; i += 2) if (isCredentialHeader(fields[i] as string)) return true
  return false
}

/** Dispatch options that carry extra sensitive header names under {@link SENSITIVE_HEADERS}. */
export interface CarriesSensitiveHeaders {
  /** Names (any case) of request headers whose values the log and diagnostics hide. */
  [SENSITIVE_HEADERS]?: readonly string[] | undefined
}

/** The extra sensitive names `opts` carries under {@link SENSITIVE_HEADERS}, as given (see {@link sensitiveHeaderNames}). */
export function sensitiveHeadersOf (opts: object): unknown {
  return (opts as CarriesSensitiveHeaders)[SENSITIVE_HEADERS]
}

/** The extra names (lower-cased) a layer gave under {@link SENSITIVE_HEADERS}; credential headers are always hidden besides. */
export function sensitiveHeaderNames (extra: unknown): ReadonlySet<string> {
  // Most requests name none: they share one empty set instead of making one each.
  if (!Array.isArray(extra) || extra.length === 0) return NO_NAMES
  const names = new Set<string>()
  for (const name of extra) if (typeof name === 'string') names.add(name.toLowerCase())
  return names
}

function isSensitive (name: unknown, extra: ReadonlySet<string>): boolean {
  return typeof name === 'string' && (isCredentialHeader(name) || extra.has(name.toLowerCase()))
}

function redactValue (value: unknown): unknown {
  return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED
}

/** The value of header `name` as a person may see it: {@link REDACTED} for a credential. */
export function showHeaderValue (name: string, value: unknown, extra: ReadonlySet<string> = NO_NAMES): string {
  if (isSensitive(name, extra)) return REDACTED
  return Array.isArray(value) ? value.map(String).join(', ') : String(value)
}


/**
 * Returns the headers, in the form they were given, with the values of credential headers and
 * of the `extra` names replaced by {@link REDACTED}. Headers that carry none are returned as
 * they are (same object); iterables (Map, Headers) come back as `[name, value]` pairs.
 */
export function redactHeaders (headers: OutgoingHeaders | null | undefined, extra: ReadonlySet<string> = NO_NAMES): OutgoingHeaders | null | undefined {
  if (headers == null || typeof headers !== 'object') return headers
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      const pairs = headers as unknown as Array<[unknown, unknown]>
      if (!pairs.some((pair) => Array.isArray(pair) && isSensitive(pair[0], extra))) return headers
      return pairs.map((pair) => Array.isArray(pair) && isSensitive(pair[0], extra) ? [pair[0], redactValue(pair[1])] : pair) as unknown as OutgoingHeaders
    }
    const flat = headers as unknown[]
    let copy: unknown[] | null = null
    for (let i = 0; i + 1 < flat.length; i += 2) {
      if (!isSensitive(flat[i], extra)) continue
      copy ??= [...flat]
      copy[i + 1] = redactValue(flat[i + 1])
    }
    return (copy ?? headers) as OutgoingHeaders
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    const pairs: Array<[unknown, unknown]> = []
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) {
      pairs.push([name, isSensitive(name, extra) ? redactValue(value) : value])
    }
    return pairs as unknown as OutgoingHeaders
  }
  const record = headers as Record<string, unknown>
  let copy: Record<string, unknown> | null = null
  for (const name of Object.keys(record)) {
    if (!isSensitive(name, extra)) continue
    copy ??= { ...record }
    copy[name] = redactValue(record[name])
  }
  return (copy ?? headers) as OutgoingHeaders
}

/** Returns a serialized request head with the value of every credential (or `extra`) header line replaced by {@link REDACTED}. */
export function redactHead (head: string, extra: ReadonlySet<string> = NO_NAMES): string {
  const lines = head.split('\r\n')
  let changed = false
  // Line 0 is the request line; header names never contain ':', so the first one ends the name.
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string
    const colon = line.indexOf(':')
    if (colon > 0 && isSensitive(line.slice(0, colon), extra)) {
      lines[i] = `${line.slice(0, colon)}: ${REDACTED}`
      changed = true
    }
  }
  return changed ? lines.join('\r\n') : head
}

/**
 * `character U+000D at index 14 of 20` for the first character of `text` that `invalid`
 * matches (`invalid` must be neither global nor sticky), or a note that none matched. The value
 * itself is never shown: any header may carry a credential.
 */
export function describeBadHeaderValue (text: string, invalid: RegExp): string {
  const match = invalid.exec(text)
  const where = match === null
    ? `${text.length} characters`
    : `character U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at index ${match.index} of ${text.length}`
  return `${where}; the value is not shown, as it may be a credential`
}

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

/** The `href` of a parsed URL with its user information (if any) shown as `***`. */
export function hrefWithoutCredentials (url: URL): string {
  if (url.username === '' && url.password === '') return url.href
  return `${url.protocol}//***@${url.host}${url.pathname}${url.search}${url.hash}`
}

/** A URL (string or `URL`) as a person may see it, user information hidden; anything else as `String()` gives it. */
export function showUrl (value: unknown): string {
  if (value instanceof URL) return hrefWithoutCredentials(value)
  const text = String(value)
  if (!text.includes('@')) return text
  // A parsable URL knows where its user information ends (an `@` in the path or query stays);
  // for anything else, redactUserinfo errs on the safe side.
  const url = URL.canParse(text) ? new URL(text) : null
  return url === null ? redactUserinfo(text) : hrefWithoutCredentials(url)
}

/**
 * An origin (string or `URL`) as a person may see it: user information hidden, no trailing
 * slash, so that `${showOrigin(origin)}${path}` reads as the URL. Missing shows as empty.
 */
export function showOrigin (origin: unknown): string {
  if (origin == null) return ''
  if (origin instanceof URL) return origin.origin === 'null' ? hrefWithoutCredentials(origin) : origin.origin
  return redactUserinfo(String(origin)).replace(/\/$/, '')
}

/** The parts of a request a person needs to recognise it. */
export interface ShownRequest {
  /** The request method. */
  method?: string | undefined
  /** The origin, as a string or URL. */
  origin?: unknown
  /** The request target (path and query). */
  path?: string | undefined
}

/** `METHOD origin/path` of a request, for messages and log lines, user information hidden. */
export function showRequest (request: ShownRequest): string {
  return `${request.method ?? 'GET'} ${showOrigin(request.origin)}${request.path ?? ''}`
}

/** Renders a URL (string, `URL` or anything else) for an error message, quoted, user information hidden. */
export function describeUrl (value: unknown): string {
  if (value instanceof URL) return describeValue(hrefWithoutCredentials(value))
  return describeValue(typeof value === 'string' ? redactUserinfo(value) : value)
}
