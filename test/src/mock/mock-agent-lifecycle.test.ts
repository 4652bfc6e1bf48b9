import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import type { RequestOptions, ResponseData } from '../../../src/api/request.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../../src/handler.js'
import { ORIGIN, req, offline } from './mock-agent-helpers.js'

describe('MockAgent: scopes', () => {
  it('answers once by default, n times with times(n), and always with persist()', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/once' }).reply(200, 'once')
    pool.intercept({ path: '/twice' }).reply(200, 'twice').times(2)
    pool.intercept({ path: '/always' }).reply(200, 'always').persist()
    const text = async (path: string) => (await req(agent, { origin: ORIGIN, path })).body.text()
    assert.equal(await text('/once'), 'once')
    await assert.rejects(text('/once'), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED' })
    assert.equal(await text('/twice'), 'twice')
    assert.equal(await text('/twice'), 'twice')
    await assert.rejects(text('/twice'), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED' })
    for (let i = 0; i < 5; i++) assert.equal(await text('/always'), 'always')
  })

  it('uses interceptors for the same request in registration order', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/seq' }).reply(200, 'first')
    pool.intercept({ path: '/seq' }).reply(200, 'second')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/seq' })).body.text(), 'first')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/seq' })).body.text(), 'second')
  })

  it('delays the reply by delay(ms) on the timer', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/slow' }).reply(200, 'late').delay(500)
    let settled = false
    const pending = req(agent, { origin: ORIGIN, path: '/slow' }).then((res) => { settled = true; return res })
    for (let i = 0; i < 5; i++) await Promise.resolve()
    t.mock.timers.tick(499)
    for (let i = 0; i < 5; i++) await Promise.resolve()
    assert.equal(settled, false)
    t.mock.timers.tick(1)
    const res = await pending
    assert.equal(await res.body.text(), 'late')
  })

  it('cancels a delayed reply when the request is aborted, and fails it with the reason', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/slow' }).reply(200, 'late').delay(1000)
    const ac = new AbortController()
    const pending = req(agent, { origin: ORIGIN, path: '/slow', signal: ac.signal })
    for (let i = 0; i < 5; i++) await Promise.resolve()
    ac.abort(new Error('gave up'))
    await assert.rejects(pending, { message: 'gave up' })
    t.mock.timers.tick(1000)
  })
})

describe('MockAgent: net connect and activation', () => {
  it('refuses unmatched requests to hosts net connect was not enabled for', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.enableNetConnect('127.0.0.1:1')
    agent.enableNetConnect(/^localhost:/)
    agent.get(ORIGIN).intercept({ path: '/x' }).reply(200)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/nope' }), {
      code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED',
      message: /net connect is not enabled for host 127\.0\.0\.1:9/
    })
  })
})

describe('MockAgent: pending interceptors', () => {
  it('lists interceptors that were not used up, with their origin', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/used' }).reply(200)
    pool.intercept({ path: '/unused', method: 'POST' }).reply(201)
    pool.intercept({ path: '/persist' }).reply(200).persist()
    pool.intercept({ path: '/thrice' }).reply(200).times(3)
    await (await req(agent, { origin: ORIGIN, path: '/used' })).body.dump()
    await (await req(agent, { origin: ORIGIN, path: '/thrice' })).body.dump()
    const pending = agent.pendingInterceptors()
    assert.deepEqual(pending.map((p) => [p.origin, p.method, p.path, p.timesInvoked]), [
      [ORIGIN, 'POST', '/unused', 0],
      [ORIGIN, 'GET', '/persist', 0],
      [ORIGIN, 'GET', '/thrice', 1]
    ])
  })

  it('throws a readable table from assertNoPendingInterceptors, and nothing once all were used', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/a', method: 'DELETE' }).reply(204)
    assert.throws(() => agent.assertNoPendingInterceptors(), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR')
      assert.equal(err.message, [
        '1 interceptor is pending:',
        '',
        '| Method | Origin             | Path | Status code | Persistent | Invocations | Remaining |',
        '|--------|--------------------|------|-------------|------------|-------------|-----------|',
        '| DELETE | http://127.0.0.1:9 | /a   | 204         | no         | 0           | 1         |'
      ].join('\n'))
      return true
    })
    await (await req(agent, { origin: ORIGIN, path: '/a', method: 'DELETE' })).body.dump()
    agent.assertNoPendingInterceptors()
  })

  it('formats with a custom formatter when one is given', (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/a' }).reply(200)
    agent.get(ORIGIN).intercept({ path: '/b' }).reply(200)
    assert.throws(() => agent.assertNoPendingInterceptors({ pendingInterceptorsFormatter: { format: (p) => p.map((x) => String(x.path)).join(',') } }), {
      message: '2 interceptors are pending:\n\n/a,/b'
    })
  })

  it('forgets the interceptors of a pool after cleanMocks()', (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/a' }).reply(200)
    agent.get(ORIGIN).cleanMocks()
    assert.deepEqual(agent.pendingInterceptors(), [])
  })
})

