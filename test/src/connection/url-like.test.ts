import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { toUrl } from '../../../src/connection/url-like.js'

const segment = fc.stringMatching(/^[a-z0-9._~-]{1,8}$/)
const pathArb = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`)
const searchArb = fc.option(fc.array(fc.tuple(segment, segment), { minLength: 1, maxLength: 3 }).map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`), { nil: '' })
const portArb = fc.integer({ min: 1, max: 65535 })

describe('URL-like objects', () => {
  it('read origin plus pathname and search as the URL of their concatenation (property)', () => {
    fc.assert(fc.property(fc.constantFrom('http:', 'https:'), portArb, pathArb, searchArb, (protocol, port, pathname, search) => {
      const origin = `${protocol}//127.0.0.1:${port}`
      assert.equal(toUrl('t', { origin, pathname, search }).href, new URL(`${origin}${pathname}${search}`).href)
      assert.equal(toUrl('t', { protocol, hostname: '127.0.0.1', port, path: `${pathname}${search}` }).href, new URL(`${origin}${pathname}${search}`).href)
    }))
  })

  it('prefix a path without a leading slash and default the port by protocol', () => {
    assert.equal(toUrl('t', { origin: 'http://127.0.0.1:8080/', path: 'a/b?c=1' }).href, 'http://127.0.0.1:8080/a/b?c=1')
    assert.equal(toUrl('t', { protocol: 'https:', hostname: 'example.test' }).origin, 'https://example.test')
    assert.equal(toUrl('t', { protocol: 'http:', hostname: 'example.test' }).port, '')
  })

  it('refuse other protocols, naming the value', () => {
    assert.throws(() => toUrl('who()', { protocol: 'file:', hostname: 'x' }), { code: 'LIB_ERR_INVALID_ARG', message: 'who(): the URL must be http: or https:, got "file:"' })
    assert.throws(() => toUrl('who()', new URL('ws://127.0.0.1')), { code: 'LIB_ERR_INVALID_ARG', message: 'who(): the URL must be http: or https:, got "ws://127.0.0.1/"' })
  })
})
