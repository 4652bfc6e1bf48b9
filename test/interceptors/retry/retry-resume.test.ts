import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { RetryHandler } from '../../../interceptors/retry/index.js'
import { checkResumed, parseContentRange, resumeHeaders, startResume } from '../../../interceptors/retry/resume.js'
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

  it('does not resume without a strong ETag and reports the network error', (t) => {
    const variants: Array<Record<string, string>> = [{ 'content-length': '10' }, { 'content-length': '10', etag: 'W/"v1"' }]
    for (const headers of variants) {
      const { attempts, recorder, last, tick } = setup(t)
      const reset = netError('ECONNRESET')
      last().start().head(200, headers).data('hello').error(reset)
      tick(1000)
      assert.equal(attempts.length, 1)
      assert.equal(recorder.error, reset)
      t.mock.timers.reset()
    }
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
