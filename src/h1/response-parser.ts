/**
 * Incremental HTTP/1.1 response parser: bytes in, sink calls out; no sockets inside.
 * Heads are located with `indexOf`, bodies are sliced from the input without copying (copied
 * only when the caller reuses the input's memory).
 * Framing follows RFC 9112 section 6.3 strictly: anything ambiguous is an error, never a guess.
 * @module
 */

import { HTTPParserError, HeadersOverflowError, ResponseContentLengthMismatchError } from '../errors.js'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { CRLF_CRLF, MAX_CHUNK_LINE_SIZE } from './constants.js'
import { DEFAULT_MAX_HEADER_SIZE } from '../connection/connection-config.js'
import { copyBytes } from '../connection/shared-read-buffer.js'
import { parseHead } from './parse-head.js'
import { HeadReader } from './head-reader.js'

/** `onHead` result: read the body as the headers frame it. */
export const HEAD_BODY = 0
/** `onHead` result: the response has no body whatever its headers say (answer to HEAD). */
export const HEAD_NO_BODY = 1
/** `onHead` result: the protocol switched (101, CONNECT 2xx); the remaining bytes belong to it. */
export const HEAD_UPGRADE = 2

/** Receives what the parser finds. A sink may throw; the error leaves `execute` unchanged. */
export interface ResponseParserSink {
  /** A response head (1xx included); returns one of HEAD_BODY, HEAD_NO_BODY, HEAD_UPGRADE. */
  onHead (statusCode: number, headers: IncomingHeaders, statusText: string): number
  /** A slice of the body; it shares memory with the input chunk. */
  onBody (chunk: Buffer): void
  /** The message ended; `trailers` is empty unless the chunked body carried some. */
  onEnd (trailers: IncomingHeaders): void
}

const S_HEAD = 0
const S_LENGTH = 1
const S_CHUNK_SIZE = 2
const S_CHUNK_DATA = 3
const S_CHUNK_END = 4
const S_TRAILERS = 5
const S_CLOSE = 6
const S_END_PENDING = 7
const S_UPGRADED = 8
const S_DEAD = 9

const NO_TRAILERS: IncomingHeaders = Object.freeze({}) as IncomingHeaders

/** Parses the responses of one connection, in order. */
export class ResponseParser {
  /** Whether the connection may be reused after the current message (set from each head). */
  keepAlive = true
  /** The server's `Keep-Alive: timeout=` hint in milliseconds, or -1 when it sent none. */
  keepAliveHintMs = -1

  readonly #sink: ResponseParserSink
  readonly #maxHeaderSize: number
  #state = S_HEAD
  #rest: Buffer | null = null
  #scanFrom = 0
  #remaining = 0
  #paused = false
  /** The input being parsed is reused once `execute` returns: what outlives the call is copied. */
  #volatile = false
  #eof = false
  #statusCode = 0
  readonly #heads = new HeadReader()

  /**
   * @param sink - receives heads, body slices and message ends
   * @param maxHeaderSize - largest head or trailer section accepted, in bytes
   */
  constructor (sink: ResponseParserSink, maxHeaderSize = DEFAULT_MAX_HEADER_SIZE) {
    this.#sink = sink
    this.#maxHeaderSize = maxHeaderSize
  }

  /** True when no byte of a next response has been seen (between messages, nothing buffered). */
  get idle (): boolean {
    return this.#state === S_HEAD && this.#rest === null
  }

  /** True while delivery is paused. */
  get paused (): boolean {
    return this.#paused
  }

  /** Status code of the last head parsed. */
  get statusCode (): number {
    return this.#statusCode
  }

