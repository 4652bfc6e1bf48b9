/**
 * conduit's HPACK encoder and decoder (RFC 7541) as the header-block codec of one HTTP/2
 * session: the session's field blocks go through one connection's pair of tables, fragment by
 * fragment on the way in, so the header list limit holds while a block arrives.
 * @module
 */

import type { HeaderBlockCodec, HeaderList } from './framing/header-codec.js'
import { HpackDecoder } from './hpack/decoder.js'
import { HpackEncoder } from './hpack/encoder.js'

/** The longest string an HPACK integer here can announce (RFC 7541 section 5.1 leaves the bound to the decoder). */
const MAX_STRING_LENGTH = 2 ** 31 - 1

/** The codec of one session, whose decoded lists may hold at most `maxHeaderListSize` bytes. */
export class HpackCodec implements HeaderBlockCodec {
  readonly #encoder = new HpackEncoder()
  readonly #decoder: HpackDecoder
  /** The flat `[name, value...]` list the encoder takes, reused from block to block. */
  readonly #flat: string[] = []

  constructor (maxHeaderListSize: number) {
    // No cap of its own on one string: the header list limit refuses a long one as its length
    // prefix arrives (costing the stream, not the session), and the session caps the encoded
    // block's bytes, which bounds what a string split across frames can hold.
    this.#decoder = new HpackDecoder({ maxHeaderListSize, maxStringLength: MAX_STRING_LENGTH })
  }

  decodeFragment (fragment: Buffer, endOfBlock: boolean): HeaderList | null {
    const fields = this.#decoder.decodeFragment(fragment, endOfBlock)
    if (fields === null) return null
    const headers: HeaderList = new Array(fields.length >>> 1)
    for (let i = 0, j = 0; i < fields.length; i += 2, j++) headers[j] = [fields[i]!, fields[i + 1]!]
    return headers
  }

  encode (headers: HeaderList): Buffer {
    const flat = this.#flat
    flat.length = 0
    for (const [name, value] of headers) flat.push(name, value)
    const block = this.#encoder.encode(flat)
    flat.length = 0
    return block
  }

  setEncoderTableSize (size: number): void {
    this.#encoder.setPeerMaxTableSize(size)
  }
}
