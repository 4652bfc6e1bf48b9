/**
 * The request's fields as every wire protocol sends them, validated and still structured: what
 * the caller gave as headers (a record, a flat array, pairs or an iterable of pairs) becomes one
 * flat list `[name, value, name, value...]`. The fields that frame the message or steer the
 * connection are not in the list: they are checked and decided on (see {@link RequestFieldInfo}),
 * and each protocol writes them its own way.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import type { OutgoingHeaders } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'
import { describeBadHeaderValue } from '../observability/redaction.js'
import { INVALID_VALUE_RE, TOKEN_RE, hasInvalidValueChar, lowerFieldName, trimOws } from './field-syntax.js'
import { isHeadersIterable } from '../handlers/request-headers.js'

/** What reading the caller's headers decided, besides the fields themselves. */
export interface RequestFieldInfo {
  /** The caller's `content-length` header, or -1. */
  declaredLength: number
  /** The caller asked for `connection: close`. */
  reset: boolean
  /** The caller's `host` header, which replaces the one derived from the origin. */
  host: string | undefined
  /** The caller's `expect: 100-continue` header, which asks for what the `expectContinue` option does. */
  expectContinue: boolean
}

/** The field list of a request without headers; shared, as nothing ever writes to it. */
const NO_FIELDS: readonly string[] = Object.freeze([])

/** Methods whose requests carry a body by convention, so an empty one is announced as `content-length: 0`. */
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

/**
 * Checks the request options undici's transport refuses when they have the wrong type:
 * `reset` and `expectContinue` must be booleans when given (`0` is not `false`), `typeOfService`
 * an integer from 0 to 255 (the IP header's TOS byte), and
 * `throwOnError` is not a request option at all (undici 8 refuses it too: failing on error
 * statuses is the responseError interceptor's job).
 */
export function validateRequestFlags (opts: { reset?: unknown, expectContinue?: unknown, throwOnError?: unknown, typeOfService?: unknown }): void {
  // Each flag by its own name: a loop over the names would make one keyed load per request see two names.
  checkBooleanFlag('reset', opts.reset)
  checkBooleanFlag('expectContinue', opts.expectContinue)
  const tos = opts.typeOfService
  if (tos != null && (!Number.isInteger(tos) || (tos as number) < 0 || (tos as number) > 255)) {
    throw new InvalidArgumentError(`invalid typeOfService: ${describeValue(tos)} (must be an integer from 0 to 255)`)
  }
  if (opts.throwOnError != null) {
    throw new InvalidArgumentError(`throwOnError is not a request option, got ${describeValue(opts.throwOnError)}: compose interceptors.responseError() to fail on error statuses`)
  }
}

function checkBooleanFlag (name: string, value: unknown): void {
  if (value != null && typeof value !== 'boolean') throw new InvalidArgumentError(`invalid ${name}: ${describeValue(value)} (must be a boolean)`)
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

/**
 * The text of one query value, as undici (through `node:querystring`) writes it: strings,
 * finite numbers, bigints and booleans as themselves, anything else (`null`, `undefined`, an
 * object, `NaN`) as the empty string, so `{ a: null }` sends `a=`.
 */
function queryValueText (value: unknown): string {
  if (typeof value === 'string') return value
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint' || typeof value === 'boolean') return String(value)
  return ''
}

/** Appends `query` to `path` as `application/x-www-form-urlencoded`; arrays repeat the key. */
export function appendQuery (path: string, query: Record<string, unknown> | undefined): string {
  if (query == null) return path
  if (typeof query !== 'object') throw new InvalidArgumentError(`invalid query: ${describeValue(query)} (must be an object)`)
  let qs = ''
  for (const key of Object.keys(query)) {
    const value = query[key]
    const values = Array.isArray(value) ? value as unknown[] : [value]
    for (const v of values) {
      qs += `${qs.length === 0 ? '' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(queryValueText(v))}`
    }
  }
  if (qs.length === 0) return path
  if (path.includes('#')) {
    throw new InvalidArgumentError(`invalid path: ${describeValue(path)} (a path with a fragment cannot take query parameters)`)
  }
  return path + (path.includes('?') ? '&' : '?') + qs
}

function addField (fields: string[], name: string, value: unknown, info: RequestFieldInfo): void {
  if (value === undefined || value === null) return
  if (Array.isArray(value)) {
    for (const v of value) addField(fields, name, v, info)
    return
  }
  const lower = typeof name === 'string' ? lowerFieldName(name) : null
  if (lower === null) {
    throw new InvalidArgumentError(`invalid header name: ${describeValue(name)} (must be an HTTP token)`)
  }
  if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol') {
    // String() would send "[object Object]" or a function's source as the value.
    throw new InvalidArgumentError(`invalid value for header ${name}: ${describeValue(value)} (must be a string, a number or an array of them)`)
  }
  const text = typeof value === 'string' ? value : String(value)
  if (hasInvalidValueChar(text)) {
    throw new InvalidArgumentError(`invalid value for header ${name}: contains CR, LF, NUL or another control character (${describeBadHeaderValue(text, INVALID_VALUE_RE)})`)
  }
  // Framing and connection fields are the transport's to write; the checks below keep them consistent.
  if (lower.length >= 4 && lower.length <= 17) {
    switch (lower) {
      case 'host':
        info.host = text
        return
      case 'content-length':
        info.declaredLength = declaredContentLength(text, info.declaredLength)
        return
      case 'transfer-encoding':
        // `chunked` alone only asks for what the transport does anyway for a body of unknown
        // length (and a body of known length is as well framed by its content-length); any other
        // coding would have to be applied to the body, which the transport does not do.
        if (trimOws(text).toLowerCase() === 'chunked') return
        throw new InvalidArgumentError(`invalid transfer-encoding header: ${describeValue(text)} (the transport chooses the framing; only "chunked" is accepted)`)
      case 'connection':
        // A list of connection options (header names); the transport writes its own
        // connection field, so only `close` matters here.
        for (const token of text.toLowerCase().split(',')) {
          const option = trimOws(token)
          if (!TOKEN_RE.test(option)) throw new InvalidArgumentError(`invalid connection header: ${describeValue(text)} (must be a comma-separated list of tokens)`)
          if (option === 'close') info.reset = true
        }
        return
      case 'keep-alive':
        throw new InvalidArgumentError(`invalid keep-alive header: ${describeValue(text)} (the transport manages keep-alive)`)
      case 'upgrade':
        throw new InvalidArgumentError(`invalid upgrade header: ${describeValue(text)} (use the upgrade option)`)
      case 'expect':
        // The one expectation HTTP defines (RFC 9110 section 10.1.1); the transport waits for the
        // 100 (Continue) as the expectContinue option makes it.
        if (trimOws(text).toLowerCase() === '100-continue') {
          info.expectContinue = true
          return
        }
        throw new InvalidArgumentError(`invalid expect header: ${describeValue(text)} (only "100-continue" is defined)`)
    }
  }
  fields.push(name, text)
}

