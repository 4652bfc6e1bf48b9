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

  it('agrees with the runtime fetch on generated data: URLs (property)', async () => {
    const mime = fc.oneof(fc.constant(''), fc.constantFrom('text/plain', 'TEXT/HTML;Charset=UTF-8', ';charset=utf-8', 'image/png', 'bad', 'a/b;x="q r"', ' text/plain '))
    const base64 = fc.constantFrom('', ';base64', ';BASE64', ' ;base64')
    const body = fc.oneof(fc.stringMatching(/^[A-Za-z0-9+/= %]{0,24}$/), fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64')))
    await fc.assert(fc.asyncProperty(mime, base64, body, async (m, b, content) => {
      let url: URL
      try {
        url = new URL(`data:${m}${b},${content}`)
      } catch {
        return
      }
      const mine = parseDataUrl(url)
      let theirs: { type: string, bytes: number[] } | null
      try {
        const response = await globalThis.fetch(url)
        theirs = { type: response.headers.get('content-type')!, bytes: [...new Uint8Array(await response.arrayBuffer())] }
      } catch {
        theirs = null
      }
      assert.deepEqual(mine === null ? null : { type: mine.mimeType, bytes: [...mine.body] }, theirs, url.href)
    }), { numRuns: 200 })
  })
})