describe('MockAgent: dispatch contract', () => {
  function collect (): { handler: DispatchHandler, events: string[], done: Promise<void>, controller: () => DispatchController } {
    const events: string[] = []
    let ctrl: DispatchController | undefined
    let finish!: () => void
    const done = new Promise<void>((resolve) => { finish = resolve })
    const handler: DispatchHandler = {
      onRequestStart: (c) => { ctrl = c; events.push('start') },
      onResponseStart: (_c, status: number, headers: IncomingHeaders) => { events.push(`head ${status} ${String(headers['x-h'])}`) },
      onResponseData: (_c, chunk: Buffer) => { events.push(`data ${chunk.toString()}`) },
      onResponseEnd: (_c, trailers: IncomingHeaders) => { events.push(`end ${JSON.stringify(trailers)}`); finish() },
      onResponseError: (_c, err: Error) => { events.push(`error ${err.message}`); finish() }
    }
    return { handler, events, done, controller: () => ctrl! }
  }

  it('delivers start, head, data and end through the hooks, after dispatch returned', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, 'body', { headers: { 'x-h': 'v' }, trailers: { 'x-t': '1' } })
    const { handler, events, done } = collect()
    assert.equal(agent.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, handler), true)
    assert.deepEqual(events, [])
    await done
    assert.deepEqual(events, ['start', 'head 200 v', 'data body', 'end {"x-t":"1"}'])
  })

  it('holds data while paused and continues on resume', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, Readable.from(['a', 'b', 'c']))
    const { handler, events, done, controller } = collect()
    const onData = handler.onResponseData!
    handler.onResponseData = (c, chunk) => { onData(c, chunk); if (chunk.toString() === 'a') c.pause() }
    agent.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, handler)
    while (!events.includes('data a')) await new Promise((resolve) => setImmediate(resolve))
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(events.filter((e) => e.startsWith('data')), ['data a'])
    controller().resume()
    await done
    assert.deepEqual(events.slice(-3), ['data b', 'data c', 'end {}'])
  })

  it('ends with exactly one error and nothing after when aborted mid-body', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, Readable.from(['a', 'b', 'c']))
    const { handler, events, done } = collect()
    const onData = handler.onResponseData!
    handler.onResponseData = (c, chunk) => { onData(c, chunk); c.abort(new Error('stop')) }
    agent.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, handler)
    await done
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(events, ['start', 'head 200 undefined', 'data a', 'error stop'])
  })

  it('works for handlers of the older shape', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, 'legacy', { headers: { 'x-h': 'v' } })
    const seen: string[] = []
    await new Promise<void>((resolve) => {
      agent.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, {
        onConnect: () => seen.push('connect'),
        onHeaders: (status: number, raw: Buffer[]) => { seen.push(`headers ${status} ${raw.map(String).join(':')}`); return true },
        onData: (chunk: Buffer) => { seen.push(`data ${chunk.toString()}`); return true },
        onComplete: () => { seen.push('complete'); resolve() },
        onError: (err: Error) => { seen.push(`error ${err.message}`); resolve() }
      })
    })
    assert.deepEqual(seen, ['connect', 'headers 200 x-h:v', 'data legacy', 'complete'])
  })

  it('works under composed interceptors', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/', headers: { 'x-added': 'yes' } }).reply(200, 'composed')
    const composed = agent.compose((dispatch) => (opts, handler) => dispatch({ ...opts, headers: { ...(opts.headers as object), 'x-added': 'yes' } }, handler))
    const res = await req(composed, { origin: ORIGIN, path: '/' })
    assert.equal(await res.body.text(), 'composed')
  })

  it('fails the request, not the process, when a matcher or a hook throws', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const bad = new Error('matcher broke')
    agent.get(ORIGIN).intercept({ path: () => { throw bad } }).reply(200)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/' }), (err) => err === bad)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/', method: 'POST', body: Readable.from(['streamed']) }), (err) => err === bad)

    agent.get('http://127.0.0.1:8').intercept({ path: '/' }).reply(200, 'x')
    const { handler, events, done } = collect()
    handler.onResponseStart = () => { events.push('head'); throw new Error('hook broke') }
    agent.dispatch({ origin: 'http://127.0.0.1:8', path: '/', method: 'GET' }, handler)
    await done
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(events, ['start', 'head', 'error hook broke'])
  })

  it('throws on invalid dispatch options and fails requests after close', async () => {
    const agent = offline()
    assert.throws(() => agent.dispatch({ path: '/', method: 'GET' }, {}), { code: 'LIB_ERR_INVALID_ARG', message: /origin must be a string or URL, got undefined/ })
    await agent.close()
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('fails replies in flight with the destroy error', async () => {
    const agent = offline()
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, 'x').delay(60_000)
    const pending = req(agent, { origin: ORIGIN, path: '/' })
    await new Promise((resolve) => setImmediate(resolve))
    await agent.destroy()
    await assert.rejects(pending, { code: 'LIB_ERR_DESTROYED' })
  })

  it('sends nothing after the destroy error when destroyed right after dispatch', async () => {
    const agent = offline()
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, 'x')
    const { handler, events, done } = collect()
    agent.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, handler)
    await agent.destroy()
    await done
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(events, ['error The client is destroyed'])
  })

  it('waits for replies in flight before close resolves', async () => {
    const agent = offline()
    agent.get(ORIGIN).intercept({ path: '/' }).reply(200, 'x').delay(5)
    const pending = req(agent, { origin: ORIGIN, path: '/' })
    await new Promise((resolve) => setImmediate(resolve))
    await agent.close()
    const res = await pending
    assert.equal(await res.body.text(), 'x')
  })
})
