import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Utf8Validator, isValidUtf8 } from '../../../src/websocket/utf8.js'

function decodes (bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/** Bytes close to UTF-8: valid text with a few bytes changed or cut off. */
const nearUtf8 = fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }), fc.nat())
  .map(([text, edits, trim]) => {
    const bytes = Buffer.from(text)
    for (const [at, value] of edits) if (bytes.length > 0) bytes[at % bytes.length] = value
    return bytes.subarray(0, bytes.length - (bytes.length === 0 ? 0 : trim % 3))
  })

describe('the UTF-8 validator', () => {
  it('agrees with a fatal TextDecoder on any bytes, however they are split', () => {
    fc.assert(fc.property(fc.oneof(nearUtf8, fc.uint8Array({ maxLength: 40 })), fc.array(fc.nat(), { maxLength: 4 }), (bytes, cuts) => {
      const expected = decodes(bytes)
      assert.equal(isValidUtf8(bytes), expected)
      const validator = new Utf8Validator()
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      let last = 0
      let ok = true
      for (const point of [...points, bytes.length]) {
        ok = validator.write(bytes.subarray(last, point)) && ok
        last = point
      }
      ok = validator.end() && ok
      assert.equal(ok, expected)
    }), { numRuns: 2000 })
  })

  it('fails at the first fragment that cannot be UTF-8, before the message ends', () => {
    const validator = new Utf8Validator()
    assert.equal(validator.write(Buffer.from('hello ')), true)
    assert.equal(validator.write(Buffer.from([0xce, 0xba, 0xe1])), true)
    assert.equal(validator.write(Buffer.from([0xed, 0xa0, 0x80])), false)
  })

  it('refuses overlong forms, surrogates and code points past U+10FFFF', () => {
    for (const bytes of [[0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80]]) {
      const validator = new Utf8Validator()
      assert.equal(validator.write(Buffer.from(bytes)) && validator.end(), false, Buffer.from(bytes).toString('hex'))
    }
  })
})
