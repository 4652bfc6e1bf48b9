import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { REDIRECT_STATUSES, headersDroppedByRedirect, redirectLocation, redirectsToGet } from '../../src/redirect/rules.js'
import { isStrongEtag, partialLengthMismatch } from '../../interceptors/retry/resume.js'

const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS')

describe('redirect rules shared by fetch and the redirect interceptor', () => {
  it('keep method and body on 307 and 308, and never rewrite GET or HEAD (property)', () => {
    fc.assert(fc.property(fc.constantFrom(...REDIRECT_STATUSES), method, (status, m) => {
      const toGet = redirectsToGet(status, m)
      if (status === 307 || status === 308 || m === 'GET' || m === 'HEAD') assert.equal(toGet, false)
      if (status === 303 && m !== 'GET' && m !== 'HEAD') assert.equal(toGet, true)
      if ((status === 301 || status === 302)) assert.equal(toGet, m === 'POST')
    }))
  })

  it('drop body headers only with the body, and credentials and Host only across origins (property)', () => {
    fc.assert(fc.property(fc.boolean(), fc.boolean(), (toGet, crossOrigin) => {
      const dropped = headersDroppedByRedirect(toGet, crossOrigin)
      assert.equal(dropped.includes('content-type'), toGet)
      assert.equal(dropped.includes('authorization'), crossOrigin)
      assert.equal(dropped.includes('cookie'), crossOrigin)
      assert.equal(dropped.includes('host'), crossOrigin)
    }))
  })

  it('resolve a relative Location against the current URL, keeping its fragment, and read UTF-8 sent as Latin-1', () => {
    const base = new URL('http://a.test/dir/page#frag')
    assert.equal(redirectLocation({ location: 'next?x=1' }, base)!.href, 'http://a.test/dir/next?x=1#frag')
    assert.equal(redirectLocation({ location: Buffer.from('/café', 'utf8').toString('latin1') }, base)!.pathname, '/caf%C3%A9')
    assert.equal(redirectLocation({}, base), null)
  })
})

describe('retry entity tags and first partial answers', () => {
  const etagc = fc.stringMatching(/^[\x21\x23-\x7e]+$/)

  it('take quoted and bare tags as strong and W/ tags as weak (property)', () => {
    fc.assert(fc.property(etagc, (tag) => {
      assert.equal(isStrongEtag(`"${tag}"`), true)
      assert.equal(isStrongEtag(`W/"${tag}"`), false)
      assert.equal(isStrongEtag(tag), !tag.startsWith('W/'))
    }))
    assert.equal(isStrongEtag('two words'), false)
    assert.equal(isStrongEtag(''), false)
  })

  it('find a Content-Length that disagrees with a Content-Range (property)', () => {
    fc.assert(fc.property(fc.nat(1000), fc.nat(1000), fc.nat(2000), (start, span, length) => {
      const end = start + span
      const headers = { 'content-range': `bytes ${start}-${end}/*`, 'content-length': String(length) }
      assert.equal(partialLengthMismatch(headers) === undefined, length === span + 1)
    }))
  })
})
