import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { varyMatches } from '../../stores/vary-match.js'

const name = fc.constantFrom('accept', 'accept-encoding', 'accept-language', 'x-a', 'x-b')
const headerValue = fc.oneof(fc.constantFrom('gzip', 'br', 'en', 'fr', ''), fc.array(fc.constantFrom('a', 'b'), { minLength: 1, maxLength: 3 }))

describe('varyMatches()', () => {
  it('matches everything when there is no Vary map', () => {
    assert.equal(varyMatches(undefined, { accept: 'x' }), true)
    assert.equal(varyMatches(undefined, undefined), true)
  })

  it('matches exactly when every named header has the recorded value, null meaning absent', () => {
    fc.assert(fc.property(
      fc.dictionary(name, fc.option(headerValue)),
      fc.dictionary(name, headerValue),
      (vary, headers) => {
        const expected = Object.keys(vary).every((header) => {
          const recorded = vary[header]
          const current = headers[header]
          if (recorded === null) return current === undefined
          return current !== undefined && JSON.stringify([recorded].flat()) === JSON.stringify([current].flat())
        })
        assert.equal(varyMatches(vary, headers), expected)
      }
    ))
  })

  it('always selects a response for the very request it was stored from', () => {
    fc.assert(fc.property(fc.uniqueArray(name), fc.dictionary(name, headerValue), (names, headers) => {
      const vary = Object.fromEntries(names.map((header) => [header, headers[header] ?? null]))
      assert.equal(varyMatches(vary, headers), true)
    }))
  })
})
