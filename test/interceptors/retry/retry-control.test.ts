import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough, Readable } from 'node:stream'
import { RetryHandler, retry } from '../../../interceptors/retry/index.js'
import type { RetryContext, RetryOptions } from '../../../interceptors/retry/index.js'
import { ClientDestroyedError } from '../../../src/errors.js'
import { resolveRetryOptions } from '../../../interceptors/retry/retry-options.js'
import { planRetry } from '../../../interceptors/retry/retry-strategy.js'
import type { DispatchOptions } from '../../../src/handler.js'
import { Attempt, Recorder, netError, scriptedDispatch } from './retry-harness.js'

function setup (t: TestContext, retryOptions: RetryOptions = {}, opts: Partial<DispatchOptions> = {}) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 5_000 })
  const { dispatch, attempts } = scriptedDispatch()
  const recorder = new Recorder()
  const dispatchOpts: DispatchOptions = { origin: 'http://127.0.0.1:9', path: '/', method: 'GET', ...opts }
  const handler = new RetryHandler({ ...dispatchOpts, retryOptions }, { dispatch, handler: recorder })
  dispatch(dispatchOpts, handler)
  return { attempts, recorder, handler, last: () => attempts[attempts.length - 1]!, tick: (ms: number) => t.mock.timers.tick(ms) }
}

describe('RetryHandler stateful bodies', () => {
  const bodies: Array<[string, () => unknown]> = [
    ['a Readable', () => Readable.from(['a'])],
    ['an async iterable', () => ({ async * [Symbol.asyncIterator] () { yield 'a' } })],
    ['a generator', () => (function * () { yield 'a' })()],
    ['a ReadableStream', () => new ReadableStream()]
  ]
  for (const [name, make] of bodies) {
    it(`refuses at once to re-send ${name} with LIB_ERR_REQ_RETRY`, (t) => {
      const { attempts, recorder } = setup(t, {}, { method: 'PUT', body: make() as DispatchOptions['body'] })
      const reset = netError('ECONNRESET')
      attempts[0]!.start().error(reset)
      assert.equal(attempts.length, 1)
      assert.equal(recorder.error?.code, 'LIB_ERR_REQ_RETRY')
      assert.equal((recorder.error as Error).cause, reset)
      assert.match(recorder.error!.message, /can only be sent once/)
    })
  }

  it('re-sends replayable bodies (string, Buffer, array)', (t) => {
    for (const body of ['text', Buffer.from('bytes'), ['a', 'b']]) {
      const { attempts, tick } = setup(t, {}, { method: 'PUT', body: body as DispatchOptions['body'] })
      attempts[0]!.start().error(netError('ECONNRESET'))
      tick(500)
      assert.equal(attempts[1]!.opts.body, body)
      t.mock.timers.reset()
    }
  })
})