/** `fields` with `content-type: type` appended, unless `type` is empty or the fields already have a content type. */
export function withContentType (fields: readonly string[], type: string): readonly string[] {
  if (type === '') return fields
  for (let i = 0; i < fields.length; i += 2) if (fields[i]!.toLowerCase() === 'content-type') return fields
  return [...fields, 'content-type', type]
}

/**
 * The length a `content-length` field declares, given the one an earlier field declared (-1:
 * none). A list of identical values, or the same value repeated in several fields, is one
 * value, as RFC 9110 section 8.6 lets a recipient take it (the runtime's own fetch sends the
 * caller's value next to its own); differing values are refused.
 */
function declaredContentLength (text: string, earlier: number): number {
  let length = earlier
  for (const item of text.split(',')) {
    const value = trimOws(item)
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`invalid content-length header: ${describeValue(text)}`)
    const n = Number(value)
    if (length !== -1 && n !== length) {
      throw new InvalidArgumentError(`invalid content-length header: ${describeValue(text)} (differs from the length ${length} declared before)`)
    }
    length = n
  }
  return length
}

/**
 * Validates request headers in every accepted form and returns them as one flat list
 * `[name, value, ...]` (names as given, values as strings); framing and connection fields go to `info`.
 * @throws InvalidArgumentError for a name, value or form that must not be sent
 */
export function collectRequestFields (headers: OutgoingHeaders | null | undefined, info: RequestFieldInfo): readonly string[] {
  if (headers == null) return NO_FIELDS
  const fields: string[] = []
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as Array<[string, unknown]>) {
        if (!Array.isArray(pair) || pair.length !== 2) {
          throw new InvalidArgumentError(`headers pairs must each be [name, value], got ${Array.isArray(pair) ? `a pair of ${pair.length} items` : describeValue(pair)}`)
        }
        addField(fields, pair[0], pair[1], info)
      }
      return fields
    }
    if (headers.length % 2 !== 0) throw new InvalidArgumentError(`headers array must have an even number of entries, got ${headers.length}`)
    for (let i = 0; i < headers.length; i += 2) addField(fields, headers[i] as string, headers[i + 1], info)
    return fields
  }
  if (typeof headers !== 'object') throw new InvalidArgumentError(`invalid headers: ${describeValue(headers)} (must be an object or an array)`)
  if (isHeadersIterable(headers)) {
    for (const pair of headers as Iterable<unknown>) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new InvalidArgumentError(`headers iterable must yield [name, value] pairs, got ${describeValue(pair)}`)
      }
      addField(fields, pair[0], pair[1], info)
    }
    return fields
  }
  const record = headers as Record<string, unknown>
  for (const name of Object.keys(record)) addField(fields, name, record[name], info)
  return fields
}

/**
 * The `content-length` a request announces for a body of `length` bytes (-1: unknown), or -1
 * when it announces none. An empty body is announced only for methods that normally carry one.
 */
export function announcedLength (method: string, length: number): number {
  if (length > 0) return length
  return length === 0 && BODY_METHODS.has(method) ? 0 : -1
}

/** Throws unless a `host` value is safe to send. */
export function validateHost (host: string): void {
  if (INVALID_VALUE_RE.test(host) || host.length === 0) {
    throw new InvalidArgumentError(`invalid host header: ${describeValue(host)}`)
  }
}
