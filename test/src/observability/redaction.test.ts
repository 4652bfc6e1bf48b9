import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  describeUrl, isCredentialHeader, REDACTED, redactHead, redactHeaders, sensitiveHeaderNames,
  showHeaderValue, showOrigin, showRequest, showUrl
} from '../../../src/observability/redaction.js'

const names = sensitiveHeaderNames(['X-Proxy-Extra', 42])

describe('header redaction', () => {
  it('treats credential headers by name and by convention as secret, in any case', () => {
    for (const name of ['authorization', 'Proxy-Authorization', 'cookie', 'Set-Cookie', 'x-api-key', 'api-key', 'X-Auth-Token', 'private-token', 'x-amz-security-token', 'x-session-id', 'x-client-secret']) {
      assert.equal(isCredentialHeader(name), true, name)
    }
    for (const name of ['accept', 'content-type', 'keep-alive', 'www-authenticate', 'x-request-id', 'monkey', 'cache-control']) {
      assert.equal(isCredentialHeader(name), false, name)
    }
  })

  it('gives the same verdict for a name asked about again, and after many made-up names', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(isCredentialHeader('traceparent'), false)
      assert.equal(isCredentialHeader('X-Upload-Token'), true)
    }
    // More distinct names than the verdicts kept: the ones past the bound are still judged.
    for (let i = 0; i < 600; i++) {
      assert.equal(isCredentialHeader(`x-made-up-${i}`), false)
      assert.equal(isCredentialHeader(`x-made-up-${i}-key`), true)
    }
    assert.equal(isCredentialHeader('Authorization'), true)
    assert.equal(isCredentialHeader('x-later-secret'), true)
    assert.equal(isCredentialHeader('x-later-name'), false)
  })

  it('keeps the extra names a layer gives, lower-cased, and ignores non-strings', () => {
    assert.deepEqual([...sensitiveHeaderNames(undefined)], [])
    assert.deepEqual([...names], ['x-proxy-extra'])
  })

  it('redacts records, flat arrays, pairs and iterables, keeping their form', () => {
    assert.deepEqual(redactHeaders({ 'Proxy-Authorization': 'Basic c2VjcmV0', a: '1', 'x-proxy-extra': ['k1', 'k2'], cookie: 'sid=1' }, names),
      { 'Proxy-Authorization': REDACTED, a: '1', 'x-proxy-extra': [REDACTED, REDACTED], cookie: REDACTED })
    assert.deepEqual(redactHeaders(['a', '1', 'authorization', 'secret'], names), ['a', '1', 'authorization', REDACTED])
    assert.deepEqual(redactHeaders([['a', '1'], ['X-PROXY-EXTRA', 'secret']] as never, names), [['a', '1'], ['X-PROXY-EXTRA', REDACTED]])
    assert.deepEqual(redactHeaders(new Map([['x-api-key', 'secret'], ['a', '1']]) as never), [['x-api-key', REDACTED], ['a', '1']])
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
    const head = 'CONNECT a:443 HTTP/1.1\r\nhost: a:443\r\nProxy-Authorization: Basic c2VjcmV0\r\nx-proxy-extra: k\r\nx-other: proxy-authorization: no\r\n\r\n'
    assert.equal(redactHead(head, names), `CONNECT a:443 HTTP/1.1\r\nhost: a:443\r\nProxy-Authorization: ${REDACTED}\r\nx-proxy-extra: ${REDACTED}\r\nx-other: proxy-authorization: no\r\n\r\n`)
    const clean = 'GET / HTTP/1.1\r\nhost: a\r\n\r\n'
    assert.equal(redactHead(clean, names), clean)
  })

  it('shows a header value unless it is a credential', () => {
    assert.equal(showHeaderValue('accept', ['a', 'b']), 'a, b')
    assert.equal(showHeaderValue('Authorization', 'Bearer t0k3n'), REDACTED)
    assert.equal(showHeaderValue('x-proxy-extra', 'v', names), REDACTED)
  })
})

describe('URL rendering', () => {
  it('hides user information of URLs, origins and requests', () => {
    assert.equal(showUrl('http://u:pw@h:1/p?q'), 'http://***@h:1/p?q')
    assert.equal(showUrl(new URL('http://u:pw@h:1/p?q')), 'http://***@h:1/p?q')
    assert.equal(showOrigin('http://u:pw@h:1/'), 'http://***@h:1')
    assert.equal(showOrigin(new URL('http://u:pw@h:1/')), 'http://h:1')
    assert.equal(showOrigin(undefined), '')
    assert.equal(showRequest({ method: 'GET', origin: 'http://alice:pw@h', path: '/x' }), 'GET http://***@h/x')
    assert.equal(describeUrl('http://u:pw@h'), '"http://***@h"')
  })

  it('never shows the password of any URL with user information (property)', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/)
    fc.assert(fc.property(word, word.map((w) => `P${w}`), fc.constantFrom('http', 'https', 'socks5'), fc.stringMatching(/^[/?#a-z0-9@:]{0,12}$/), (user, password, scheme, rest) => {
      const text = `${scheme}://${user}:${password}@127.0.0.1:8080/${rest}`
      for (const shown of [showUrl(text), showOrigin(text), showRequest({ origin: text, path: '/' }), describeUrl(text)]) {
        assert.ok(!shown.includes(password), shown)
      }
      const url = new URL(`${scheme}://${user}:${password}@127.0.0.1:8080/`)
      assert.ok(!showUrl(url).includes(password))
      assert.ok(!showOrigin(url).includes(password))
    }))
  })
})
