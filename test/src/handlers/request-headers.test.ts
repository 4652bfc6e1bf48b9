import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { normalizeHeaders, getRequestHeader } from '../../../src/handlers/request-headers.js'

describe('normalizeHeaders', () => {
  it('reads records, flat arrays and pairs to the same lower-case record', () => {
    const expected = { 'content-type': 'text/plain', accept: ['a', 'b'] }
    assert.deepEqual(normalizeHeaders({ 'Content-Type': 'text/plain', Accept: ['a', 'b'] }), expected)
    assert.deepEqual(normalizeHeaders(['Content-Type', 'text/plain', 'accept', 'a', 'ACCEPT', 'b']), expected)
    assert.deepEqual(normalizeHeaders([['content-type', 'text/plain'], ['accept', 'a'], ['accept', 'b']] as never), expected)
    assert.deepEqual(normalizeHeaders(new Map([['Content-Type', 'text/plain']])), { 'content-type': 'text/plain' })
  })

  it('drops undefined and null values and stringifies numbers', () => {
    assert.deepEqual(normalizeHeaders({ a: undefined, b: null, c: 3 }), { c: '3' })
    assert.deepEqual(normalizeHeaders(null), {})
  })

  it('reads an iterable of pairs as a record: array values repeat the field, undefined ones are dropped', () => {
    const pairs = new Map<string, string | string[] | undefined>([['Accept', ['a', 'b']], ['X-Gone', undefined], ['X-One', '1']])
    assert.deepEqual(normalizeHeaders(pairs), { accept: ['a', 'b'], 'x-one': '1' })
  })

  it('rejects a flat array with an odd length, naming the length', () => {
    assert.throws(() => normalizeHeaders(['a', 'b', 'c']), { code: 'LIB_ERR_INVALID_ARG', message: /got 3/ })
  })

  it('finds any header case-insensitively, joining repeats', () => {
    assert.equal(getRequestHeader(['X-A', '1', 'x-a', '2'], 'x-A'), '1, 2')
    assert.equal(getRequestHeader({ b: '1' }, 'a'), undefined)
    assert.equal(getRequestHeader(undefined, 'a'), undefined)
  })

  it('gives the same record for a flat array and the equivalent record (property)', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/)
    fc.assert(fc.property(fc.dictionary(name, fc.string({ maxLength: 20 })), (record) => {
      const flat = Object.entries(record).flat()
      assert.deepEqual(normalizeHeaders(flat), normalizeHeaders(record))
    }))
  })
})