describe('RetryHandler custom retry callback', () => {
  it('counts from 1, sees the resolved options, and stops with the error it passes back', (t) => {
    const seen: Array<{ counter: number, code: unknown, maxRetries: number, method: string }> = []
    const custom = (err: Error, { state, opts }: RetryContext, callback: (err?: Error | null) => void): void => {
      seen.push({ counter: state.counter, code: (err as { code?: string }).code, maxRetries: opts.retryOptions.maxRetries, method: opts.method })
      if ((err as { code?: string }).code === 'LIB_ERR_DESTROYED') callback(err)
      else callback(null)
    }
    const { attempts, recorder } = setup(t, { retry: custom })
    attempts[0]!.start().error(netError('ECONNRESET'))
    attempts[1]!.start().head(503).end()
    const destroyed = new ClientDestroyedError()
    attempts[2]!.start().error(destroyed)
    assert.deepEqual(seen, [
      { counter: 1, code: 'ECONNRESET', maxRetries: 5, method: 'GET' },
      { counter: 2, code: 'LIB_ERR_REQ_RETRY', maxRetries: 5, method: 'GET' },
      { counter: 3, code: 'LIB_ERR_DESTROYED', maxRetries: 5, method: 'GET' }
    ])
    assert.equal(recorder.error, destroyed)
  })

  it('holds a failing response until the callback answers, then passes it through whole', (t) => {
    let answer: ((err?: Error | null) => void) | undefined
    const { attempts, recorder } = setup(t, { throwOnError: false, retry: (err, _c, cb) => { answer = () => cb(err) } })
    attempts[0]!.start().head(500).data('part one, ').data('part two').end()
    assert.deepEqual(recorder.events, ['start'])
    assert.equal(attempts[0]!.pauses, 1)
    answer!()
    assert.deepEqual(recorder.events, ['start', 'head 500', 'data', 'data', 'end'])
    assert.equal(recorder.text, 'part one, part two')
  })

  it('ignores a second call of the callback', (t) => {
    let cb: ((err?: Error | null) => void) | undefined
    const { attempts } = setup(t, { retry: (_e, _c, callback) => { cb = callback } })
    attempts[0]!.start().error(netError('ECONNRESET'))
    cb!()
    cb!()
    assert.equal(attempts.length, 2)
  })

  it('survives a callback that keeps retrying a dispatcher failing synchronously', async () => {
    const recorder = new Recorder()
    const refused = new ClientDestroyedError()
    let calls = 0
    const dispatch = (_o: DispatchOptions, h: import('../../../src/handler.js').DispatchHandler): boolean => {
      calls++
      h.onResponseError?.(new Attempt({ path: '/', method: 'GET' }, h).controller, refused)
      return false
    }
    const retryAll = (err: Error, { state }: RetryContext, cb: (err?: Error | null) => void): void => cb(state.counter > 20_000 ? err : null)
    const handler = new RetryHandler({ path: '/', method: 'GET', retryOptions: { retry: retryAll } }, { dispatch, handler: recorder })
    dispatch({ path: '/', method: 'GET' }, handler)
    while (!recorder.finished) await new Promise((resolve) => setImmediate(resolve))
    assert.equal(calls, 20_001)
    assert.equal(recorder.error, refused)
  })

  it('reports an error thrown by the callback', (t) => {
    const boom = new Error('boom')
    const { recorder, attempts } = setup(t, { retry: () => { throw boom } })
    attempts[0]!.start().error(netError('ECONNRESET'))
    assert.equal(recorder.error, boom)
  })
})

describe('RetryHandler cancellation', () => {
  it('ends the backoff at once when the caller aborts, with no timer left behind', (t) => {
    const { attempts, recorder, tick } = setup(t)
    attempts[0]!.start().head(503).end()
    const reason = new Error('stop')
    recorder.controller!.abort(reason)
    assert.equal(recorder.error, reason)
    tick(60_000)
    assert.equal(attempts.length, 1)
  })

  it('ends the backoff at once when the signal aborts', (t) => {
    const ac = new AbortController()
    const { attempts, recorder, tick } = setup(t, {}, { signal: ac.signal })
    attempts[0]!.start().error(netError('ECONNREFUSED'))
    ac.abort(new Error('user gave up'))
    assert.equal(recorder.error?.message, 'user gave up')
    tick(60_000)
    assert.equal(attempts.length, 1)
  })

  it('aborts the running attempt when the caller aborts during the body', (t) => {
    const { attempts, recorder } = setup(t)
    attempts[0]!.start().head(200).data('a')
    const reason = new Error('enough')
    recorder.controller!.abort(reason)
    assert.deepEqual(attempts[0]!.aborts, [reason])
    assert.deepEqual(recorder.events, ['start', 'head 200', 'data', 'error'])
  })

  it('aborts an attempt that starts after the caller already aborted', (t) => {
    const { attempts, recorder, handler, tick } = setup(t)
    attempts[0]!.start().error(netError('ECONNRESET'))
    tick(500)
    handler.abort(new Error('gone'))
    attempts[1]!.start()
    assert.equal(attempts[1]!.aborts.length, 1)
    assert.deepEqual(recorder.events, ['start', 'error'])
  })

  it('keeps the caller pause across a resume onto a new attempt', (t) => {
    const { attempts, recorder, tick } = setup(t, { minTimeout: 1 })
    attempts[0]!.start().head(200, { etag: '"e"', 'content-length': '4' }).data('ab')
    recorder.controller!.pause()
    attempts[0]!.error(netError('ECONNRESET'))
    tick(1)
    attempts[1]!.start()
    assert.equal(attempts[1]!.controller.paused, true)
    recorder.controller!.resume()
    assert.equal(attempts[1]!.controller.paused, false)
  })
})

