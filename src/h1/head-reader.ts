/**
 * Response heads of one connection, parsed with the work reused when a head repeats the one
 * before it byte for byte. A server answering the same resource sends the same head again and
 * again (a `date` field changes once a second at most), and parsing a head is most of what the
 * client does per small response; comparing two strings of a few hundred bytes is far cheaper.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { parseHead } from './parse-head.js'
import type { ParsedHead } from './parse-head.js'

/** Reads the response heads of one connection. */
export class HeadReader {
  /** The last head read. */
  #lastText: string | null = null
  /** A parse of `#lastText` never handed out, made once that head came a second time. */
  #pristine: ParsedHead | null = null
  /** Whether `#pristine` has repeated fields (arrays), which copies must not share. */
  #pristineLists = false
  /** What a repeated head reads as: the fields of `#pristine`, with a fresh copy of its headers. */
  #repeat: ParsedHead | null = null

  /**
   * Parses `text`, a response head without its final CRLF CRLF. The headers object of the result
   * belongs to the caller, who may change it; the result itself is valid until the next call.
   * @throws HTTPParserError as {@link parseHead} does
   */
  read (text: string): ParsedHead {
    if (text !== this.#lastText) {
      this.#lastText = text
      this.#pristine = null
      return parseHead(text, true)
    }
    let pristine = this.#pristine
    let repeat = this.#repeat
    if (pristine === null || repeat === null) {
      pristine = parseHead(text, true)
      this.#pristine = pristine
      this.#pristineLists = Object.values(pristine.headers).some(Array.isArray)
      repeat = { ...pristine }
      this.#repeat = repeat
    }
    repeat.headers = copyHeaders(pristine.headers, this.#pristineLists)
    return repeat
  }
}

function copyHeaders (headers: IncomingHeaders, lists: boolean): IncomingHeaders {
  // Spreading defines own data properties, so a field named `__proto__` stays a plain field.
  const copy = { ...headers }
  if (lists) {
    for (const key of Object.keys(copy)) {
      const value = copy[key]
      if (Array.isArray(value)) copy[key] = value.slice()
    }
  }
  return copy
}
