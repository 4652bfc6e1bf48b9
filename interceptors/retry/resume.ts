/**
 * Resuming a partly delivered body with a `Range` request guarded by the original strong `ETag`
 * (RFC 9110 sections 8.8.3, 13.1.1 and 14). The rules here make sure the caller never receives
 * a body spliced from two different representations.
 * @module
 */

import { RequestRetryError, normalizeHeaders, redactHeaders, trimOws } from '../../src/handler.js'
import type { IncomingHeaders, OutgoingHeaders } from '../../src/handler.js'
import { debuglog } from 'node:util'
import { DeliveredDigest } from './restart.js'
import type { RestartPoint } from './restart.js'

/** Where a delivered body stands: enough to ask for the rest and to check the answer. */
export interface ResumePoint {
  /** The strong ETag of the representation being delivered. */
  etag: string
  /** Absolute offset of the next byte the caller expects. */
  next: number
  /** Absolute offset of the last byte of the body, when known. */
  end: number | null
}

/** One byte range of a `Content-Range` header. */
export interface ContentRange {
  start: number
  end: number
  /** Complete length, or null for `*`. */
  size: number | null
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/
// RFC 9110 section 8.8.3: opaque-tag = DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
const STRONG_ETAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/
// Servers that forget the quotes send the tag bare; without a W/ prefix nothing marks it weak.
const UNQUOTED_ETAG = /^[\x21\x23-\x7e\x80-\xff]+$/

const retryLog = debuglog('conduit:retry')

// Conditionals the caller sent were satisfied by the first response; the If-Match guard replaces them.
const REPLACED_ON_RESUME = ['range', 'if-range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since']

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value
}

/**
 * Parses a `Content-Range` of a single satisfied byte range (`bytes 0-99/1000` or `bytes 0-99/*`).
 * Undefined for anything else, including inverted ranges and ranges past the complete length.
 * @example
 * parseContentRange('bytes 100-199/1000') // { start: 100, end: 199, size: 1000 }
 */
export function parseContentRange (value: string | undefined): ContentRange | undefined {
  if (value === undefined) return undefined
  const m = CONTENT_RANGE.exec(trimOws(value))
  if (m === null) return undefined
  const start = Number(m[1])
  const end = Number(m[2])
  const size = m[3] === '*' ? null : Number(m[3])
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return undefined
  if (size !== null && (!Number.isSafeInteger(size) || end >= size)) return undefined
  return { start, end, size }
}

/**
 * True for a strong entity tag (`"abc"`), and for a bare unquoted one (`abc`), taken as an
 * opaque strong tag and sent back exactly as received. Weak tags (`W/"abc"`) do not promise
 * identical bytes.
 */
export function isStrongEtag (etag: string | undefined): etag is string {
  return etag !== undefined && (STRONG_ETAG.test(etag) || (UNQUOTED_ETAG.test(etag) && !etag.startsWith('W/')))
}

/** Why a 206 cannot be trusted as the start of a body: its Content-Length disagrees with its Content-Range. */
export function partialLengthMismatch (headers: IncomingHeaders): string | undefined {
  const length = single(headers['content-length'])
  const contentRange = single(headers['content-range'])
  const range = parseContentRange(contentRange)
  if (length === undefined || range === undefined) return undefined
  if (Number(length) === range.end - range.start + 1) return undefined
  return `Content-Length ${length} does not match Content-Range ${contentRange}`
}

/**
 * The error for a first answer that is a 206 whose Content-Length disagrees with its
 * Content-Range (its bytes cannot be placed), or undefined when it is consistent. The retry log
 * says why the request gives up.
 */
export function partialStartError (request: string, headers: IncomingHeaders, retries: number): RequestRetryError | undefined {
  const mismatch = partialLengthMismatch(headers)
  if (mismatch === undefined) return undefined
  retryLog('giving up on %s: the first answer is a 206 whose %s', request, mismatch)
  return new RequestRetryError(`retry(): ${request} answered 206 with ${mismatch}`, 206, { headers: redactHeaders(headers) as IncomingHeaders, data: { count: retries } })
}

/**
 * The resume point for a response about to be delivered, or a reason why its body could not be
 * resumed later. Only GET defines range handling (RFC 9110 section 14.2), and only a strong ETag
 * proves the rest of the body belongs to the same bytes.
 */