describe('RetryHandler opt-in extras', () => {
  it('with jitter waits a random share of the backoff but never jitters Retry-After', (t) => {
    t.mock.method(Math, 'random', () => 0.25)
    const { attempts, tick } = setup(t, { jitter: true })
    attempts[0]!.start().head(503).end()
    tick(124)
    assert.equal(attempts.length, 1)
    tick(1)
    assert.equal(attempts.length, 2)
    attempts[1]!.start().head(503, { 'retry-after': '1' }).end()
    tick(999)
    assert.equal(attempts.length, 2)
    tick(1)
    assert.equal(attempts.length, 3)
  })

  it('calls onRetry with the counter and the delay of each scheduled retry', (t) => {
    const events: unknown[] = []
    const { attempts, tick } = setup(t, { onRetry: (err, event) => events.push([(err as { code?: string }).code, event]) })
    attempts[0]!.start().error(netError('EPIPE'))
    tick(500)
    attempts[1]!.start().head(502).end()
    assert.deepEqual(events, [['EPIPE', { counter: 1, delayMs: 500 }], ['LIB_ERR_REQ_RETRY', { counter: 2, delayMs: 1000 }]])
  })

  it('gives up when a retry would start after deadlineMs', (t) => {
    const { attempts, recorder, tick } = setup(t, { deadlineMs: 1200 })
    attempts[0]!.start().head(503).end()
    tick(500)
    attempts[1]!.start().head(503).end()
    assert.equal(attempts.length, 2)
    assert.equal(recorder.error?.statusCode, 503)
  })
})

describe('retry options', () => {
  const bad: Array<[RetryOptions, string]> = [
    [{ maxRetries: -1 }, 'retry(): maxRetries must be a non-negative integer, got -1'],
    [{ maxRetries: 1.5 }, 'retry(): maxRetries must be a non-negative integer, got 1.5'],
    [{ minTimeout: -5 }, 'retry(): minTimeout must be a non-negative number of milliseconds up to 2147483647, got -5'],
    [{ maxTimeout: Number.NaN }, 'retry(): maxTimeout must be a non-negative number of milliseconds up to 2147483647, got NaN'],
    [{ timeoutFactor: 0 }, 'retry(): timeoutFactor must be a positive finite number, got 0'],
    [{ throwOnError: 'yes' as unknown as boolean }, 'retry(): throwOnError must be a boolean, got "yes"'],
    [{ methods: 'GET' as unknown as string[] }, 'retry(): methods must be an array of method names, got "GET"'],
    [{ statusCodes: [503, 700] }, 'retry(): statusCodes must be an array of status codes (100-599), got an array ([503,700])'],
    [{ errorCodes: [42 as unknown as string] }, 'retry(): errorCodes must be an array of error code strings, got an array ([42])'],
    [{ retry: 'always' as unknown as RetryOptions['retry'] }, 'retry(): retry must be a function (err, context, callback), got "always"'],
    [{ deadlineMs: 0 }, 'retry(): deadlineMs must be a positive number of milliseconds, got 0']
  ]
  for (const [options, message] of bad) {
    it(`throws "${message}" synchronously`, () => {
      assert.throws(() => retry(options), { code: 'LIB_ERR_INVALID_ARG', message })
    })
  }

  it('validates per-request retryOptions when the request is dispatched', () => {
    const dispatch = retry()(() => true)
    assert.throws(() => dispatch({ path: '/', method: 'GET', retryOptions: { maxRetries: -2 } }, {}), {
      code: 'LIB_ERR_INVALID_ARG',
      message: 'retry(): maxRetries must be a non-negative integer, got -2'
    })
  })

  it('rejects a RetryHandler without a dispatch function', () => {
    assert.throws(() => new RetryHandler({ path: '/', method: 'GET' }, { handler: {} } as never), { code: 'LIB_ERR_INVALID_ARG' })
  })
})

