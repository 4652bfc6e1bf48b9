import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { forgivingBase64, parseDataUrl, percentDecode } from '../../../src/fetch/data-url.js'

describe('data: URLs', () => {
  it('decodes a plain data URL with its MIME type', () => {
    const data = parseDataUrl(new URL('data:text/html;charset=utf-8,%3Cb%3Ehi%3C%2Fb%3E'))!
    assert.equal(data.mimeType, 'text/html;charset=utf-8')
    assert.equal(data.body.toString(), '<b>hi</b>')
  })

  it('decodes base64 and defaults the type to text/plain;charset=US-ASCII', () => {
    const data = parseDataUrl(new URL('data:;base64,aGVsbG8='))!
    assert.equal(data.mimeType, 'text/plain;charset=US-ASCII')
    assert.equal(data.body.toString(), 'hello')
    assert.equal(parseDataUrl(new URL('data:,x'))!.mimeType, 'text/plain;charset=US-ASCII')
  })

  it('ignores the fragment', () => {
    assert.equal(parseDataUrl(new URL('data:,abc#frag'))!.body.toString(), 'abc')
  })

  it('returns null for a URL without a comma or with invalid base64', () => {
    assert.equal(parseDataUrl(new URL('data:text/plain')), null)
    assert.equal(parseDataUrl(new URL('data:;base64,a')), null)
    assert.equal(parseDataUrl(new URL('http://127.0.0.1/')), null)
  })

  it('round-trips any bytes through base64 (property)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
      const url = new URL(`data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`)
      assert.deepEqual(new Uint8Array(parseDataUrl(url)!.body), bytes)
    }))
  })

  it('percent-decodes any bytes it percent-encoded (property)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
      const encoded = [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')
      assert.deepEqual(new Uint8Array(percentDecode(encoded)), bytes)
    }))
  })

  it('forgiving base64 accepts whitespace and rejects other characters', () => {
    assert.equal(forgivingBase64(' aGV s bG8 = ')!.toString(), 'hello')
    assert.equal(forgivingBase64('a*b='), null)
  })
})
