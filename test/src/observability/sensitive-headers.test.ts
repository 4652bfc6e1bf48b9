import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { REDACTED, redactHead, redactHeaders, sensitiveHeaderNames } from '../../../src/observability/sensitive-headers.js'

const names = sensitiveHeaderNames(['X-Proxy-Key', 42])

describe('sensitive header redaction', () => {
  it('always hides proxy-authorization and adds the extra names a layer gives, lower-cased', () => {
    assert.deepEqual([...sensitiveHeaderNames(undefined)], ['proxy-authorization'])
    assert.deepEqual([...names], ['proxy-authorization', 'x-proxy-key'])
  })

  it('redacts records, flat arrays, pairs and iterables, keeping their form', () => {
    assert.deepEqual(redactHeaders({ 'Proxy-Authorization': 'Basic c2VjcmV0', a: '1', 'x-proxy-key': ['k1', 'k2'] }, names),
      { 'Proxy-Authorization': REDACTED, a: '1', 'x-proxy-key': [REDACTED, REDACTED] })
    assert.deepEqual(redactHeaders(['a', '1', 'proxy-authorization', 'secret'], names), ['a', '1', 'proxy-authorization', REDACTED])
    assert.deepEqual(redactHeaders([['a', '1'], ['X-PROXY-KEY', 'secret']] as never, names), [['a', '1'], ['X-PROXY-KEY', REDACTED]])
    assert.deepEqual(redactHeaders(new Map([['proxy-authorization', 'secret'], ['a', '1']]) as never, names), [['proxy-authorization', REDACTED], ['a', '1']])
  })

  it('returns headers without secrets as the same object, and leaves the original untouched', () => {
    const clean = { a: '1' }
    assert.equal(redactHeaders(clean, names), clean)
    const flat = ['a', '1']
    assert.equal(redactHeaders(flat, names), flat)
    const pairs = [['a', '1']] as never
    assert.equal(redactHeaders(pairs, names), pairs)
    const secret = { 'proxy-authorization': 'secret' }
    redactHeaders(secret, names)
    assert.equal(secret['proxy-authorization'], 'secret')
    assert.equal(redactHeaders(null, names), null)
  })

  it('redacts header lines of a serialized head, and only those', () => {
    const head = 'CONNECT a:443 HTTP/1.1\r\nhost: a:443\r\nProxy-Authorization: Basic c2VjcmV0\r\nx-proxy-key: k\r\nx-other: proxy-authorization: no\r\n\r\n'
    assert.equal(redactHead(head, names), `CONNECT a:443 HTTP/1.1\r\nhost: a:443\r\nProxy-Authorization: ${REDACTED}\r\nx-proxy-key: ${REDACTED}\r\nx-other: proxy-authorization: no\r\n\r\n`)
    const clean = 'GET / HTTP/1.1\r\nhost: a\r\n\r\n'
    assert.equal(redactHead(clean, names), clean)
  })
})
