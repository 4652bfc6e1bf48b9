import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { RetryHandler } from '../../../interceptors/retry/index.js'
import type { RetryOptions } from '../../../interceptors/retry/index.js'
import type { DispatchOptions } from '../../../src/handler.js'
import { Attempt, Recorder, netError, scriptedDispatch } from './retry-harness.js'

const ORIGIN = 'http://127.0.0.1:9'

function setup (t: TestContext, retryOptions: RetryOptions = {}, opts: Partial<DispatchOptions> = {}) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 })
  const { dispatch, attempts } = scriptedDispatch()
  const recorder = new Recorder()
  const dispatchOpts: DispatchOptions = { origin: ORIGIN, path: '/file', method: 'GET', ...opts }
  const handler = new RetryHandler({ ...dispatchOpts, retryOptions }, { dispatch, handler: recorder })
  dispatch(dispatchOpts, handler)
  const last = (): Attempt => attempts[attempts.length - 1]!
  return { attempts, recorder, handler, last, tick: (ms: number) => t.mock.timers.tick(ms) }
}

describe('RetryHandler', () => {
  it('forwards a successful response untouched and reports zero retries in the context', (t) => {
    const { last, recorder } = setup(t)
    last().start().head(200, { 'content-length': '2' }).data('ok').end()
    assert.deepEqual(recorder.events, ['start', 'head 200', 'data', 'end'])
    assert.equal(recorder.text, 'ok')
    assert.deepEqual(recorder.context, { transport: true, retryCount: 0 })
  })

  it('waits minTimeout * timeoutFactor^(counter-1) before each retry of a 503', (t) => {
    const { attempts, last, tick, recorder } = setup(t)
    const waits: number[] = []
    for (let retry = 1; retry <= 5; retry++) {
      last().start().head(503).data('busy').end()
      let waited = 0
      while (attempts.length === retry) { tick(100); waited += 100 }
      waits.push(waited)
    }
    assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000])
    last().start().head(200).data('done').end()
    assert.deepEqual(recorder.events, ['start', 'head 200', 'data', 'end'])
    assert.equal(recorder.text, 'done')
    assert.equal((recorder.context as { retryCount: number }).retryCount, 5)
  })

  it('caps the backoff at maxTimeout', (t) => {
    const { attempts, last, tick } = setup(t, { minTimeout: 1000, timeoutFactor: 3, maxTimeout: 5000 })
    const waits: number[] = []
    for (let retry = 1; retry <= 4; retry++) {
      last().start().head(500).end()
      let waited = 0
      while (attempts.length === retry) { tick(250); waited += 250 }
      waits.push(waited)
    }
    assert.deepEqual(waits, [1000, 3000, 5000, 5000])
  })

  it('waits the Retry-After seconds, capped at maxTimeout', (t) => {
    const { attempts, last, tick } = setup(t, { maxTimeout: 3000 })
    last().start().head(429, { 'retry-after': '2' }).end()
    tick(1999)
    assert.equal(attempts.length, 1)
    tick(1)
    assert.equal(attempts.length, 2)
    last().start().head(429, { 'retry-after': '100' }).end()
    tick(2999)
    assert.equal(attempts.length, 2)
    tick(1)
    assert.equal(attempts.length, 3)
  })

  it('waits until a Retry-After HTTP date', (t) => {
    const { attempts, last, tick } = setup(t)
    last().start().head(503, { 'retry-after': new Date(Date.now() + 4000).toUTCString() }).end()
    tick(3999)
    assert.equal(attempts.length, 1)
    tick(1)
    assert.equal(attempts.length, 2)
  })

  it('ignores Retry-After when retryAfter is false', (t) => {
    const { attempts, last, tick } = setup(t, { retryAfter: false })
    last().start().head(503, { 'retry-after': '20' }).end()
    tick(500)
    assert.equal(attempts.length, 2)
  })

  it('ends with a RequestRetryError and destroys the last failing response when retries run out', (t) => {
    const { attempts, last, tick, recorder } = setup(t, { maxRetries: 2, minTimeout: 10 })
    last().start().head(503).end()
    tick(10)
    last().start().head(503).end()
    tick(20)
    last().start().head(503, { 'x-last': '1' })
    assert.equal(attempts.length, 3)
    assert.deepEqual(recorder.events, ['start', 'error'])
    assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
    assert.equal(recorder.error?.statusCode, 503)
    // undici's count: the number of the attempt that failed last
    assert.equal(recorder.error?.data?.count, 3)
    assert.equal(last().aborts.length, 1)
  })

  it('passes the last failing response through when throwOnError is false', (t) => {
    const { last, tick, recorder } = setup(t, { maxRetries: 1, minTimeout: 10, throwOnError: false })
    last().start().head(503).data('first').end()
    tick(10)
    last().start().head(503, { 'content-type': 'text/plain' }).data('second').end()
    assert.deepEqual(recorder.events, ['start', 'head 503', 'data', 'end'])
    assert.equal(recorder.text, 'second')
  })

  it('passes through a status that is not in statusCodes without retrying', (t) => {
    const { attempts, last, recorder } = setup(t)
    last().start().head(404).data('missing').end()
    assert.equal(attempts.length, 1)
    assert.deepEqual(recorder.events, ['start', 'head 404', 'data', 'end'])
  })

  it('does not retry a POST and reports the failure', (t) => {
    const { attempts, last, tick, recorder } = setup(t, {}, { method: 'POST', body: 'x' })
    last().start().head(503).end()
    tick(60_000)
    assert.equal(attempts.length, 1)
    assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
  })

  it('retries a network error whose code is in errorCodes and passes others through unchanged', (t) => {
    const { attempts, last, tick, recorder } = setup(t)
    last().start().error(netError('ECONNRESET'))
    tick(500)
    assert.equal(attempts.length, 2)
    const timeout = netError('LIB_ERR_HEADERS_TIMEOUT')
    last().start().error(timeout)
    assert.equal(recorder.error, timeout)
    assert.deepEqual(recorder.events, ['start', 'error'])
  })

  it('treats a dispatch that throws on a retry like a failed attempt', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
    const recorder = new Recorder()
    let calls = 0
    const failure = netError('LIB_ERR_CLOSED')
    const handler = new RetryHandler({ origin: ORIGIN, path: '/', method: 'GET' }, {
      dispatch: () => { calls++; throw failure },
      handler: recorder
    })
    handler.onResponseError(new Attempt({ path: '/', method: 'GET' }, handler).controller, netError('ECONNREFUSED'))
    t.mock.timers.tick(500)
    assert.equal(calls, 1)
    assert.equal(recorder.error, failure)
  })

  it('forwards informational responses before the final one', (t) => {
    const { last, recorder } = setup(t)
    last().start().head(103).head(200).end()
    assert.deepEqual(recorder.events, ['start', 'head 103', 'head 200', 'end'])
    assert.equal(recorder.statusCode, 200)
  })
})
