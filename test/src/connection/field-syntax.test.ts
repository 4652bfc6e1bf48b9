import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { INVALID_VALUE_RE, TOKEN_RE, hasInvalidValueChar, lowerFieldName } from '../../../src/connection/field-syntax.js'

// Strings mixing token characters, separators, controls, latin1 and beyond, so both verdicts come up often.
const fieldText = fc.array(fc.oneof(
  fc.constantFrom('a', 'Z', '0', '-', '!', '~', ' ', '\t', ':', '"', '\r', '\n', '\0', '\x7f', '\x80', '\xff', '\u0100', '\u2028', '\ud83d'),
  fc.string({ maxLength: 3 })
), { maxLength: 12 }).map((parts) => parts.join(''))

describe('field syntax fast paths', () => {
  it('hasInvalidValueChar() agrees with INVALID_VALUE_RE on any text', () => {
    fc.assert(fc.property(fieldText, (text) => {
      assert.equal(hasInvalidValueChar(text), INVALID_VALUE_RE.test(text))
    }), { numRuns: 2000 })
  })

  it('lowerFieldName() gives the lower-cased name for tokens and null for anything else, asked once or twice', () => {
    fc.assert(fc.property(fieldText, (text) => {
      const expected = TOKEN_RE.test(text) ? text.toLowerCase() : null
      assert.equal(lowerFieldName(text), expected)
      assert.equal(lowerFieldName(text), expected)
    }), { numRuns: 2000 })
  })

  it('keeps answering correctly once its cache of checked names is full', () => {
    for (let i = 0; i < 600; i++) assert.equal(lowerFieldName(`X-Made-Up-${i}`), `x-made-up-${i}`)
    assert.equal(lowerFieldName('Bad Name'), null)
    assert.equal(lowerFieldName('Accept'), 'accept')
  })
})
