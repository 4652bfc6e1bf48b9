/**
 * A header-block codec for the session tests: every field as an HPACK "literal without
 * indexing, new name" (RFC 7541 section 6.2.2) with plain, non-Huffman strings. Any HPACK
 * decoder reads what it writes; it reads nothing else, which is all a scripted server sends.
 */

import type { HeaderBlockCodec, HeaderList } from '../../../../src/h2/framing/header-codec.js'

function encodeInteger (value: number, prefixBits: number, first: number, out: number[]): void {
  const max = (1 << prefixBits) - 1
  if (value < max) {
    out.push(first | value)
    return
  }
  out.push(first | max)
  let rest = value - max
  while (rest >= 128) {
    out.push((rest % 128) + 128)
    rest = Math.floor(rest / 128)
  }
  out.push(rest)
}

/** Encodes `headers` as literal, non-indexed, non-Huffman fields. */
export function encodeLiteralBlock (headers: HeaderList): Buffer {
  const out: number[] = []
  for (const [name, value] of headers) {
    out.push(0x00)
    for (const text of [name, value]) {
      const bytes = Buffer.from(text, 'latin1')
      encodeInteger(bytes.length, 7, 0x00, out)
      for (const byte of bytes) out.push(byte)
    }
  }
  return Buffer.from(out)
}

/** Decodes a block of literal, non-indexed, non-Huffman fields; throws on anything else or past `maxListSize`. */
export function decodeLiteralBlock (fragments: readonly Buffer[], maxListSize = Infinity): HeaderList {
  const block = Buffer.concat(fragments)
  const headers: HeaderList = []
  let at = 0
  let size = 0
  const integer = (prefixBits: number): number => {
    const max = (1 << prefixBits) - 1
    let value = block[at++]! & max
    if (value < max) return value
    let shift = 0
    for (;;) {
      if (at >= block.length || shift > 28) throw new Error('truncated integer')
      const byte = block[at++]!
      value += (byte & 0x7f) * 2 ** shift
      shift += 7
      if ((byte & 0x80) === 0) return value
    }
  }
  const string = (): string => {
    if (at >= block.length) throw new Error('truncated string')
    if ((block[at]! & 0x80) !== 0) throw new Error('Huffman strings are not supported by the test codec')
    const length = integer(7)
    if (at + length > block.length) throw new Error('truncated string')
    const text = block.toString('latin1', at, at + length)
    at += length
    return text
  }
  while (at < block.length) {
    if (block[at] !== 0x00) throw new Error(`field representation 0x${block[at]!.toString(16)} is not a literal without indexing`)
    at++
    const name = string()
    const value = string()
    size += name.length + value.length + 32
    if (size > maxListSize) throw new Error(`header list over ${maxListSize} bytes`)
    headers.push([name, value])
  }
  return headers
}

/** The test codec, as the session takes it: fragments are held until their block ends, then decoded. */
export function literalCodec (): HeaderBlockCodec {
  let fragments: Buffer[] = []
  return {
    encode: encodeLiteralBlock,
    decodeFragment: (fragment, endOfBlock, maxListSize) => {
      fragments.push(fragment)
      if (!endOfBlock) return null
      const block = fragments
      fragments = []
      return decodeLiteralBlock(block, maxListSize)
    }
  }
}
