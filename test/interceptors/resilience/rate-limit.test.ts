import { after, before, describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import FakeTimers from '@sinonjs/fake-timers'
import fc from 'fast-check'
import { Agent, interceptors } from '../../../src/index.js'
import type { Interceptor } from '../../../src/index.js'
import { parseRateLimit, parseRateLimitPolicy } from '../../../interceptors/rate-limit/ratelimit-fields.js'
import { startResilienceOrigin } from './resilience-origin.js'
import type { ResilienceOrigin } from './resilience-origin.js'

let origin: ResilienceOrigin

before(async () => { origin = await startResilienceOrigin() })
after(async () => { await origin.stop() })

// Taken before any test fakes the clock: how the tests wait for I/O.
const realSetTimeout = setTimeout
const settle = async (): Promise<void> => { await new Promise((resolve) => realSetTimeout(resolve, 50)) }

async function setup (t: TestContext, ...composed: Interceptor[]) {
  await origin.tell('reset')
  const clock = FakeTimers.install({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: Date.now() })
  const agent = new Agent().compose(...composed)
  t.after(async () => { clock.uninstall(); await agent.destroy() })
  const get = async (path: string, extra: Record<string, unknown> = {}): Promise<number | string> => {
    try {
      const { statusCode, body } = await agent.request({ origin: origin.origin, path, method: 'GET', ...extra })
      await body.dump()
      return statusCode
    } catch (err) {
      const code = (err as { code?: unknown }).code
      return typeof code === 'string' ? code : (err as Error).name
    }
  }
  const seen = async (path: string): Promise<number> => (await origin.counts())[path] ?? 0
  return { clock, get, seen }
}

describe('interceptors.rateLimit()', () => {
  it('lets a burst through, then paces requests at the rate, on the caller\'s clock', async (t) => {
    const { clock, get, seen } = await setup(t, interceptors.rateLimit({ rate: 1, burst: 2 }))
    const first = [get('/ok'), get('/ok')]
    const third = get('/ok')
    assert.deepEqual(await Promise.all(first), [200, 200])
    await settle()
    assert.equal(await seen('/ok'), 2, 'the third waits for a token')
    clock.tick(999)
    await settle()
    assert.equal(await seen('/ok'), 2)
    clock.tick(1)
    assert.equal(await third, 200)
  })

  it('holds requests past maxConcurrent until one ends', async (t) => {
    const { get } = await setup(t, interceptors.rateLimit({ maxConcurrent: 1 }))
    const order: string[] = []
    await Promise.all([
      get('/slow/100').then(() => order.push('slow')),
      get('/ok').then(() => order.push('ok'))
    ])
    assert.deepEqual(order, ['slow', 'ok'])
  })

  for (const [form, path] of [['seconds', '/retry-after-seconds/2'], ['an HTTP date', '/retry-after-date/3']] as const) {
    it(`holds a key's requests after a 429 with Retry-After in ${form}, then lets them go`, async (t) => {
      const { clock, get, seen } = await setup(t, interceptors.rateLimit())
      assert.equal(await get(path), 429)
      const next = get('/ok')
      clock.tick(1000)
      await settle()
      assert.equal(await seen('/ok'), 0, 'held while the server asked')
      clock.tick(2000)
      assert.equal(await next, 200)
    })
  }

  it('holds requests once RateLimit says none are left, and spends what it says remains', async (t) => {
    // With a rate of its own, the limiter leaves the server's RateLimit-Policy aside.
    const { clock, get, seen } = await setup(t, interceptors.rateLimit({ rate: 1000 }))
    assert.equal(await get('/limited/1/5'), 200)
    assert.equal(await get('/ok'), 200, 'one was left')
    const held = get('/ok')
    clock.tick(4999)
    await settle()
    assert.equal(await seen('/ok'), 1, 'none left until the reset')
    clock.tick(1)
    assert.equal(await held, 200)
    assert.equal(await get('/limited/0/2'), 200)
    const again = get('/ok')
    await settle()
    assert.equal(await seen('/ok'), 2)
    clock.tick(2000)
    assert.equal(await again, 200)
  })

  it('paces at the RateLimit-Policy quota when no rate is set', async (t) => {
    const { clock, get, seen } = await setup(t, interceptors.rateLimit())
    assert.equal(await get('/limited/9/60'), 200)
    assert.equal(await get('/ok'), 200, 'the token left goes at once')
    const paced = get('/ok')
    clock.tick(5999)
    await settle()
    assert.equal(await seen('/ok'), 1, 'the quota is 10 per 60s: one request every 6s')
    clock.tick(1)
    assert.equal(await paced, 200)
  })

  it('lets a queued request go when its signal aborts, unsent', async (t) => {
    const { get, seen } = await setup(t, interceptors.rateLimit({ maxConcurrent: 1 }))
    const caller = new AbortController()
    const slow = get('/slow/100')
    const queued = get('/ok', { signal: caller.signal })
    caller.abort()
    assert.equal(await queued, 'AbortError')
    assert.equal(await slow, 200)
    assert.equal(await seen('/ok'), 0)
  })

  it('fails a queued request at once when a deadline outside could not wait for its turn', async (t) => {
    const { get, seen } = await setup(t, interceptors.rateLimit(), interceptors.deadline({ timeoutMs: 500 }))
    assert.equal(await get('/retry-after-seconds/5'), 429)
    assert.equal(await get('/ok'), 'LIB_ERR_DEADLINE_EXCEEDED')
    assert.equal(await seen('/ok'), 0)
  })

  it('refuses a request past maxQueued, naming the key', async (t) => {
    const { get } = await setup(t, interceptors.rateLimit({ maxConcurrent: 1, maxQueued: 1 }))
    const results = await Promise.all([get('/slow/50'), get('/ok'), get('/ok')])
    assert.deepEqual(results, [200, 200, 'LIB_ERR_RATE_LIMIT_QUEUE_FULL'])
  })

  it('rejects bad options at once, naming the value', () => {
    assert.throws(() => interceptors.rateLimit({ rate: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /rateLimit\(\): rate must be a positive number of requests per second, got 0/ })
    assert.throws(() => interceptors.rateLimit({ burst: 1.5 }), { code: 'LIB_ERR_INVALID_ARG', message: /burst must be a positive integer, got 1.5/ })
    assert.throws(() => interceptors.rateLimit({ maxConcurrent: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxConcurrent/ })
    assert.throws(() => interceptors.rateLimit({ adaptive: 'yes' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /adaptive must be a boolean/ })
  })
})

describe('the RateLimit and RateLimit-Policy parsers', () => {
  it('read the most restrictive policy of a list', () => {
    assert.deepEqual(parseRateLimit('"a";r=5;t=10, "b";r=2;t=30'), { remaining: 2, resetSeconds: 30 })
    assert.deepEqual(parseRateLimitPolicy('"a";q=100;w=60, "b";q=10;w=1'), { quota: 100, windowSeconds: 60 })
    assert.equal(parseRateLimit('"a";t=10'), undefined)
    assert.equal(parseRateLimitPolicy('"a";q=10;w=0'), undefined)
  })

  it('never throw, and return only non-negative integers, whatever the field holds', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.array(fc.string())), (value) => {
      const state = parseRateLimit(value)
      if (state !== undefined) assert.ok(Number.isSafeInteger(state.remaining) && state.remaining >= 0 && Number.isSafeInteger(state.resetSeconds))
      const policy = parseRateLimitPolicy(value)
      if (policy !== undefined) assert.ok(policy.quota >= 0 && policy.windowSeconds > 0)
    }))
  })
})
