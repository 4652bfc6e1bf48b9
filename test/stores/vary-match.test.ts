import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { normalizeVaryValue, varyMatches } from '../../stores/vary-match.js'

const name = fc.constantFrom('accept', 'accept-encoding', 'accept-language', 'x-a', 'x-b')
const headerValue = fc.oneof(fc.constantFrom('gzip', 'br', 'en', 'fr', ''), fc.array(fc.constantFrom('a', 'b'), { minLength: 1, maxLength: 3 }))

describe('varyMatches()', () => {
  it('matches everything when there is no Vary map', () => {
    assert.equal(varyMatches(undefined, { accept: 'x' }), true)
    assert.equal(varyMatches(undefined, undefined), true)
  })

  it('matches when every named header has the recorded value in normalized form, null meaning absent', () => {
    fc.assert(fc.property(
      fc.dictionary(name, fc.option(headerValue)),
      fc.dictionary(name, headerValue),
      (vary, headers) => {
        const expected = Object.keys(vary).every((header) => {
          const recorded = vary[header]
          const current = headers[header]
          if (recorded === null) return current === undefined
          return current !== undefined && normalizeVaryValue(header, recorded) === normalizeVaryValue(header, current)
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

  it('ignores whitespace, case and order of content-negotiation list members', () => {
    const token = fc.constantFrom('gzip', 'br', 'deflate', 'en-US', 'fr;q=0.5', 'text/html', '*/*;q=0.1')
    const space = fc.constantFrom('', ' ', '  ', '\t')
    fc.assert(fc.property(fc.constantFrom('accept', 'accept-encoding', 'accept-language', 'accept-charset'), fc.uniqueArray(token, { minLength: 1, maxLength: 5 }), space, fc.boolean(), (header, members, pad, upper) => {
      const written = members.map((m) => upper ? m.toUpperCase() : m)
      const shuffled = [...written].reverse().map((m) => m.replace(';', `${pad};${pad}`))
      assert.equal(varyMatches({ [header]: written.join(', ') }, { [header]: shuffled.join(`${pad},${pad}`) }), true)
    }))
  })

  it('keeps case and order for other fields, where they may be the whole meaning', () => {
    assert.equal(varyMatches({ cookie: 'id=ABC' }, { cookie: 'id=abc' }), false)
    assert.equal(varyMatches({ 'x-list': 'a, b' }, { 'x-list': 'b, a' }), false)
    assert.equal(varyMatches({ 'x-list': 'a, b' }, { 'x-list': ['a', ' b '] }), true)
    assert.equal(varyMatches({ cookie: 'a=1; b=2' }, { cookie: 'a=1;b=2' }), true)
  })

  it('does not split inside quoted strings', () => {
    assert.equal(normalizeVaryValue('accept', 'text/plain;x="b, a"'), 'text/plain;x="b, a"')
  })
})
