import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { RetryHandler } from '../../../interceptors/retry/index.js'
import { checkResumed, parseContentRange, resumeHeaders, startResume } from '../../../interceptors/retry/resume.js'
import { DeliveredDigest, PrefixCheck } from '../../../interceptors/retry/restart.js'
import type { DispatchOptions } from '../../../src/handler.js'
import { Recorder, netError, scriptedDispatch } from './retry-harness.js'

function setup (t: TestContext, opts: Partial<DispatchOptions> = {}) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  const { dispatch, attempts } = scriptedDispatch()
  const recorder = new Recorder()
  const dispatchOpts: DispatchOptions = { origin: 'http://127.0.0.1:9', path: '/file', method: 'GET', ...opts }
  const handler = new RetryHandler({ ...dispatchOpts, retryOptions: { minTimeout: 10 } }, { dispatch, handler: recorder })
  dispatch(dispatchOpts, handler)
  return { attempts, recorder, last: () => attempts[attempts.length - 1]!, tick: (ms: number) => t.mock.timers.tick(ms) }
}

const first = { etag: '"v1"', 'content-length': '10' }

describe('RetryHandler resume', () => {
  it('resumes a body cut mid-way with Range and If-Match and delivers the exact bytes once', (t) => {
    const { attempts, recorder, last, tick } = setup(t, { headers: { 'x-keep': 'yes', range: 'bytes=0-' } })
    last().start().head(200, first).data('hello').error(netError('LIB_ERR_SOCKET'))
    tick(10)
    assert.equal(attempts.length, 2)
    assert.deepEqual(last().opts.headers, { 'x-keep': 'yes', range: 'bytes=5-9', 'if-match': '"v1"' })
    last().start().head(206, { etag: '"v1"', 'content-range': 'bytes 5-9/10', 'content-length': '5' }).data('world').end()
    assert.equal(recorder.text, 'helloworld')
    assert.deepEqual(recorder.events, ['start', 'head 200', 'data', 'data', 'end'])
  })

  it('resumes a resumed body again from where the second attempt stopped', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, first).data('he').error(netError('ECONNRESET'))
    tick(10)
    last().start().head(206, { etag: '"v1"', 'content-range': 'bytes 2-9/10' }).data('llo').error(netError('ECONNRESET'))
    tick(20)
    assert.equal((last().opts.headers as Record<string, string>).range, 'bytes=5-9')
    last().start().head(206, { etag: '"v1"', 'content-range': 'bytes 5-9/10' }).data('world').end()
    assert.equal(recorder.text, 'helloworld')
  })

  it('fails with LIB_ERR_REQ_RETRY instead of splicing when the ETag changed', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, first).data('hello').error(netError('LIB_ERR_SOCKET'))
    tick(10)
    last().start().head(206, { etag: '"v2"', 'content-range': 'bytes 5-9/10' }).data('WORLD')
    assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
    assert.match(recorder.error!.message, /ETag changed from "v1" to "v2"/)
    assert.equal(recorder.text, 'hello')
    assert.equal(last().aborts.length, 1)
  })

  it('fails when the server ignores Range and answers 200', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, first).data('hello').error(netError('LIB_ERR_SOCKET'))
    tick(10)
    last().start().head(200, first).data('helloworld')
    assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
    assert.match(recorder.error!.message, /expected 206 Partial Content, got 200/)
  })

  it('fails when the resource changed and If-Match answers 412', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, first).data('hello').error(netError('LIB_ERR_SOCKET'))
    tick(10)
    last().start().head(412)
    assert.match(recorder.error!.message, /resource changed/)
  })

  it('fails when the Content-Range does not start where the body stopped', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, first).data('hello').error(netError('LIB_ERR_SOCKET'))
    tick(10)
    last().start().head(206, { etag: '"v1"', 'content-range': 'bytes 0-9/10' })
    assert.match(recorder.error!.message, /starts at byte 0, expected 5/)
  })

  it('restarts a 200 without a strong ETag from the start, skipping the delivered bytes once they match', (t) => {
    const variants: Array<Record<string, string>> = [{ 'content-length': '10' }, { 'content-length': '10', etag: 'W/"v1"' }, {}]
    for (const headers of variants) {
      const { attempts, recorder, last, tick } = setup(t, { headers: { 'x-keep': 'yes' } })
      last().start().head(200, headers).data('hel').data('lo').error(netError('ECONNRESET'))
      tick(10)
      assert.equal(attempts.length, 2)
      assert.deepEqual(last().opts.headers, { 'x-keep': 'yes' }, 'no Range, no If-Match')
      last().start().head(200, headers).data('hell').data('owo').data('rld').end()
      assert.equal(recorder.text, 'helloworld')
      assert.deepEqual(recorder.events, ['start', 'head 200', 'data', 'data', 'data', 'data', 'end'])
      t.mock.timers.reset()
    }
  })

  it('restarts again when the restarted body is cut while its first bytes are being compared', (t) => {
    const { attempts, recorder, last, tick } = setup(t)
    last().start().head(200, { etag: 'W/"v1"' }).data('hello').error(netError('ECONNRESET'))
    tick(10)
    last().start().head(200, { etag: 'W/"v1"' }).data('hel').error(netError('ECONNRESET'))
    tick(20)
    last().start().head(200, { etag: 'W/"v1"' }).data('helloworld').end()
    assert.equal(attempts.length, 3)
    assert.equal(recorder.text, 'helloworld')
  })

  it('fails with LIB_ERR_REQ_RETRY instead of splicing when the restarted body starts with other bytes', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, { etag: 'W/"v1"', 'content-length': '10' }).data('hello').error(netError('ECONNRESET'))
    tick(10)
    last().start().head(200, { etag: 'W/"v1"', 'content-length': '10', authorization: 'secret' }).data('HELLOworld')
    assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
    assert.equal(recorder.error?.statusCode, 200)
    assert.deepEqual(recorder.error?.data, { count: 2 })
    assert.match(recorder.error!.message, /cannot continue GET http:\/\/127\.0\.0\.1:9\/file at byte 5: its first 5 bytes differ from the ones delivered/)
    assert.doesNotMatch(JSON.stringify((recorder.error as { headers?: unknown }).headers), /secret/)
    assert.equal(recorder.text, 'hello')
    assert.equal(last().aborts.length, 1)
  })

  it('fails when the restart is not answered with a 200 of the same length, or ends before the delivered bytes', (t) => {
    const cases: Array<{ answer: (a: ReturnType<typeof setup>['last']) => void, message: RegExp }> = [
      { answer: (last) => { last().start().head(206, { 'content-range': 'bytes 5-9/10' }).data('world').end() }, message: /expected 200 to the request sent again, got 206/ },
      { answer: (last) => { last().start().head(200, { 'content-length': '12' }).data('hello world!').end() }, message: /Content-Length changed from 10 to 12/ },
      { answer: (last) => { last().start().head(200, { 'content-length': '10' }).data('hel').end() }, message: /it ended after 3 bytes, before the 5 already delivered/ }
    ]
    for (const { answer, message } of cases) {
      const { recorder, last, tick } = setup(t)
      last().start().head(200, { 'content-length': '10' }).data('hello').error(netError('ECONNRESET'))
      tick(10)
      answer(last)
      assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
      assert.match(recorder.error!.message, message)
      assert.equal(recorder.text, 'hello')
      t.mock.timers.reset()
    }
  })

  it('delivers exactly the body whatever the chunking and the cut, and never a body with another prefix', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 8 }), (body, cutAt, sizes) => {
      const cut = cutAt % body.length
      const digest = new DeliveredDigest({})
      digest.update(Buffer.from(body.subarray(0, cut)))
      const check = new PrefixCheck(digest.point(), 200, {})
      const delivered: Buffer[] = [Buffer.from(body.subarray(0, cut))]
      let at = 0
      let i = 0
      while (at < body.length) {
        const size = sizes[i++ % sizes.length]!
        const rest = check.take(Buffer.from(body.subarray(at, at + size)))
        assert.notEqual(typeof rest, 'string')
        delivered.push(rest as Buffer)
        at += size
      }
      assert.equal(check.ended(), undefined)
      assert.deepEqual(Buffer.concat(delivered), Buffer.from(body))
      if (cut > 0) {
        const other = Buffer.from(body)
        other[cutAt % cut] = other[cutAt % cut]! ^ 1
        assert.equal(typeof new PrefixCheck(digest.point(), 200, {}).take(other), 'string')
      }
    }))
  })

  it('digests exactly the delivered bytes whether they were held unhashed or hashed as they came, with points taken on the way', () => {
    // Chunk sizes around the 16 KiB held before hashing starts, so bodies end below it, on it and past it.
    const sizes = fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 1, maxLength: 8 })
    fc.assert(fc.property(sizes, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (chunkSizes, pointAfter) => {
      const digest = new DeliveredDigest({ 'content-length': '1' })
      const delivered: Buffer[] = []
      chunkSizes.forEach((size, i) => {
        const chunk = Buffer.alloc(size, (i * 37 + size) & 0xff)
        digest.update(chunk)
        delivered.push(chunk)
        if (pointAfter[i] === true) {
          const point = digest.point()
          assert.equal(point.delivered, Buffer.concat(delivered).length)
          assert.deepEqual(point.digest, createHash('sha256').update(Buffer.concat(delivered)).digest())
        }
      })
      const whole = Buffer.concat(delivered)
      const point = digest.point()
      assert.equal(point.delivered, whole.length)
      assert.equal(point.length, '1')
      assert.deepEqual(point.digest, createHash('sha256').update(whole).digest())
    }))
  })

  it('retries a retryable status on a resume attempt and then resumes', (t) => {
    const { recorder, last, tick } = setup(t)
    last().start().head(200, first).data('hello').error(netError('LIB_ERR_SOCKET'))
    tick(10)
    last().start().head(503).end()
    tick(20)
    last().start().head(206, { etag: '"v1"', 'content-range': 'bytes 5-9/10' }).data('world').end()
    assert.equal(recorder.text, 'helloworld')
    assert.deepEqual(recorder.events, ['start', 'head 200', 'data', 'data', 'end'])
  })
})

