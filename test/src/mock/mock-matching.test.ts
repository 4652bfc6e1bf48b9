import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { findMatch, matchPath, matchValue, normalizeInterceptPath, removeTrailingSlash, sortQuery } from '../../../src/mock/mock-matching.js'
import { serializePathWithQuery } from '../../../src/replay/path-with-query.js'
import type { MockKey } from '../../../src/mock/mock-matching.js'

const key = (path: MockKey['path'], extra: Partial<MockKey> = {}): { key: MockKey } => ({ key: { path, method: 'GET', ignoreTrailingSlash: false, ...extra } })
const segment = fc.stringMatching(/^[a-z0-9]{1,6}$/)
const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`)
const queryArb = fc.dictionary(segment, segment, { maxKeys: 4 })

describe('mock matching', () => {
  it('matches strings exactly, RegExps by test (even with the g flag), functions by a true result', () => {
    assert.equal(matchValue('a', 'a'), true)
    assert.equal(matchValue('a', 'A'), false)
    const global = /a/g
    assert.equal(matchValue(global, 'a'), true)
    assert.equal(matchValue(global, 'a'), true)
    assert.equal(matchValue((v: string) => v.length === 1, 'x'), true)
    assert.equal(matchValue(() => 'yes' as unknown as boolean, 'x'), false)
    assert.equal(matchValue(/x/, undefined), false)
  })

  it('ignores the order of query parameters (property)', () => {
    fc.assert(fc.property(pathArb, queryArb, (path, query) => {
      const entries = Object.entries(query)
      const forward = serializePathWithQuery(path, Object.fromEntries(entries))
      const backward = serializePathWithQuery(path, Object.fromEntries([...entries].reverse()))
      assert.equal(sortQuery(forward), sortQuery(backward))
      assert.ok(matchPath(key(forward).key, sortQuery(backward)))
    }))
  })

  it('removes trailing slashes from the path only, never producing an empty path (property)', () => {
    fc.assert(fc.property(pathArb, fc.nat({ max: 3 }), queryArb, (path, slashes, query) => {
      const withSlashes = serializePathWithQuery(path + '/'.repeat(slashes), query)
      const stripped = removeTrailingSlash(withSlashes)
      assert.equal(stripped, serializePathWithQuery(path, query))
      assert.equal(removeTrailingSlash('/'.repeat(slashes + 1)), '/')
    }))
  })

  it('drops the fragment of an intercepted path, as clients never send it', () => {
    assert.equal(normalizeInterceptPath('/a?b=1#frag', undefined), '/a?b=1')
    assert.equal(normalizeInterceptPath('/a', { b: [1, 2], c: undefined }), '/a?b=1&b=2')
  })

  it('reports the stage at which every candidate dropped out', () => {
    const request = { path: '/a', method: 'POST', body: 'x', headers: { 'x-h': '1' } }
    assert.equal(findMatch([key('/b')], request).stage, 'path')
    assert.equal(findMatch([key('/a')], request).stage, 'method')
    assert.equal(findMatch([key('/a', { method: 'POST', body: 'y' })], request).stage, 'body')
    assert.equal(findMatch([key('/a', { method: 'POST', headers: { 'X-H': '2' } })], request).stage, 'headers')
    const hit = key('/a', { method: 'POST', body: 'x', headers: { 'X-H': '1' } })
    assert.equal(findMatch([key('/b'), hit], request).match, hit)
  })
})
