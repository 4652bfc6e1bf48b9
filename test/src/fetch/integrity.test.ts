import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { matchesIntegrity, parseIntegrity } from '../../../src/fetch/integrity.js'

const digest = (algorithm: string, data: string | Uint8Array): string => `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`

describe('subresource integrity', () => {
  it('matches a body against sha256, sha384 and sha512 metadata', () => {
    for (const algorithm of ['sha256', 'sha384', 'sha512']) {
      assert.equal(matchesIntegrity(Buffer.from('body'), digest(algorithm, 'body')), true)
      assert.equal(matchesIntegrity(Buffer.from('other'), digest(algorithm, 'body')), false)
    }
  })

  it('checks only the strongest algorithm listed', () => {
    const metadata = `${digest('sha256', 'body')} ${digest('sha512', 'not the body')}`
    assert.equal(matchesIntegrity(Buffer.from('body'), metadata), false)
  })

  it('ignores unknown algorithms and options, and empty metadata matches anything', () => {
    assert.equal(matchesIntegrity(Buffer.from('x'), 'md5-abc'), true)
    assert.equal(matchesIntegrity(Buffer.from('x'), ''), true)
    assert.equal(parseIntegrity(`${digest('sha256', 'x')}?opt`).length, 1)
  })

  it('accepts base64url digests and missing padding', () => {
    const raw = createHash('sha384').update('body').digest('base64')
    const url = raw.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    assert.equal(matchesIntegrity(Buffer.from('body'), `sha384-${url}`), true)
  })

  it('matches exactly the bytes that were hashed (property)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
      assert.equal(matchesIntegrity(a, digest('sha256', b)), Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0)
    }))
  })
})