  /**
   * Feeds bytes from the connection. Throws `HTTPParserError` / `HeadersOverflowError` on bad input.
   * With `reused`, the caller reuses `chunk`'s memory once this returns: body slices handed to the
   * sink and bytes kept for later are copies.
   */
  execute (chunk: Buffer, reused = false): void {
    if (this.#state === S_DEAD) return
    let data = chunk
    let volatile = reused
    if (this.#rest !== null) {
      data = Buffer.concat([this.#rest, chunk])
      this.#rest = null
      volatile = false
    }
    if (this.#state === S_UPGRADED || this.#paused) {
      this.#rest = volatile ? copyBytes(data) : data
      return
    }
    this.#volatile = volatile
    try {
      this.#run(data)
    } finally {
      this.#volatile = false
    }
  }

  /** Stops delivery after the current callback; bytes fed meanwhile are kept. */
  pause (): void {
    this.#paused = true
  }

  /** Continues delivery with the bytes kept while paused. May throw like `execute`. */
  resume (): void {
    if (!this.#paused || this.#state === S_DEAD) return
    this.#paused = false
    const rest = this.#rest
    this.#rest = null
    // Resumed from a callback of a reused input's parse: the kept bytes are the parser's own.
    const volatile = this.#volatile
    this.#volatile = false
    try {
      this.#run(rest ?? EMPTY)
    } finally {
      this.#volatile = volatile
    }
    if (this.#eof && !this.#paused) this.#finish()
  }

  /** The connection ended: completes a close-delimited body, or throws if a message was cut short. */
  finish (): void {
    this.#eof = true
    if (!this.#paused) this.#finish()
  }

  /** Returns the bytes after an upgrade head (they belong to the new protocol) and stops the parser. */
  takeRest (): Buffer | null {
    const rest = this.#rest
    this.#rest = null
    this.#state = S_DEAD
    return rest
  }

  /** Stops the parser for good; later input is ignored. */
  destroy (): void {
    this.#state = S_DEAD
    this.#rest = null
  }

  #finish (): void {
    const state = this.#state
    if (state === S_DEAD || state === S_UPGRADED) return
    if (state === S_CLOSE) {
      this.#endMessage(NO_TRAILERS)
      this.#state = S_DEAD
      return
    }
    // Ended between messages: nothing was cut short, and `idle` stays true for the owner to see.
    if (state === S_HEAD && this.#rest === null) return
    this.#state = S_DEAD
    if (state === S_HEAD) throw new HTTPParserError('connection closed in the middle of a response head', 'LIB_ERR_HTTP_PARSER')
    if (state === S_LENGTH) {
      throw new ResponseContentLengthMismatchError(`connection closed with ${this.#remaining} bytes of the content-length body missing`)
    }
    throw new HTTPParserError('connection closed before the last chunk of a chunked body', 'LIB_ERR_HTTP_PARSER')
  }

  #run (data: Buffer): void {
    const len = data.length
    let off = 0
    loop: while (true) {
      if (this.#paused) break
      const state = this.#state
      if (state === S_END_PENDING) {
        this.#endMessage(NO_TRAILERS)
        continue
      }
      if (off >= len) break
      switch (state) {
        case S_HEAD: {
          const end = data.indexOf(CRLF_CRLF, off + this.#scanFrom)
          if (end === -1) {
            // A head with bare LF line endings never shows CRLF CRLF: refuse it now rather than
            // wait for maxHeaderSize or headersTimeout. Heads that do end are checked line by line.
            rejectBareLf(data, off, off + this.#scanFrom, len, 'response head')
            if (len - off > this.#maxHeaderSize) throw this.#overflow('response head')
            this.#scanFrom = Math.max(0, len - off - 3)
            break loop
          }
          this.#scanFrom = 0
          if (end + 4 - off > this.#maxHeaderSize) throw this.#overflow('response head')
          const head = data.toString('latin1', off, end)
          off = end + 4
          this.#onHead(head)
          if (this.#state === S_UPGRADED) break loop
          break
        }
        case S_LENGTH:
        case S_CHUNK_DATA: {
          const avail = len - off
          const remaining = this.#remaining
          if (avail < remaining) {
            this.#remaining = remaining - avail
            const chunk = off === 0 ? data : data.subarray(off)
            off = len
            this.#sink.onBody(this.#volatile ? copyBytes(chunk) : chunk)
            break
          }
          const chunk = data.subarray(off, off + remaining)
          off += remaining
          this.#remaining = 0
          this.#state = state === S_LENGTH ? S_END_PENDING : S_CHUNK_END
          this.#sink.onBody(this.#volatile ? copyBytes(chunk) : chunk)
          break
        }
        case S_CHUNK_SIZE: {
          const lf = data.indexOf(10, off)
          if (lf === -1) {
            if (len - off > MAX_CHUNK_LINE_SIZE) throw parserError('chunk size line is too long', data.toString('latin1', off, off + 32))
            break loop
          }
          if (lf + 1 - off > MAX_CHUNK_LINE_SIZE) throw parserError('chunk size line is too long', data.toString('latin1', off, off + 32))
          const size = parseChunkSize(data, off, lf)
          off = lf + 1
          if (size === 0) {
            this.#state = S_TRAILERS
          } else {
            this.#remaining = size
            this.#state = S_CHUNK_DATA
          }
          break
        }
        case S_CHUNK_END: {
          if (data[off] !== 13) throw parserError('chunk data is not followed by CRLF', data.toString('latin1', off, off + 16))
          if (off + 1 >= len) break loop
          if (data[off + 1] !== 10) throw parserError('chunk data is not followed by CRLF', data.toString('latin1', off, off + 16))
          off += 2
          this.#state = S_CHUNK_SIZE
          break
        }
        case S_TRAILERS: {
          if (data[off] === 13) {
            if (off + 1 >= len) break loop
            if (data[off + 1] !== 10) throw parserError('trailer section does not end with CRLF', data.toString('latin1', off, off + 16))
            off += 2
            this.#endMessage(NO_TRAILERS)
            break
          }
          const end = data.indexOf(CRLF_CRLF, off)
          if (end === -1) {
            rejectBareLf(data, off, off, len, 'trailer section')
            if (len - off > this.#maxHeaderSize) throw this.#overflow('trailer section')
            break loop
          }
          if (end + 4 - off > this.#maxHeaderSize) throw this.#overflow('trailer section')
          const trailers = parseHead(data.toString('latin1', off, end), false).headers
          off = end + 4
          this.#endMessage(trailers)
          break
        }
        case S_CLOSE: {
          const chunk = off === 0 ? data : data.subarray(off)
          off = len
          this.#sink.onBody(this.#volatile ? copyBytes(chunk) : chunk)
          break
        }
        default:
          // S_DEAD (a callback destroyed the parser) or S_UPGRADED: nothing more is ours to parse.
          break loop
      }
    }
    if (off < len && this.#state !== S_DEAD) {
      const rest = off === 0 ? data : data.subarray(off)
      this.#rest = this.#volatile ? copyBytes(rest) : rest
    }
  }

  #onHead (head: string): void {
    const parsed = this.#heads.read(head)
    const statusCode = parsed.statusCode
    this.#statusCode = statusCode
    this.keepAlive = parsed.keepAlive
    this.keepAliveHintMs = parsed.keepAliveHintMs
    const mode = this.#sink.onHead(statusCode, parsed.headers, parsed.statusText)
    if (this.#state === S_DEAD) return
    if (mode === HEAD_UPGRADE) {
      this.#state = S_UPGRADED
      return
    }
    if (statusCode < 200) {
      if (statusCode === 101) throw parserError('unexpected 101 Switching Protocols: no upgrade was requested', '101')
      return
    }
    if (mode === HEAD_NO_BODY || statusCode === 204 || statusCode === 304) {
      // A 204 or 304 announcing a body may be followed by it, later than the head: read as the
      // next response's head, those bytes would be smuggled into it. Such a connection is not
      // reused (as undici 8 does); answers to HEAD announce lengths legitimately.
      if (mode !== HEAD_NO_BODY && (parsed.contentLength > 0 || parsed.chunked)) this.keepAlive = false
      this.#state = S_END_PENDING
    } else if (parsed.chunked) {
      this.#state = S_CHUNK_SIZE
    } else if (parsed.contentLength >= 0) {
      this.#remaining = parsed.contentLength
      this.#state = parsed.contentLength === 0 ? S_END_PENDING : S_LENGTH
    } else {
      // RFC 9112 section 6.3 item 8: no framing header, the body runs until the connection closes.
      this.keepAlive = false
      this.#state = S_CLOSE
    }
  }

  #endMessage (trailers: IncomingHeaders): void {
    this.#state = S_HEAD
    this.#sink.onEnd(trailers)
  }

  #overflow (what: string): HeadersOverflowError {
    this.#state = S_DEAD
    return new HeadersOverflowError(`${what} exceeds maxHeaderSize (${this.#maxHeaderSize} bytes)`)
  }
}

const EMPTY = Buffer.alloc(0)

function parserError (message: string, data: string): HTTPParserError {
  return new HTTPParserError(`${message}: ${JSON.stringify(data)}`, 'LIB_ERR_HTTP_PARSER', data)
}

/**
 * Throws when an LF in `data[from, end)` is not preceded by CR (the section started at `start`).
 * RFC 9112 section 2.2 lets a recipient accept a bare LF as a line end; this parser does not, as
 * llhttp (undici) does not: a lenient reader and a strict one disagreeing on where a line ends is
 * how responses get smuggled.
 */
function rejectBareLf (data: Buffer, start: number, from: number, end: number, what: string): void {
  for (let lf = data.indexOf(10, from); lf !== -1 && lf < end; lf = data.indexOf(10, lf + 1)) {
    if (lf === start || data[lf - 1] !== 13) {
      const lineStart = Math.max(start, data.lastIndexOf(10, lf - 1) + 1)
      throw parserError(`bare LF line ending in ${what}`, data.toString('latin1', lineStart, Math.min(lf + 1, lineStart + 64)))
    }
  }
}

/** Parses `1a;ext=1\r` between `start` and the LF at `lf`; chunk extensions are ignored (RFC 9112 section 7.1.1). */
function parseChunkSize (data: Buffer, start: number, lf: number): number {
  const end = lf - 1
  if (end < start || data[end] !== 13) throw parserError('chunk size line does not end with CRLF', data.toString('latin1', start, lf))
  let size = 0
  let i = start
  for (; i < end; i++) {
    const c = data[i]!
    let digit: number
    if (c >= 48 && c <= 57) digit = c - 48
    else if (c >= 97 && c <= 102) digit = c - 87
    else if (c >= 65 && c <= 70) digit = c - 55
    else break
    if (i - start >= 13) throw parserError('chunk size is too large', data.toString('latin1', start, end))
    size = size * 16 + digit
  }
  if (i === start) throw parserError('invalid chunk size', data.toString('latin1', start, end))
  // No whitespace after the size, not even before `;`: parsers that disagree on it are a
  // smuggling vector, and undici refuses it too.
  if (i < end && data[i] !== 59) throw parserError('invalid chunk size', data.toString('latin1', start, end))
  for (; i < end; i++) {
    const c = data[i]!
    if ((c < 32 && c !== 9) || c === 127) throw parserError('invalid byte in chunk extension', data.toString('latin1', start, end))
  }
  return size
}
