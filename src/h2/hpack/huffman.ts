/**
 * Huffman encoding and decoding of HPACK string literals (RFC 7541 section 5.2).
 * Decoding runs a 4-bit-at-a-time state machine built once at module load from the code table:
 * each state is an inner node of the code tree, and a step reads one nibble, emits at most one
 * symbol (no code is shorter than 5 bits) and lands on the next inner node.
 * @module
 */

import { EOS, HUFFMAN_CODES, HUFFMAN_LENGTHS } from './huffman-code.js'

/** A step's entry: bits 0-7 the next state, 8-15 the symbol, then the flags below. */
const EMITS = 1 << 16
const FAILS = 1 << 17

/** Inner nodes of the code tree: 257 leaves make 256 of them, node 0 the root. */
const NODES = 256
const STEPS = new Uint32Array(NODES * 16)
/** 1 for the states a string may end in: the root, or up to 7 one bits into a code (the padding). */
const ENDS_CLEANLY = new Uint8Array(NODES)

function buildDecoder (): void {
  // children[2n + bit]: an inner node (>= 0) or a leaf, stored as -(symbol + 1).
  const children = new Int32Array(NODES * 2).fill(0x7fffffff)
  let count = 1
  for (let symbol = 0; symbol <= EOS; symbol++) {
    const code = HUFFMAN_CODES[symbol]!
    let node = 0
    for (let bit = HUFFMAN_LENGTHS[symbol]! - 1; bit >= 0; bit--) {
      const slot = node * 2 + ((code >>> bit) & 1)
      if (bit === 0) children[slot] = -(symbol + 1)
      else {
        if (children[slot] === 0x7fffffff) children[slot] = count++
        node = children[slot]!
      }
    }
  }
  // The all-ones path: prefixes of EOS, the only valid padding, when at most 7 bits long.
  let node = 0
  ENDS_CLEANLY[0] = 1
  for (let depth = 1; depth <= 7; depth++) {
    node = children[node * 2 + 1]!
    ENDS_CLEANLY[node] = 1
  }
  for (let state = 0; state < NODES; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let at = state
      let entry = 0
      for (let bit = 3; bit >= 0; bit--) {
        const child = children[at * 2 + ((nibble >>> bit) & 1)]!
        if (child >= 0) { at = child; continue }
        const symbol = -child - 1
        if (symbol === EOS) { entry |= FAILS; break }
        entry |= EMITS | (symbol << 8)
        at = 0
      }
      STEPS[state * 16 + nibble] = entry | at
    }
  }
}
buildDecoder()

/** How many bytes the Huffman encoding of `text` (latin1, one byte per char) takes. */
export function huffmanLength (text: string): number {
  let bits = 0
  for (let i = 0; i < text.length; i++) bits += HUFFMAN_LENGTHS[text.charCodeAt(i) & 0xff]!
  return (bits + 7) >>> 3
}

/**
 * Writes the Huffman encoding of `text` at `offset` (room for {@link huffmanLength} bytes is the
 * caller's), padded with one bits as section 5.2 says; returns the offset after it.
 */
export function huffmanEncode (text: string, out: Uint8Array, offset: number): number {
  // `pending` holds fewer than 8 bits between codes; a code of up to 30 bits is added in two
  // parts when it would not fit in 31 bits together with them.
  let pending = 0
  let count = 0
  let at = offset
  for (let i = 0; i < text.length; i++) {
    const symbol = text.charCodeAt(i) & 0xff
    let code = HUFFMAN_CODES[symbol]!
    let length = HUFFMAN_LENGTHS[symbol]!
    if (length > 23) {
      const high = length - 16
      pending = (pending << high) | (code >>> 16)
      count += high
      while (count >= 8) { count -= 8; out[at++] = pending >>> count }
      pending &= (1 << count) - 1
      code &= 0xffff
      length = 16
    }
    pending = (pending << length) | code
    count += length
    while (count >= 8) { count -= 8; out[at++] = pending >>> count }
    pending &= (1 << count) - 1
  }
  if (count > 0) out[at++] = (pending << (8 - count)) | (0xff >>> count)
  return at
}

/**
 * Decodes the Huffman string in `input[start, end)` into `scratch` (which must have room for
 * `(end - start) * 8 / 5` bytes, the most a string can expand to) and returns the decoded length,
 * or -1 when the string is invalid: it holds EOS, or its padding is longer than 7 bits or not
 * all ones (section 5.2).
 */
export function huffmanDecode (input: Uint8Array, start: number, end: number, scratch: Uint8Array): number {
  let state = 0
  let length = 0
  for (let i = start; i < end; i++) {
    const byte = input[i]!
    let entry = STEPS[(state << 4) | (byte >>> 4)]!
    if ((entry & FAILS) !== 0) return -1
    if ((entry & EMITS) !== 0) scratch[length++] = entry >>> 8
    state = entry & 0xff
    entry = STEPS[(state << 4) | (byte & 0xf)]!
    if ((entry & FAILS) !== 0) return -1
    if ((entry & EMITS) !== 0) scratch[length++] = entry >>> 8
    state = entry & 0xff
  }
  return ENDS_CLEANLY[state] === 1 ? length : -1
}

/** The most bytes `encodedLength` bytes of Huffman code can decode to (5-bit codes only). */
export function huffmanMaxDecodedLength (encodedLength: number): number {
  return Math.ceil(encodedLength * 8 / 5)
}
