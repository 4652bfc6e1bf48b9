import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Readable } from 'node:stream'
import FakeTimers from '@sinonjs/fake-timers'
import { Agent, errors, interceptors } from '../../../src/index.js'
import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../../src/index.js'
import { freePort } from '../../helpers/free-port.js'
import { startResilienceOrigin } from './resilience-origin.js'
import type { ResilienceOrigin } from './resilience-origin.js'

let origin: ResilienceOrigin

before(async () => { origin = await startResilienceOrigin() })
after(async () => { await origin.stop() })

/** Counts the attempts that reach the dispatcher below the hedge interceptor. */
function attemptCounter (): { interceptor: Interceptor, attempts: () => number } {
  let attempts = 0
  const interceptor: Interceptor = (dispatch: Dispatch) => (opts: DispatchOptions, handler: DispatchHandler) => {
    attempts++
    return dispatch(opts, handler)
  }
  return { interceptor, attempts: () => attempts }
}

/** Polls `read` until `accept` holds (bounded), and returns the last value read. */
async function eventually<T> (read: () => Promise<T> | T, accept: (value: T) => boolean): Promise<T> {
  let value = await read()
  for (let i = 0; i < 500 && !accept(value); i++) {
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setTimeout(resolve, 10))
    value = await read()
  }
  return value
}

async function text (agent: ReturnType<Agent['compose']>, path: string, opts: Partial<DispatchOptions> = {}): Promise<string> {
  const { body } = await agent.request({ origin: origin.origin, path, method: 'GET', ...opts } as DispatchOptions)
  return await body.text()
}

