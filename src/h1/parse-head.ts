/**
 * Parsing of a response head (status line and header fields) or a trailer section, given as a
 * latin1 string without its final CRLF CRLF. Strict: every malformed line is an error.
 * @module
 */

import { HTTPParserError } from '../errors.js'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { INVALID_VALUE_RE, TOKEN_RE, trimOws } from '../connection/field-syntax.js'
import { describeBadHeaderValue } from '../observability/redaction.js'

/** What the parser needs from a head besides the headers themselves. */
export interface ParsedHead {
  statusCode: number
  statusText: string
  headers: IncomingHeaders
  /** The body is chunked (the final transfer coding is `chunked`). */
  chunked: boolean
  /** Declared content-length, or -1 when absent. */
  contentLength: number
  /** Whether the connection may be reused after this message. */
  keepAlive: boolean
  /** `Keep-Alive: timeout=` hint in milliseconds, or -1. */
  keepAliveHintMs: number
}

function fail (message: string, data: string): never {
  throw new HTTPParserError(`${message}: ${JSON.stringify(data.length > 64 ? data.slice(0, 64) + '...' : data)}`, 'LIB_ERR_HTTP_PARSER', data)
}

function addHeader (headers: IncomingHeaders, key: string, value: string): void {
  const existing: unknown = headers[key]
  if (typeof existing === 'string') {
    headers[key] = [existing, value]
  } else if (Array.isArray(existing)) {
    // Object.prototype has no array members, so an array here is always an earlier own value.
    existing.push(value)
  } else if (key === '__proto__') {
    // Plain assignment would call the prototype setter; a data property keeps it a header.
    Object.defineProperty(headers, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    // Absent, or inherited from Object.prototype (`constructor`, `toString`): an own value shadows it.
    headers[key] = value
  }
}

/**
 * A control byte other than HTAB, or a CR or LF that is not part of a CRLF pair: what no line of
 * a head may contain once it is cut at its CRLFs.
 */
const SUSPECT_HEAD_RE = /[^\t\r\n\x20-\x7e\x80-\xff]|\r(?!\n)|(?<!\r)\n/

/** The last `Keep-Alive` value read and its timeout: a server sends the same one on every response. */
let lastKeepAlive = ''
let lastKeepAliveMs = -1

/** The `timeout=` of a `Keep-Alive` value in milliseconds, or -1 when it names none. */
function keepAliveTimeoutMs (value: string): number {
  if (value === lastKeepAlive) return lastKeepAliveMs
  const match = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(value)
  lastKeepAlive = value
  lastKeepAliveMs = match === null ? -1 : Number(match[1]) * 1000
  return lastKeepAliveMs
}

function hasToken (list: string, token: string): boolean {
  const lower = list.toLowerCase()
  if (lower === token) return true
  if (lower.indexOf(token) === -1) return false
  for (const part of lower.split(',')) if (trimOws(part) === token) return true
  return false
}

/**
 * Lower-case forms of header names seen before, so the usual names are validated and lower-cased
 * once per process instead of once per response. Bounded, so odd names from a server cannot grow it.
 */
const NAME_CACHE = new Map<string, string>()
const NAME_CACHE_LIMIT = 256
const NAME_CACHE_MAX_LENGTH = 48

function headerKey (name: string): string {
  const cached = NAME_CACHE.get(name)
  if (cached !== undefined) return cached
  if (!TOKEN_RE.test(name)) fail('invalid header name', name)
  const key = name.toLowerCase()
  if (NAME_CACHE.size < NAME_CACHE_LIMIT && name.length <= NAME_CACHE_MAX_LENGTH) NAME_CACHE.set(name, key)
  return key
}

function parseContentLength (value: string, previous: number): number {
  const n = value.length <= 15 ? digitsValue(value) : -1
  if (n !== -1) {
    if (previous !== -1 && n !== previous) fail('conflicting content-length values', value)
    return n
  }
  // A list like `5, 5` (several values joined by an intermediary) is accepted only when all agree.
  const parts = value.split(',')
  let length = previous
  for (const raw of parts) {
    const part = trimOws(raw)
    if (!/^\d{1,15}$/.test(part)) fail('invalid content-length', value)
    const n = Number(part)
    if (length !== -1 && n !== length) fail('conflicting content-length values', value)
    length = n
  }
  return length
}

/** The value of a string of 1 to 15 decimal digits, or -1 for anything else. */
function digitsValue (text: string): number {
  const len = text.length
  if (len === 0) return -1
  let n = 0
  for (let i = 0; i < len; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return -1
    n = n * 10 + digit
  }
  return n
}

/**
 * Parses a head. With `withStatusLine` false the text is a trailer section (header lines only).
 * Throws {@link HTTPParserError} naming the offending line.
 */
export function parseHead (text: string, withStatusLine: boolean): ParsedHead {
  const textLength = text.length
  let statusCode = 0
  let statusText = ''
  let http10 = false
  let pos = 0
  // One scan of the whole head: when it holds no control byte other than HTAB, and CR and LF
  // only as CRLF pairs (the line ends), no reason phrase or field value can hold one, and the
  // per-value checks below are skipped. Otherwise they run and name the offending value.
  const checkValues = SUSPECT_HEAD_RE.test(text)
  if (withStatusLine) {
    let eol = text.indexOf('\r\n')
    if (eol === -1) eol = textLength
    // status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 section 4);
    // read in place, without cutting the line out.
    const minor = text.charCodeAt(7)
    if (eol < 12 || !text.startsWith('HTTP/1.') || text.charCodeAt(8) !== 32 ||
      (minor !== 49 && minor !== 48)) fail('invalid status line', text.slice(0, eol))
    http10 = minor === 48
    const c0 = text.charCodeAt(9) - 48
    const c1 = text.charCodeAt(10) - 48
    const c2 = text.charCodeAt(11) - 48
    if (c0 < 1 || c0 > 9 || c1 < 0 || c1 > 9 || c2 < 0 || c2 > 9) fail('invalid status code', text.slice(0, eol))
    statusCode = c0 * 100 + c1 * 10 + c2
    if (eol > 12) {
      if (text.charCodeAt(12) !== 32) fail('invalid status line', text.slice(0, eol))
      statusText = text.slice(13, eol)
      if (checkValues && INVALID_VALUE_RE.test(statusText)) fail('invalid byte in reason phrase', text.slice(0, eol))
    }
    pos = eol + 2
  }
  const headers: IncomingHeaders = {}
  let contentLength = -1
  let transferEncoding: string | undefined
  let connection: string | undefined
  let keepAliveHintMs = -1
  // Lines are walked by index rather than split: no array and no string per line, only the
  // name and the value are cut out.
  while (pos <= textLength) {
    let eol = text.indexOf('\r\n', pos)
    if (eol === -1) eol = textLength
    const colon = text.indexOf(':', pos)
    if (colon <= pos || colon >= eol) {
      const line = text.slice(pos, eol)
      fail(line.length > 0 && (line.charCodeAt(0) === 32 || line.charCodeAt(0) === 9) ? 'obsolete line folding is not accepted' : 'invalid header line', line)
    }
    const name = text.slice(pos, colon)
    const key = headerKey(name)
    let start = colon + 1
    let end = eol
    while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++
    while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--
    const value = text.slice(start, end)
    if (checkValues && INVALID_VALUE_RE.test(value)) {
      // Not the value itself: a set-cookie or token header would carry a session into logs.
      throw new HTTPParserError(`invalid byte in value of header ${name}: ${describeBadHeaderValue(value, INVALID_VALUE_RE)}`, 'LIB_ERR_HTTP_PARSER')
    }
    addHeader(headers, key, value)
    pos = eol + 2
    if (!withStatusLine) continue
    switch (key) {
      case 'content-length':
        contentLength = parseContentLength(value, contentLength)
        break
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`
        break
      case 'connection':
        connection = connection === undefined ? value : `${connection}, ${value}`
        break
      case 'keep-alive': {
        const hint = keepAliveTimeoutMs(value)
        if (hint !== -1) keepAliveHintMs = hint
        break
      }
    }
  }
  let chunked = false
  if (transferEncoding !== undefined) {
    // RFC 9112 section 6.1: both headers together can smuggle requests; refuse rather than pick one.
    if (contentLength !== -1) fail('both transfer-encoding and content-length are present', transferEncoding)
    const codings = transferEncoding.toLowerCase().split(',')
    for (let i = 0; i < codings.length; i++) {
      if (trimOws(codings[i]!) === 'chunked') {
        if (i !== codings.length - 1) fail('chunked is not the final transfer coding', transferEncoding)
        chunked = true
      }
    }
  }
  let keepAlive: boolean
  if (connection === undefined) keepAlive = !http10
  else if (http10) keepAlive = hasToken(connection, 'keep-alive')
  else keepAlive = !hasToken(connection, 'close')
  // A body delimited by the connection's end (transfer-encoding without chunked) cannot leave it reusable.
  if (transferEncoding !== undefined && !chunked) keepAlive = false
  return { statusCode, statusText, headers, chunked, contentLength, keepAlive, keepAliveHintMs }
}
