import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { copyOptions } from '../../../src/runtime/copy-options.js'

describe('copyOptions', () => {
  it('copies own enumerable keys, symbols included, as spread does, and leaves the source alone', () => {
    const tag = Symbol('tag')
    const source = { origin: 'http://127.0.0.1:1', path: '/', method: 'GET', [tag]: 'kept', headers: { a: '1' } }
    const copy = copyOptions(source)
    assert.notEqual(copy, source)
    assert.deepEqual(copy, { ...source })
    assert.equal(copy[tag], 'kept')
    assert.equal(copy.headers, source.headers, 'shallow, as spread')
    ;(copy as Record<string, unknown>).deadlineMs = 5
    copy.method = 'POST'
    assert.equal(source.method, 'GET')
    assert.equal('deadlineMs' in source, false)
  })

  it('reads getters once and copies their values, skipping inherited and non-enumerable keys, as spread does', () => {
    let reads = 0
    const proto = { inherited: 1 }
    const source = Object.create(proto, {
      own: { value: 'yes', enumerable: true },
      hidden: { value: 'no', enumerable: false },
      computed: { get: () => ++reads, enumerable: true }
    }) as Record<string, unknown>
    const copy = copyOptions(source)
    assert.equal(reads, 1)
    assert.equal(copy.computed, 1)
    assert.equal(reads, 1, 'the copy holds the value, not the getter')
    assert.deepEqual(Object.keys(copy), Object.keys({ ...source }))
    assert.equal(Object.getOwnPropertyDescriptor(copy, 'computed')?.get, undefined)
    assert.equal('inherited' in copy, false)
    assert.equal('hidden' in copy, false)
  })

  it('keeps an own "__proto__" key an own key, never the copy\'s prototype', () => {
    const parsed = JSON.parse('{"path":"/","__proto__":{"polluted":true}}') as Record<string, unknown>
    const copy = copyOptions(parsed)
    assert.equal(Object.getPrototypeOf(copy), Object.prototype)
    assert.equal(copy.polluted, undefined)
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true })
    assert.deepEqual(copy, { ...parsed })
  })

  it('gives the same object as a spread for any plain options object', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null))), (source) => {
      assert.deepEqual(copyOptions(source), { ...source })
    }))
  })
})