describe('hedge()', () => {
  it('sends a copy of a request still unanswered after delayMs; the first answer wins and the loser\'s connection is closed', async (t) => {
    await origin.tell('reset')
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ delayMs: 20 }))
    t.after(() => agent.close())
    assert.equal(await text(agent, '/first-hangs/a'), 'ok')
    assert.equal(counter.attempts(), 2)
    assert.equal((await origin.counts())['/first-hangs/a'], 2)
    const aborted = await eventually(origin.aborted, (a) => a['/first-hangs/a'] === 1)
    assert.equal(aborted['/first-hangs/a'], 1, 'the losing attempt was aborted')
    // The winner's connection is kept alive; the loser's is gone, not left open reading an unwanted answer.
    assert.equal(await eventually(origin.connections, (n) => n === 1), 1)
    assert.equal(await text(agent, '/ok'), 'ok')
  })

  it('sends no copy of a request answered before its delay', async (t) => {
    await origin.tell('reset')
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ delayMs: 60_000 }))
    t.after(() => agent.close())
    for (let i = 0; i < 3; i++) assert.equal(await text(agent, '/ok'), 'ok')
    assert.equal(counter.attempts(), 3)
    assert.equal((await origin.counts())['/ok'], 3)
  })

  it('waits the observed latency percentile, once minSamples latencies are known', async (t) => {
    await origin.tell('reset')
    // A frozen clock makes every observed latency 0 ms, so the percentile is known exactly.
    const clock = FakeTimers.install({ toFake: ['Date'], now: 1_000_000 })
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ percentile: 90, minSamples: 3 }))
    t.after(() => { clock.uninstall(); return agent.close() })
    for (let i = 0; i < 3; i++) assert.equal(await text(agent, '/ok'), 'ok')
    assert.equal(counter.attempts(), 3, 'no copy while the percentile is unknown and no delayMs is set')
    assert.equal(await text(agent, '/first-hangs/p'), 'ok', 'the copy sent after the 0 ms percentile answered')
    assert.equal(counter.attempts(), 5)
  })

  it('caps the extra load at its budget under load, and refills as the window moves on the caller\'s clock', async (t) => {
    await origin.tell('reset')
    const clock = FakeTimers.install({ toFake: ['Date'], now: 2_000_000 })
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ delayMs: 0, budget: { ratio: 0.1, minHedges: 2, windowMs: 1000 } }))
    t.after(() => { clock.uninstall(); return agent.close() })
    const requests = 40
    // Bounded load: batches of ten concurrent requests to a slow upstream.
    for (let sent = 0; sent < requests; sent += 10) {
      const bodies = await Promise.all(Array.from({ length: 10 }, async () => await text(agent, '/slow/300')))
      assert.deepEqual(new Set(bodies), new Set(['slow']))
    }
    const allowed = requests + 2 + Math.floor(0.1 * requests)
    assert.equal(counter.attempts(), allowed, 'every hedge the budget allowed was sent, and no more')
    const received = (await origin.counts())['/slow/300'] ?? 0
    assert.ok(received >= requests && received <= allowed, `${received} requests received, more than the budget allows`)
    clock.tick(1000)
    await text(agent, '/slow/300')
    assert.equal(counter.attempts(), allowed + 2, 'the window moved on: a hedge again')
  })

  it('hedges only idempotent methods with bodies it can send again, unless the request opts in or out', async (t) => {
    await origin.tell('reset')
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ delayMs: 0 }))
    t.after(() => agent.close())
    const sent = async (opts: Partial<DispatchOptions>): Promise<number> => {
      const before = counter.attempts()
      const { body } = await agent.request({ origin: origin.origin, path: '/slow/300', method: 'GET', ...opts } as DispatchOptions)
      await body.dump()
      return counter.attempts() - before
    }
    assert.equal(await sent({ method: 'POST', body: 'order' }), 1, 'POST is not hedged')
    assert.equal(await sent({ method: 'POST', body: 'order', idempotent: true }), 2, 'a POST that says it is idempotent is')
    assert.equal(await sent({ method: 'GET', idempotent: false }), 1, 'a GET that says it is not idempotent is not')
    assert.equal(await sent({ method: 'PUT', body: Readable.from(['streamed']) }), 1, 'a stream body cannot be sent twice')
    assert.equal(await sent({ method: 'PUT', body: 'stored' }), 2, 'PUT is idempotent')
  })

  it('reports a failure at once when no other attempt is in flight, without waiting for the delay', async (t) => {
    const agent = new Agent().compose(interceptors.hedge({ delayMs: 600_000 }))
    t.after(() => agent.close())
    const closed = `http://127.0.0.1:${await freePort()}`
    await assert.rejects(agent.request({ origin: closed, path: '/', method: 'GET' }), { code: 'ECONNREFUSED' })
  })

  it('ends every attempt when the caller aborts, with the caller\'s reason', async (t) => {
    await origin.tell('reset')
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ delayMs: 0 }))
    t.after(() => agent.close())
    const controller = new AbortController()
    const pending = agent.request({ origin: origin.origin, path: '/hang-head', method: 'GET', signal: controller.signal })
    await eventually(async () => (await origin.counts())['/hang-head'] ?? 0, (n) => n === 2)
    controller.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    const aborted = await eventually(origin.aborted, (a) => a['/hang-head'] === 2)
    assert.equal(aborted['/hang-head'], 2, 'both attempts\' connections were closed')
    assert.equal(counter.attempts(), 2)
  })

  it('sends no copy that a deadline composed outside would end before it could answer', async (t) => {
    await origin.tell('reset')
    const counter = attemptCounter()
    const agent = new Agent().compose(counter.interceptor, interceptors.hedge({ delayMs: 200 }), interceptors.deadline({ timeoutMs: 100 }))
    t.after(() => agent.close())
    await assert.rejects(text(agent, '/hang-head'), (err: Error) => err instanceof errors.DeadlineExceededError && err.phase === 'headers')
    assert.equal(counter.attempts(), 1)
  })

  it('leaves a circuit breaker inside it closed: an aborted loser counts as neither failure nor success', async (t) => {
    await origin.tell('reset')
    const changes: unknown[] = []
    const onChange = (message: unknown): void => { changes.push(message) }
    diagnosticsChannel.subscribe('conduit:circuitBreaker:stateChange', onChange)
    const agent = new Agent().compose(interceptors.circuitBreaker({ consecutiveFailures: 1 }), interceptors.hedge({ delayMs: 0 }))
    t.after(() => { diagnosticsChannel.unsubscribe('conduit:circuitBreaker:stateChange', onChange); return agent.close() })
    for (let i = 0; i < 3; i++) assert.equal(await text(agent, '/slow/300'), 'slow')
    assert.ok(((await origin.counts())['/slow/300'] ?? 0) > 3, 'copies were sent')
    assert.deepEqual(changes, [])
  })

  it('rejects bad options at once, naming the value', () => {
    assert.throws(() => interceptors.hedge({ delayMs: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /hedge\(\): delayMs must be a non-negative number of milliseconds/ })
    assert.throws(() => interceptors.hedge({ percentile: 100 }), { code: 'LIB_ERR_INVALID_ARG', message: /percentile must be a number above 0 and below 100, got 100/ })
    assert.throws(() => interceptors.hedge({ maxHedges: 9 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxHedges must be an integer from 1 to 5, got 9/ })
    assert.throws(() => interceptors.hedge({ methods: 'GET' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /methods must be an array of method names/ })
    assert.throws(() => interceptors.hedge({ budget: { ratio: 2 } }), { code: 'LIB_ERR_INVALID_ARG', message: /budget.ratio must be a number from 0 to 1, got 2/ })
    assert.throws(() => interceptors.hedge({ minSamples: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /minSamples must be an integer from 1 to 200/ })
  })
})