describe('resume rules', () => {
  it('parses every well-formed single byte range and nothing inverted', () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), fc.option(fc.nat(), { nil: null }), (a, b, size) => {
      const start = Math.min(a, b)
      const end = Math.max(a, b)
      const parsed = parseContentRange(`bytes ${start}-${end}/${size ?? '*'}`)
      if (size !== null && end >= size) assert.equal(parsed, undefined)
      else assert.deepEqual(parsed, { start, end, size })
      if (a !== b) assert.equal(parseContentRange(`bytes ${end}-${start}/*`), undefined)
    }))
  })

  it('rejects arbitrary text that is not a byte range', () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const parsed = parseContentRange(text)
      if (parsed !== undefined) assert.match(text.trim(), /^bytes \d+-\d+\/(\d+|\*)$/)
    }))
  })

  it('accepts a resumed 206 only when it continues the same bytes', () => {
    fc.assert(fc.property(fc.nat({ max: 1000 }), fc.nat({ max: 1000 }), fc.nat({ max: 1000 }), (next, extra, startAt) => {
      const end = next + extra
      const point = { etag: '"e"', next, end }
      const headers = { etag: '"e"', 'content-range': `bytes ${startAt}-${end}/${end + 1}` }
      const problem = checkResumed({ ...point }, 206, headers)
      assert.equal(problem === undefined, startAt === next)
    }))
  })

  it('starts a resume point only for GET with a strong ETag on 200 or a single-range 206', () => {
    assert.deepEqual(startResume('GET', 200, { etag: '"a"', 'content-length': '4' }), { etag: '"a"', next: 0, end: 3 })
    assert.deepEqual(startResume('GET', 200, { etag: '"a"' }), { etag: '"a"', next: 0, end: null })
    assert.deepEqual(startResume('GET', 206, { etag: '"a"', 'content-range': 'bytes 10-19/100' }), { etag: '"a"', next: 10, end: 19 })
    assert.equal(typeof startResume('HEAD', 200, { etag: '"a"' }), 'string')
    assert.equal(typeof startResume('GET', 200, { etag: 'W/"a"' }), 'string')
    assert.equal(typeof startResume('GET', 206, { etag: '"a"', 'content-type': 'multipart/byteranges' }), 'string')
    assert.equal(typeof startResume('GET', 203, { etag: '"a"' }), 'string')
  })

  it('replaces the caller conditionals with Range and If-Match in any header form', () => {
    const point = { etag: '"a"', next: 7, end: null }
    const expected = { accept: 'x', range: 'bytes=7-', 'if-match': '"a"' }
    assert.deepEqual(resumeHeaders(['Accept', 'x', 'If-None-Match', '"b"'], point), expected)
    assert.deepEqual(resumeHeaders({ Accept: 'x', 'If-Range': '"a"' }, point), expected)
    assert.deepEqual(resumeHeaders([['Accept', 'x']], point), expected)
  })
})
