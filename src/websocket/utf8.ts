/**
 * UTF-8 validation for text messages. Whole messages use the runtime's native check; fragmented
 * ones go through {@link Utf8Validator}, which carries a partial character from one fragment to
 * the next so that invalid text fails at the first bad fragment, not at the end of the message.
 * @module
 */

import { isUtf8 } from 'node:buffer'

/** True when `bytes` is complete, well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF). */
export function isValidUtf8 (bytes: Uint8Array): boolean {
  return bytes.length === 0 || isUtf8(bytes)
}

/** Checks UTF-8 text that arrives in pieces; a character may be split between pieces. */
export class Utf8Validator {
  /** Continuation bytes still expected for the current character. */
  #pending = 0
  /** Range the next continuation byte must fall in (narrower after E0, ED, F0 and F4). */
  #low = 0x80
  #high = 0xbf

  /** Feeds the next piece; false as soon as the bytes so far cannot start valid UTF-8. */
  write (bytes: Uint8Array): boolean {
    let pending = this.#pending
    let low = this.#low
    let high = this.#high
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!
      if (pending === 0) {
        if (byte < 0x80) continue
        if (byte >= 0xc2 && byte <= 0xdf) pending = 1
        else if (byte >= 0xe0 && byte <= 0xef) {
          pending = 2
          // E0 would be overlong below A0; ED would encode a surrogate from A0 on.
          if (byte === 0xe0) low = 0xa0
          else if (byte === 0xed) high = 0x9f
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          pending = 3
          // F0 would be overlong below 90; F4 would pass U+10FFFF from 90 on.
          if (byte === 0xf0) low = 0x90
          else if (byte === 0xf4) high = 0x8f
        } else return false
      } else {
        if (byte < low || byte > high) return false
        low = 0x80
        high = 0xbf
        pending--
      }
    }
    this.#pending = pending
    this.#low = low
    this.#high = high
    return true
  }

  /** True when the text fed so far ends on a character boundary; resets for the next message. */
  end (): boolean {
    const complete = this.#pending === 0
    this.#pending = 0
    this.#low = 0x80
    this.#high = 0xbf
    return complete
  }
}
