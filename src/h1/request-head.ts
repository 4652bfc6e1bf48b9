/**
 * Builds a request head as one latin1 string and validates everything that goes into it, so a
 * bad method, path or header throws before a byte is written (no request smuggling by CRLF or NUL).
 * @module
 */

import { InvalidArgumentError, RequestContentLengthMismatchError } from '../errors.js'
import type { OutgoingHeaders } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'
import { describeBadHeaderValue } from '../validation/describe-header-value.js'
import { INVALID_VALUE_RE, TOKEN_RE } from './constants.js'
import { isHeadersIterable } from '../handlers/request-headers.js'

/** What the header writer learns from the headers while it writes them. */
export interface RequestHeadInfo {
  /** The user's `content-length` header, or -1. */
  declaredLength: number
  /** The user asked for `connection: close`. */
  reset: boolean
  /** The user's `host` header, which replaces the one derived from the origin. */
  host: string | undefined
}

/** Methods whose requests carry a body by convention, so an empty one is sent as `content-length: 0`. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'QUERY'])

/** Methods of RFC 9110 (and PATCH), which are sent upper-case whatever case the caller wrote. */
const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'])

/**
 * Upper-cases a standard method written in another case (`get` becomes `GET`), so that HEAD and
 * CONNECT framing and idempotency apply to it; other methods are case-sensitive and kept as given.
 */
export function normalizeMethod (method: string): string {
  if (STANDARD_METHODS.has(method)) return method
  const upper = method.toUpperCase()
  return STANDARD_METHODS.has(upper) ? upper : method
}

/** Throws unless `method` is a token. */
export function validateMethod (method: unknown): asserts method is string {
  if (typeof method !== 'string' || (!STANDARD_METHODS.has(method) && !TOKEN_RE.test(method))) {
    throw new InvalidArgumentError(`invalid method: ${describeValue(method)} (must be an HTTP token)`)
  }
}

/**
 * Whether a request target holds a byte that would break the request line: a control, a space,
 * DEL, or a character outside latin1. A loop rather than a regex: most paths are short, and this
 * runs for every request.
 */
function hasInvalidPathByte (path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c <= 0x20 || c === 0x7f || c > 0xff) return true
  }
  return false
}

/** Throws unless `path` is a request target without control characters or spaces. */
export function validatePath (path: unknown, method: string): asserts path is string {
  if (typeof path !== 'string' || path.length === 0) {
    throw new InvalidArgumentError(`invalid path: ${describeValue(path)} (must be a non-empty string)`)
  }
  if (hasInvalidPathByte(path)) {
    throw new InvalidArgumentError(`invalid path: ${describeValue(path)} (contains a control character, space or non-latin1 character)`)
  }
  if (method !== 'CONNECT' && path[0] !== '/' && path !== '*' && !/^https?:\/\//i.test(path)) {
    throw new InvalidArgumentError(`invalid path: ${describeValue(path)} (must start with "/" or be an absolute URL)`)
  }
}

/** Appends `query` to `path` as `application/x-www-form-urlencoded`; arrays repeat the key. */
export function appendQuery (path: string, query: Record<string, unknown> | undefined): string {
  if (query == null) return path
  if (typeof query !== 'object') throw new InvalidArgumentError(`invalid query: ${describeValue(query)} (must be an object)`)
  let qs = ''
  for (const key of Object.keys(query)) {
    const value = query[key]
    if (value === undefined) continue
    const values = Array.isArray(value) ? value : [value]
    for (const v of values) {
      qs += `${qs.length === 0 ? '' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`
    }
  }
  if (qs.length === 0) return path
  if (path.includes('#')) {
    throw new InvalidArgumentError(`invalid path: ${describeValue(path)} (a path with a fragment cannot take query parameters)`)
  }
  return path + (path.includes('?') ? '&' : '?') + qs
}

function headerLine (name: string, value: unknown, info: RequestHeadInfo): string {
  if (value === undefined || value === null) return ''
  if (Array.isArray(value)) {
    let out = ''
    for (const v of value) out += headerLine(name, v, info)
    return out
  }
  if (typeof name !== 'string' || !TOKEN_RE.test(name)) {
    throw new InvalidArgumentError(`invalid header name: ${describeValue(name)} (must be an HTTP token)`)
  }
  if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol') {
    // String() would send "[object Object]" or a function's source as the value.
    throw new InvalidArgumentError(`invalid value for header ${name}: ${describeValue(value)} (must be a string, a number or an array of them)`)
  }
  const text = typeof value === 'string' ? value : String(value)
  if (INVALID_VALUE_RE.test(text)) {
    throw new InvalidArgumentError(`invalid value for header ${name}: contains CR, LF, NUL or another control character (${describeBadHeaderValue(text, INVALID_VALUE_RE)})`)
  }
  // Framing and connection headers are the transport's to write; the checks below keep them consistent.
  if (name.length >= 4 && name.length <= 17) {
    switch (name.toLowerCase()) {
      case 'host':
        info.host = text
        return ''
      case 'content-length':
        if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`invalid content-length header: ${describeValue(text)}`)
        info.declaredLength = Number(text)
        return ''
      case 'transfer-encoding':
        throw new InvalidArgumentError(`invalid transfer-encoding header: ${describeValue(text)} (the transport chooses the framing)`)
      case 'connection':
        // A list of connection options (header names); the transport writes its own
        // `connection` line, so only `close` matters here.
        for (const token of text.toLowerCase().split(',')) {
          const option = token.trim()
          if (!TOKEN_RE.test(option)) throw new InvalidArgumentError(`invalid connection header: ${describeValue(text)} (must be a comma-separated list of tokens)`)
          if (option === 'close') info.reset = true
        }
        return ''
      case 'keep-alive':
        throw new InvalidArgumentError(`invalid keep-alive header: ${describeValue(text)} (the transport manages keep-alive)`)
      case 'upgrade':
        throw new InvalidArgumentError(`invalid upgrade header: ${describeValue(text)} (use the upgrade option)`)
      case 'expect':
        throw new InvalidArgumentError(`invalid expect header: ${describeValue(text)} (use the expectContinue option)`)
    }
  }
  return `${name}: ${text}\r\n`
}