describe('RetryHandler edge cases', () => {
  it('hands an upgrade to the caller and ends there', (t) => {
    const { attempts, recorder } = setup(t)
    attempts[0]!.start().handler.onRequestUpgrade?.(attempts[0]!.controller, 101, {}, new PassThrough())
    attempts[0]!.end()
    assert.deepEqual(recorder.events, ['start', 'upgrade 101'])
  })

  it('retries at once when the failing response breaks off while the callback decides', (t) => {
    let answer: (() => void) | undefined
    const { attempts } = setup(t, { retry: (_e, _c, cb) => { answer = () => cb() } })
    attempts[0]!.start().head(503).data('par').error(netError('ECONNRESET'))
    answer!()
    assert.equal(attempts.length, 2)
  })

  it('retries once the drained failing response breaks off', (t) => {
    const { attempts, tick } = setup(t)
    attempts[0]!.start().head(503).data('busy')
    tick(500)
    assert.equal(attempts.length, 1)
    attempts[0]!.error(netError('ECONNRESET'))
    assert.equal(attempts.length, 2)
  })

  it('gives up with what onRetry threw', (t) => {
    const thrown = new Error('hook failed')
    const { attempts, recorder } = setup(t, { onRetry: () => { throw thrown } })
    attempts[0]!.start().error(netError('ECONNRESET'))
    assert.equal(recorder.error, thrown)
  })

  it('lets a custom callback delegate to the built-in strategy and its timer', (t) => {
    const { attempts, recorder, tick } = setup(t, {
      maxRetries: 1,
      retry: (err, context, callback) => RetryHandler.defaultRetry(err, context, callback)
    })
    attempts[0]!.start().head(502).end()
    tick(499)
    assert.equal(attempts.length, 1)
    tick(1)
    attempts[1]!.start().head(502).end()
    assert.equal(recorder.error?.statusCode, 502)
  })

  it('explains why the built-in strategy stops for each rule', () => {
    const options = resolveRetryOptions({ maxRetries: 1 }, RetryHandler.defaultRetry, 'test')
    const status = (code: number): Error => Object.assign(new Error('status'), { code: 'LIB_ERR_REQ_RETRY', statusCode: code })
    assert.deepEqual(planRetry(new Error('plain'), 1, 'GET', options, 0), { retry: false, reason: 'Error has no error code' })
    assert.equal(planRetry(netError('EACCES'), 1, 'GET', options, 0).reason, 'error code EACCES is not in errorCodes')
    assert.equal(planRetry(netError('EPIPE'), 1, 'PATCH', options, 0).reason, 'method PATCH is not in methods')
    assert.equal(planRetry(status(404), 1, 'GET', options, 0).reason, 'status 404 is not in statusCodes')
    assert.equal(planRetry(status(503), 2, 'GET', options, 0).reason, 'maxRetries (1) reached')
    assert.deepEqual(planRetry(status(503), 1, 'GET', options, 0), { retry: true, delayMs: 500, reason: 'status 503, backoff' })
  })

  it('passes upgrade and CONNECT requests through the interceptor untouched', () => {
    const seen: unknown[] = []
    const dispatch = retry()((_opts, handler) => { seen.push(handler); return true })
    const handler = {}
    dispatch({ path: '/', method: 'GET', upgrade: 'websocket' }, handler)
    dispatch({ path: 'example:443', method: 'CONNECT' }, handler)
    assert.deepEqual(seen, [handler, handler])
  })
})
