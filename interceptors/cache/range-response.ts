/**
 * Answering a `Range` request from a complete stored response (RFC 9111 §3.4 last paragraph,
 * RFC 9110 §14, §15.3.7): one range as a 206, several as `multipart/byteranges`, none
 * satisfiable as a 416, and `If-Range` deciding whether a range is sent at all.
 * @module
 */

import { randomBytes } from 'node:crypto'
import type { CacheValue, IncomingHeaders } from '../../src/handler.js'
import { formatContentRange, parseContentRange, parseRangeHeader, resolveRanges } from './byte-ranges.js'
import type { ByteRange } from './byte-ranges.js'
import { strongMatch } from './entity-tags.js'
import { parseHttpDate } from './http-date.js'
import { firstHeaderValue } from './header-value.js'
import { trimOws } from '../../src/handler.js'

/** What to send for a ranged request: the stored response as it is, or a generated one. */
export type RangeAnswer =
  | { kind: 'full' }
  | { kind: 'generated', statusCode: 206 | 416, statusMessage: string, headers: IncomingHeaders, body: Buffer }

/** Representation fields that describe the whole body and must not be copied onto a part. */
const WHOLE_BODY_FIELDS = ['content-length', 'content-range', 'content-type']

/**
 * §13.1.5: the range applies only when If-Range names the stored response by a strong entity
 * tag, or by a Last-Modified date that exactly matches and is strong (at least a second
 * before the response's Date).
 */
export function ifRangeHolds (ifRange: string | string[] | undefined, stored: CacheValue): boolean {
  const first = firstHeaderValue(ifRange)
  const condition = first === undefined ? undefined : trimOws(first)
  if (condition === undefined) return true
  if (condition.startsWith('"') || condition.startsWith('W/')) {
    return stored.etag !== undefined && strongMatch(condition, stored.etag)
  }
  const since = parseHttpDate(condition)
  const lastModified = parseHttpDate(firstHeaderValue(stored.headers['last-modified']))
  if (since === undefined || lastModified === undefined || since !== lastModified) return false
  const date = parseHttpDate(firstHeaderValue(stored.headers.date))
  return date !== undefined && date - lastModified >= 1000
}

function baseHeaders (stored: CacheValue): IncomingHeaders {
  const out: IncomingHeaders = {}
  for (const name of Object.keys(stored.headers)) {
    if (!WHOLE_BODY_FIELDS.includes(name)) out[name] = stored.headers[name]
  }
  return out
}

function multipart (ranges: ByteRange[], body: Buffer, contentType: string | undefined): { type: string, body: Buffer } {
  const boundary = `conduit-${randomBytes(12).toString('hex')}`
  const parts: Buffer[] = []
  for (const range of ranges) {
    let head = `--${boundary}\r\n`
    if (contentType !== undefined) head += `content-type: ${contentType}\r\n`
    head += `content-range: ${formatContentRange(range, body.length)}\r\n\r\n`
    parts.push(Buffer.from(head), body.subarray(range.start, range.end + 1), Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { type: `multipart/byteranges; boundary=${boundary}`, body: Buffer.concat(parts) }
}

/** Builds the answer to a GET with `Range` (and maybe `If-Range`) from a complete stored 200 response. */
export function answerRange (requestHeaders: IncomingHeaders, stored: CacheValue, body: Buffer): RangeAnswer {
  const specs = parseRangeHeader(requestHeaders.range)
  if (specs === undefined || !ifRangeHolds(requestHeaders['if-range'], stored)) return { kind: 'full' }
  const ranges = resolveRanges(specs, body.length)
  const headers = baseHeaders(stored)
  if (ranges.length === 0) {
    headers['content-range'] = `bytes */${body.length}`
    headers['content-length'] = '0'
    return { kind: 'generated', statusCode: 416, statusMessage: 'Range Not Satisfiable', headers, body: Buffer.alloc(0) }
  }
  const contentType = firstHeaderValue(stored.headers['content-type'])
  if (ranges.length === 1) {
    const [range] = ranges
    const part = body.subarray(range.start, range.end + 1)
    if (contentType !== undefined) headers['content-type'] = contentType
    headers['content-range'] = formatContentRange(range, body.length)
    headers['content-length'] = String(part.length)
    return { kind: 'generated', statusCode: 206, statusMessage: 'Partial Content', headers, body: part }
  }
  const parts = multipart(ranges, body, contentType)
  headers['content-type'] = parts.type
  headers['content-length'] = String(parts.body.length)
  return { kind: 'generated', statusCode: 206, statusMessage: 'Partial Content', headers, body: parts.body }
}

/**
 * Answers a single-range request from a stored partial response when the held bytes cover the
 * range (§3.4 lets a cache use what it holds); undefined when they do not, or when the request
 * asks for several ranges or its If-Range does not hold.
 */
export function answerFromPart (requestHeaders: IncomingHeaders, held: CacheValue, heldBody: Buffer): RangeAnswer | undefined {
  const specs = parseRangeHeader(requestHeaders.range)
  const heldRange = parseContentRange(held.headers['content-range'])
  if (specs === undefined || specs.length !== 1 || heldRange === undefined || !ifRangeHolds(requestHeaders['if-range'], held)) return undefined
  const [range] = resolveRanges(specs, heldRange.length)
  if (range === undefined || range.start < heldRange.range.start || range.end > heldRange.range.end) return undefined
  const offset = heldRange.range.start
  const part = heldBody.subarray(range.start - offset, range.end - offset + 1)
  const headers = baseHeaders(held)
  const contentType = firstHeaderValue(held.headers['content-type'])
  if (contentType !== undefined) headers['content-type'] = contentType
  headers['content-range'] = formatContentRange(range, heldRange.length)
  headers['content-length'] = String(part.length)
  return { kind: 'generated', statusCode: 206, statusMessage: 'Partial Content', headers, body: part }
}
