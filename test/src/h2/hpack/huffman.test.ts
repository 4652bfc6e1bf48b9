import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EOS, HUFFMAN_CODES, HUFFMAN_LENGTHS } from '../../../../src/h2/hpack/huffman-code.js'
import { huffmanDecode, huffmanEncode, huffmanLength } from '../../../../src/h2/hpack/huffman.js'

describe('HPACK Huffman code (RFC 7541 Appendix B)', () => {
  it('gives every symbol one code of 5 to 30 bits, the codes filling the code space exactly (a complete prefix code)', () => {
    let kraft = 0
    for (let symbol = 0; symbol <= EOS; symbol++) {
      const length = HUFFMAN_LENGTHS[symbol]!
      assert.ok(length >= 5 && length <= 30, `symbol ${symbol}`)
      assert.ok(HUFFMAN_CODES[symbol]! < 2 ** length)
      kraft += 2 ** (30 - length)
    }
    assert.equal(kraft, 2 ** 30)
    const codes = new Set([...HUFFMAN_CODES].map((code, symbol) => `${HUFFMAN_LENGTHS[symbol]}:${code}`))
    assert.equal(codes.size, 257)
  })

  it('has the appendix\'s codes (a sample across the lengths)', () => {
    const expected: Array<[number, number, number]> = [
      [48, 0x0, 5], [97, 0x3, 5], [116, 0x9, 5], [32, 0x14, 6], [117, 0x2d, 6], [58, 0x5c, 7], [122, 0x7b, 7],
      [38, 0xf8, 8], [90, 0xfd, 8], [33, 0x3f8, 10], [124, 0x7fc, 11], [0, 0x1ff8, 13], [126, 0x1ffd, 13],
      [123, 0x7ffe, 15], [92, 0x7fff0, 19], [1, 0x7fffd8, 23], [9, 0xffffea, 24], [255, 0x3ffffee, 26],
      [2, 0xfffffe2, 28], [127, 0xffffffc, 28], [10, 0x3ffffffc, 30], [13, 0x3ffffffd, 30], [22, 0x3ffffffe, 30], [EOS, 0x3fffffff, 30]
    ]
    for (const [symbol, code, length] of expected) {
      assert.equal(HUFFMAN_CODES[symbol], code, `code of ${symbol}`)
      assert.equal(HUFFMAN_LENGTHS[symbol], length, `length of ${symbol}`)
    }
  })

  it('round-trips each of the 256 octets alone and all of them together', () => {
    const scratch = Buffer.alloc(1024)
    const all = Array.from({ length: 256 }, (_, c) => String.fromCharCode(c))
    for (const text of [...all, all.join('')]) {
      const out = Buffer.alloc(huffmanLength(text))
      assert.equal(huffmanEncode(text, out, 0), out.length)
      const length = huffmanDecode(out, 0, out.length, scratch)
      assert.equal(scratch.toString('latin1', 0, length), text)
    }
  })

  it('decodes the empty string, and refuses a lone full octet of padding', () => {
    assert.equal(huffmanDecode(Buffer.alloc(0), 0, 0, Buffer.alloc(0)), 0)
    assert.equal(huffmanDecode(Buffer.from([0xff]), 0, 1, Buffer.alloc(2)), -1)
  })
})
