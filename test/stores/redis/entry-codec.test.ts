import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { decodeMeta, encodeMeta, parseTags } from '../../../stores/redis/entry-codec.js'
import { variantSuffix } from '../../../stores/redis/key-layout.js'
import type { CacheValue } from '../../../src/contracts/cache-store.js'

const headerValue = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))
const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/)

const cacheValueArb: fc.Arbitrary<CacheValue> = fc.record({
  statusCode: fc.integer({ min: 100, max: 599 }),
  statusMessage: fc.string(),
  headers: fc.dictionary(headerName, headerValue),
  vary: fc.option(fc.dictionary(headerName, fc.oneof(fc.constant(null), headerValue)), { nil: undefined }),
  etag: fc.option(fc.string(), { nil: undefined }),
  cachedAt: fc.integer({ min: 0, max: 2 ** 45 }),
  staleAt: fc.integer({ min: 0, max: 2 ** 45 }),
  deleteAt: fc.integer({ min: 0, max: 2 ** 45 })
}, { requiredKeys: ['statusCode', 'statusMessage', 'headers', 'cachedAt', 'staleAt', 'deleteAt'] })

describe('Redis entry codec', () => {
  it('decodes exactly what it encoded, for any metadata', () => {
    fc.assert(fc.property(cacheValueArb, fc.stringMatching(/^[0-9a-f]{12}$/), (value, writeId) => {
      const stored = encodeMeta(value, writeId)
      const decoded = decodeMeta('GET:-', stored)
      assert.equal(decoded.writeId, writeId)
      assert.deepEqual(decoded.value, JSON.parse(JSON.stringify(value)))
      assert.equal(decoded.size, stored.length)
    }))
  })

  it('starts the stored form with the write id on a line of its own', () => {
    fc.assert(fc.property(cacheValueArb, (value) => {
      const stored = encodeMeta(value, 'abc')
      assert.equal(stored.slice(0, stored.indexOf('\n')), 'abc')
    }))
  })

  it('rejects a damaged stored form with a TypeError naming the variant', () => {
    for (const bad of ['', 'no newline', 'id\nnot json', 'id\n{"statusCode":"200"}', 'id\nnull']) {
      assert.throws(() => decodeMeta('GET:x', bad), (err: Error) => err instanceof TypeError || err instanceof SyntaxError)
    }
    assert.throws(() => decodeMeta('GET:x', 'nothing'), /damaged metadata of variant GET:x/)
  })

  it('parses comma-separated tags from one or several header lines, trimmed and without repeats', () => {
    assert.deepEqual(parseTags({ 'cache-tags': ' a, b ,,a' }, 'cache-tags'), ['a', 'b'])
    assert.deepEqual(parseTags({ 'cache-tags': ['x', 'y, x'] }, 'cache-tags'), ['x', 'y'])
    assert.deepEqual(parseTags({}, 'cache-tags'), [])
    assert.deepEqual(parseTags({ 'cache-tags': 'a' }, null), [])
    fc.assert(fc.property(fc.array(fc.string(), { maxLength: 5 }), (lines) => {
      const tags = parseTags({ t: lines }, 't')
      assert.equal(new Set(tags).size, tags.length)
      for (const tag of tags) {
        assert.notEqual(tag, '')
        assert.equal(tag, tag.trim())
        assert.ok(!tag.includes(','))
      }
    }))
  })
})

describe('Redis variant naming', () => {
  it('names a variant by method and Vary values, whatever the order of the Vary names', () => {
    fc.assert(fc.property(fc.dictionary(headerName, fc.oneof(fc.constant(null), headerValue)), (vary) => {
      const reversed = Object.fromEntries(Object.entries(vary).reverse())
      assert.equal(variantSuffix('GET', vary), variantSuffix('GET', reversed))
      assert.notEqual(variantSuffix('GET', vary), variantSuffix('HEAD', vary))
    }))
  })

  it('gives different Vary values different names', () => {
    fc.assert(fc.property(headerName, headerValue, headerValue, (name, a, b) => {
      fc.pre(JSON.stringify(a) !== JSON.stringify(b))
      assert.notEqual(variantSuffix('GET', { [name]: a }), variantSuffix('GET', { [name]: b }))
    }))
    assert.notEqual(variantSuffix('GET', { a: null }), variantSuffix('GET', { a: '' }))
    assert.equal(variantSuffix('GET', {}), variantSuffix('GET', undefined))
  })
})
