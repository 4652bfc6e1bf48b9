import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { mimeEssence, parseMimeType, serializeMimeType } from '../../../src/fetch/mime.js'

describe('MIME type parsing', () => {
  it('lower-cases the essence and parameter names, keeping parameter values', () => {
    const mime = parseMimeType(' Text/HTML ; Charset="UTF-8" ; q=1')!
    assert.equal(mime.type, 'text')
    assert.equal(mime.subtype, 'html')
    assert.equal(mime.parameters.get('charset'), 'UTF-8')
    assert.equal(serializeMimeType(mime), 'text/html;charset=UTF-8;q=1')
  })

  it('reads the boundary of a multipart type', () => {
    assert.equal(parseMimeType('multipart/form-data; boundary=----abc')!.parameters.get('boundary'), '----abc')
  })

  it('quotes parameter values that are not tokens', () => {
    assert.equal(serializeMimeType(parseMimeType('a/b; x="has space"')!), 'a/b;x="has space"')
  })

  it('returns null for strings that are not MIME types', () => {
    for (const input of ['', 'text', '/html', 'text/', 'te xt/html', 'text/ht ml']) assert.equal(parseMimeType(input), null, input)
    assert.equal(mimeEssence('nonsense'), '')
    assert.equal(mimeEssence(null), '')
  })

  it('keeps the first of repeated parameters', () => {
    assert.equal(parseMimeType('a/b;x=1;x=2')!.parameters.get('x'), '1')
  })

  it('parses its own serialization back to the same value (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (input) => {
      const first = parseMimeType(input)
      if (first === null) return
      const again = parseMimeType(serializeMimeType(first))
      assert.deepEqual(again, first)
    }), { numRuns: 500 })
  })

  it('round-trips generated types with token and quoted parameters (property)', () => {
    const token = fc.stringMatching(/^[a-z0-9!#$&^_.+-]{1,10}$/)
    const value = fc.stringMatching(/^[ -~]{0,12}$/).filter((v) => v !== '' && !v.includes('"') && !v.includes('\\') && v.trim() === v)
    fc.assert(fc.property(token, token, fc.dictionary(token, value, { maxKeys: 4 }), (type, subtype, params) => {
      const text = `${type}/${subtype}${Object.entries(params).map(([k, v]) => `;${k}="${v}"`).join('')}`
      const parsed = parseMimeType(text)!
      assert.equal(parsed.type, type)
      assert.equal(parsed.subtype, subtype)
      for (const [k, v] of Object.entries(params)) assert.equal(parsed.parameters.get(k), v)
    }))
  })
})