/** Returns the header lines (each ending in CRLF) for every accepted request header form. */
export function serializeHeaders (headers: OutgoingHeaders | null | undefined, info: RequestHeadInfo): string {
  if (headers == null) return ''
  let out = ''
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as Array<[string, unknown]>) {
        if (!Array.isArray(pair) || pair.length !== 2) {
          throw new InvalidArgumentError(`headers pairs must each be [name, value], got ${Array.isArray(pair) ? `a pair of ${pair.length} items` : describeValue(pair)}`)
        }
        out += headerLine(pair[0], pair[1], info)
      }
      return out
    }
    if (headers.length % 2 !== 0) throw new InvalidArgumentError(`headers array must have an even number of entries, got ${headers.length}`)
    for (let i = 0; i < headers.length; i += 2) out += headerLine(headers[i] as string, headers[i + 1], info)
    return out
  }
  if (typeof headers !== 'object') throw new InvalidArgumentError(`invalid headers: ${describeValue(headers)} (must be an object or an array)`)
  if (isHeadersIterable(headers)) {
    for (const pair of headers as Iterable<unknown>) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new InvalidArgumentError(`headers iterable must yield [name, value] pairs, got ${describeValue(pair)}`)
      }
      out += headerLine(pair[0], pair[1], info)
    }
    return out
  }
  const record = headers as Record<string, unknown>
  for (const name of Object.keys(record)) out += headerLine(name, record[name], info)
  return out
}

/**
 * Framing header for a body of `length` bytes (-1: unknown, sent chunked). An empty body gets
 * `content-length: 0` only for methods that normally carry one.
 */
export function framingHeader (method: string, length: number): string {
  if (length > 0) return `content-length: ${length}\r\n`
  if (length === 0) return BODY_METHODS.has(method) ? 'content-length: 0\r\n' : ''
  return 'transfer-encoding: chunked\r\n'
}

/** Throws unless a `host` value is safe to write. */
export function validateHost (host: string): void {
  if (INVALID_VALUE_RE.test(host) || host.length === 0) {
    throw new InvalidArgumentError(`invalid host header: ${describeValue(host)}`)
  }
}

/** What {@link buildRequestHead} needs: the request's options, its body as measured, and the client's defaults. */
export interface RequestHeadInput {
  /** Method as validated and normalized. */
  method: string
  /** Path with the query appended, as validated. */
  path: string
  /** The `upgrade` option, already checked, or null. */
  upgrade: string | null
  /** Request headers in any accepted form. */
  headers: OutgoingHeaders | null | undefined
  /** The `reset` option. */
  reset: boolean
  /** The `expectContinue` option, only when there is a body to hold back. */
  expectContinue: boolean
  /** Body bytes, or -1 when only streaming tells. */
  bodyLength: number
  /** `host` derived from a parsed origin (so valid as it is), used unless the headers carry one. */
  defaultHost: string
  /** Whether a body whose size differs from its `content-length` header is an error. */
  strictContentLength: boolean
}

/** The head and what was decided while building it. */
export interface RequestHead {
  /** The complete head, final CRLF included. */
  head: string
  /** The connection closes after this request (the `reset` option or `connection: close`). */
  reset: boolean
  /** Body bytes announced in the head, or -1 when sent chunked. */
  bodyLength: number
  /** A body/content-length mismatch, to report when the request starts; null when none. */
  prepareError: Error | null
}

/**
 * Builds a request head from its input alone, and returns the decisions it made (framing, close,
 * a length mismatch) instead of writing them anywhere.
 * @throws InvalidArgumentError for a header, host or value that must not be sent
 */
export function buildRequestHead (input: RequestHeadInput): RequestHead {
  const info: RequestHeadInfo = { declaredLength: -1, reset: input.reset, host: undefined }
  const lines = serializeHeaders(input.headers, info)
  const host = info.host
  // The default host comes from a parsed origin; only a caller's `host` header needs checking.
  if (host !== undefined) validateHost(host)
  let prepareError: Error | null = null
  let bodyLength = input.bodyLength
  if (info.declaredLength !== -1) {
    if (bodyLength === -1) bodyLength = info.declaredLength
    else if (bodyLength !== info.declaredLength && input.strictContentLength) {
      prepareError = new RequestContentLengthMismatchError(`request body is ${bodyLength} bytes but its content-length header says ${info.declaredLength}`)
    }
  }
  let head = `${input.method} ${input.path} HTTP/1.1\r\nhost: ${host ?? input.defaultHost}\r\n`
  if (input.upgrade !== null) head += `connection: upgrade\r\nupgrade: ${input.upgrade}\r\n`
  else if (info.reset) head += 'connection: close\r\n'
  if (input.expectContinue) head += 'expect: 100-continue\r\n'
  head += lines
  if (input.method !== 'CONNECT') head += framingHeader(input.method, bodyLength)
  return { head: head + '\r\n', reset: info.reset, bodyLength, prepareError }
}
