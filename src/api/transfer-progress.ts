/**
 * Upload and download progress of one request (`onUploadProgress` / `onDownloadProgress` of
 * `request()`, `stream()` and `fetch()`): bytes counted as the transport hands body chunks to
 * the socket or receives them, reported to the caller at most every {@link PROGRESS_INTERVAL_MS}
 * and once more when the transfer completes. Costs nothing for a request that asks for neither.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import { monotonicNow } from '../runtime/timers.js'
import { describeValue } from '../validation/describe-value.js'
import { failOption } from '../validation/options.js'
import { bodyKind, bodyLength } from '../connection/request-body.js'

/** One progress report. */
export interface TransferProgressEvent {
  /** Bytes transferred so far; never less than in an earlier report of the same transfer. */
  loaded: number
  /** Bytes the whole transfer has, when known (`content-length`, a body of known size); else null. */
  total: number | null
  /** Average bytes per second since the transfer started (0 until a millisecond has passed). */
  rate: number
}

/** The callback of `onUploadProgress` and `onDownloadProgress`. */
export type TransferProgressCallback = (event: TransferProgressEvent) => void

/**
 * The shortest time between two reports of one transfer, in milliseconds: often enough for a
 * progress bar, rare enough that a fast download of many small chunks calls back a few times.
 */
export const PROGRESS_INTERVAL_MS = 100

/** The two progress options, as `request()`, `stream()` and `fetch()` take them. */
export interface TransferProgressOptions {
  /** Called as the request body is written: `{ loaded, total, rate }`, throttled, and once at its end. */
  onUploadProgress?: TransferProgressCallback | null | undefined
  /** Called as the response body arrives: `{ loaded, total, rate }`, throttled, and once at its end. */
  onDownloadProgress?: TransferProgressCallback | null | undefined
}

/**
 * Throws for a progress option that is set to something other than a function:
 * {@link InvalidArgumentError} from `request()` and `stream()`, a TypeError from `fetch()`
 * (WebIDL's error for a dictionary member of the wrong type).
 */
export function checkProgressOptions (who: string, opts: TransferProgressOptions, typeError = false): void {
  for (const name of ['onUploadProgress', 'onDownloadProgress'] as const) {
    const value = opts[name]
    if (value == null || typeof value === 'function') continue
    if (typeError) throw new TypeError(`${who}: ${name} must be a function, got ${describeValue(value)}`)
    failOption(who, name, 'a function', value)
  }
}

/**
 * Counts the bytes of one direction of one request and reports them. A transfer that is sent
 * again (a retry, a redirect that keeps the body) never reports fewer bytes than before: counts
 * go on from where they were, capped at the total when it is known, and nothing is counted once
 * the transfer completed.
 */
export class TransferProgress {
  readonly #callback: TransferProgressCallback
  #total: number | null
  #loaded = 0
  #reportedLoaded = -1
  #reportedAt = 0
  #startedAt = 0
  #started = false
  #done = false

  constructor (callback: TransferProgressCallback, total: number | null = null) {
    this.#callback = callback
    this.#total = total
  }

  /** Sets the total once it is known (a download's `content-length`); null when it is not. */
  start (total: number | null): void {
    if (this.#started) return
    this.#started = true
    this.#total = total
    this.#startedAt = monotonicNow()
  }

  /**
   * Counts `bytes` more and reports when the last report is older than PROGRESS_INTERVAL_MS.
   * @throws what the caller's callback throws (the request then fails with it)
   */
  add (bytes: number): void {
    if (this.#done) return
    if (!this.#started) this.start(this.#total)
    let loaded = this.#loaded + bytes
    if (this.#total !== null && loaded > this.#total) loaded = this.#total
    this.#loaded = loaded
    const now = monotonicNow()
    if (this.#reportedLoaded < 0 || now - this.#reportedAt >= PROGRESS_INTERVAL_MS) this.#report(now)
  }

  /**
   * The transfer completed: reports its final count unless that was the last report already.
   * @throws what the caller's callback throws
   */
  finish (): void {
    if (this.#done) return
    if (!this.#started) this.start(this.#total)
    this.#done = true
    if (this.#reportedLoaded !== this.#loaded) this.#report(monotonicNow())
  }

  #report (now: number): void {
    const elapsed = now - this.#startedAt
    const rate = elapsed >= 1 ? Math.round(this.#loaded * 1000 / elapsed) : 0
    this.#reportedLoaded = this.#loaded
    this.#reportedAt = now
    this.#callback({ loaded: this.#loaded, total: this.#total, rate })
  }
}

/**
 * The size of a response body as its head announces it: 0 when the response has none (the answer
 * to HEAD, a 204 or 304, whatever their `content-length` says), its `content-length`, else null.
 */
export function downloadTotal (hasBody: boolean, contentLength: string | string[] | undefined): number | null {
  if (!hasBody) return 0
  if (typeof contentLength !== 'string') return null
  const length = Number(contentLength)
  return contentLength !== '' && Number.isSafeInteger(length) && length >= 0 ? length : null
}

/** The byte length of a body chunk as a transport reports it written. */
export function chunkByteLength (chunk: Uint8Array | string): number {
  return typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength
}

/**
 * The size of a request body as far as it is known before sending: its own length, else an
 * explicit `content-length` among the request headers; null for a stream of unknown length.
 */
export function uploadTotal (body: unknown, headers: unknown): number | null {
  let length = -1
  try {
    length = bodyLength(body, bodyKind(body))
  } catch (err) {
    // A body the transport refuses fails the request there, with its own message.
    if (!(err instanceof InvalidArgumentError)) throw err
  }
  if (length >= 0) return length
  const declared = declaredContentLength(headers)
  return declared
}

/** `content-length` from request headers in any of the shapes dispatch accepts, or null. */
function declaredContentLength (headers: unknown): number | null {
  if (headers == null || typeof headers !== 'object') return null
  let value: unknown
  if (Array.isArray(headers)) {
    const flat = headers.length > 0 && Array.isArray(headers[0]) ? (headers as unknown[][]).flat() : headers
    for (let i = 0; i + 1 < flat.length; i += 2) {
      if (String(flat[i]).toLowerCase() === 'content-length') value = flat[i + 1]
    }
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const entry of headers as Iterable<unknown>) {
      if (Array.isArray(entry) && String(entry[0]).toLowerCase() === 'content-length') value = entry[1]
    }
  } else {
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === 'content-length') value = (headers as Record<string, unknown>)[name]
    }
  }
  const number = Number(Array.isArray(value) ? value[0] : value)
  return value != null && Number.isSafeInteger(number) && number >= 0 ? number : null
}