export function startResume (method: string, statusCode: number, headers: IncomingHeaders): ResumePoint | string {
  if (method !== 'GET') return `${method} has no range semantics`
  const etag = single(headers.etag)
  if (etag === undefined) return 'the response has no ETag'
  const weak = etag.startsWith('W/')
  if (!isStrongEtag(etag)) return `ETag ${etag} is ${weak ? 'weak' : 'not a valid entity tag'}, so the rest may not match the bytes received`
  if (statusCode === 200) {
    const length = single(headers['content-length'])
    const size = length !== undefined && /^\d+$/.test(length) ? Number(length) : null
    return { etag, next: 0, end: size === null ? null : size - 1 }
  }
  if (statusCode === 206) {
    const range = parseContentRange(single(headers['content-range']))
    if (range === undefined) return 'the 206 response is not a single byte range'
    return { etag, next: range.start, end: range.end }
  }
  return `status ${statusCode} is not resumable`
}

/** The `Range` header value asking for the rest of the body. */
export function rangeFor (point: ResumePoint): string {
  return `bytes=${point.next}-${point.end === null ? '' : point.end}`
}

/** Request headers of a resume: the caller's, with `Range` and `If-Match` set from `point`. */
export function resumeHeaders (headers: OutgoingHeaders | null | undefined, point: ResumePoint): IncomingHeaders {
  const out = normalizeHeaders(headers)
  for (const name of REPLACED_ON_RESUME) delete out[name]
  out.range = rangeFor(point)
  out['if-match'] = point.etag
  return out
}

/**
 * Checks a response to a resume request. Returns the reason it cannot continue the body, or
 * undefined when it is a 206 of the same representation starting exactly at `point.next`.
 * When the original length was unknown, `point.end` is filled in from the accepted range.
 */
export function checkResumed (point: ResumePoint, statusCode: number, headers: IncomingHeaders): string | undefined {
  if (statusCode === 412) return `the resource changed (If-Match ${point.etag} failed with 412)`
  if (statusCode !== 206) return `expected 206 Partial Content, got ${statusCode}`
  const etag = single(headers.etag)
  if (etag !== point.etag) return `ETag changed from ${point.etag} to ${etag ?? 'none'}`
  const contentRange = single(headers['content-range'])
  const range = parseContentRange(contentRange)
  if (range === undefined) return `Content-Range ${contentRange === undefined ? 'is missing' : `"${contentRange}" is not a single byte range`}`
  if (range.start !== point.next) return `Content-Range starts at byte ${range.start}, expected ${point.next}`
  if (point.end !== null && range.end !== point.end) return `Content-Range ends at byte ${range.end}, expected ${point.end}`
  const mismatch = partialLengthMismatch(headers)
  if (mismatch !== undefined) return mismatch
  point.end = range.end
  return undefined
}

/**
 * Follows the body the caller is receiving, so that after a failure it can say where to resume
 * (or why it cannot). The resume point is only worked out on the first failure: successful
 * responses pay one counter for it. A `200` to a GET without a strong ETag can only be restarted,
 * so its delivered bytes also feed a running digest (docs/retry.md, "Restarting a body").
 */
export class BodyProgress {
  #method = ''
  #statusCode = 0
  #headers: IncomingHeaders = {}
  #point: ResumePoint | string | null = null
  #from = 0
  #delivered = 0
  #digest: DeliveredDigest | null = null

  /** The response head the caller received. */
  started (method: string, statusCode: number, headers: IncomingHeaders): void {
    this.#method = method
    this.#statusCode = statusCode
    this.#headers = headers
    if (method === 'GET' && statusCode === 200 && !isStrongEtag(single(headers.etag))) this.#digest = new DeliveredDigest(headers)
  }

  /** `chunk` reached the caller. */
  delivered (chunk: Buffer): void {
    this.#delivered += chunk.length
    this.#digest?.update(chunk)
  }

  /** Where the body stands now: a `Range` resume, a restart, or why it can be neither. */
  point (): ResumePoint | RestartPoint | string {
    if (this.#digest !== null) return this.#digest.point()
    if (this.#point === null) {
      this.#point = startResume(this.#method, this.#statusCode, this.#headers)
      if (typeof this.#point === 'object') this.#from = this.#point.next
    }
    if (typeof this.#point === 'object') this.#point.next = this.#from + this.#delivered
    return this.#point
  }
}
