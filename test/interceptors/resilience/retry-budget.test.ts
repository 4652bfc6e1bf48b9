import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import FakeTimers from '@sinonjs/fake-timers'
import { Agent, interceptors } from '../../../src/index.js'
import type { RetryOptions } from '../../../src/index.js'
import { startResilienceOrigin } from './resilience-origin.js'
import type { ResilienceOrigin } from './resilience-origin.js'

let origin: ResilienceOrigin

before(async () => { origin = await startResilienceOrigin() })
after(async () => { await origin.stop() })

/** The status each request ended with (the failing response is passed through), or its error code. */
async function send (agent: Agent['compose'] extends (...a: never[]) => infer D ? D : never, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<number | string> {
  try {
    const { statusCode, body } = await agent.request({ origin: origin.origin, path, method, headers, body: method === 'POST' ? 'order' : undefined })
    await body.dump()
    return statusCode
  } catch (err) {
    return (err as { code?: string }).code ?? String(err)
  }
}

function agentWith (options: RetryOptions) {
  return new Agent().compose(interceptors.retry({ minTimeout: 0, throwOnError: false, ...options }))
}

describe('retry({ budget })', () => {
  it('lets a failing upstream receive at most the budgeted extra requests under load', async (t) => {
    await origin.tell('reset')
    const agent = agentWith({ maxRetries: 3, budget: { ratio: 0.1, minRetries: 2, windowMs: 60_000 } })
    t.after(() => agent.destroy())
    const requests = 60
    // Bounded load: batches of ten concurrent requests.
    for (let sent = 0; sent < requests; sent += 10) {
      const statuses = await Promise.all(Array.from({ length: 10 }, () => send(agent, '/status/503')))
      assert.deepEqual(new Set(statuses), new Set([503]))
    }
    const received = (await origin.counts())['/status/503'] ?? 0
    // Without a budget the upstream would see 4 attempts per request (240).
    assert.ok(received >= requests, `${received} requests received`)
    assert.ok(received <= requests + 2 + Math.floor(0.1 * requests), `${received} requests received, more than the budget allows`)
  })

  it('refills as its window moves on the caller\'s clock', async (t) => {
    await origin.tell('reset')
    const clock = FakeTimers.install({ toFake: ['Date'], now: 1_000_000 })
    const agent = agentWith({ maxRetries: 1, budget: { ratio: 0, minRetries: 1, windowMs: 1000 } })
    t.after(() => { clock.uninstall(); return agent.destroy() })
    const received = async (): Promise<number> => (await origin.counts())['/status/500'] ?? 0
    await send(agent, '/status/500')
    assert.equal(await received(), 2, 'the one retry of the window was spent')
    await send(agent, '/status/500')
    assert.equal(await received(), 3, 'no retry left in the window')
    clock.tick(1000)
    await send(agent, '/status/500')
    assert.equal(await received(), 5, 'the window moved on: a retry again')
  })

  it('spends nothing on requests that succeed or are not retried', async (t) => {
    await origin.tell('reset')
    const agent = agentWith({ maxRetries: 1, budget: { ratio: 0, minRetries: 1 } })
    t.after(() => agent.destroy())
    assert.equal(await send(agent, '/ok'), 200)
    assert.equal(await send(agent, '/status/404'), 404)
    assert.equal(await send(agent, '/status/503'), 503)
    assert.equal((await origin.counts())['/status/503'], 2, 'the one budgeted retry was still there')
  })

  it('rejects a bad budget at once, naming the value', () => {
    assert.throws(() => interceptors.retry({ budget: { ratio: 2 } }), { code: 'LIB_ERR_INVALID_ARG', message: /retry\(\): budget.ratio must be a number from 0 to 1, got 2/ })
    assert.throws(() => interceptors.retry({ budget: { minRetries: -1 } }), { code: 'LIB_ERR_INVALID_ARG', message: /budget.minRetries must be a non-negative integer/ })
    assert.throws(() => interceptors.retry({ budget: 'lots' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /budget must be a boolean or/ })
  })
})

describe('retry({ idempotencyKey })', () => {
  it('retries a POST with the same Idempotency-Key on every attempt', async (t) => {
    await origin.tell('reset')
    const agent = agentWith({ maxRetries: 2, idempotencyKey: true })
    t.after(() => agent.destroy())
    assert.equal(await send(agent, '/status/503', 'POST'), 503)
    const keys = (await origin.keys())['/status/503'] ?? []
    assert.equal(keys.length, 3)
    assert.match(keys[0]!, /^"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"$/)
    assert.deepEqual(new Set(keys).size, 1)
    assert.equal(await send(agent, '/status/503', 'POST'), 503)
    assert.equal(new Set((await origin.keys())['/status/503']).size, 2, 'each request has a key of its own')
  })

  it('keeps the caller\'s own key, takes keys from a function, and leaves idempotent methods alone', async (t) => {
    await origin.tell('reset')
    let n = 0
    const agent = agentWith({ maxRetries: 1, idempotencyKey: () => `order-${++n}` })
    t.after(() => agent.destroy())
    await send(agent, '/status/502', 'POST', { 'Idempotency-Key': '"mine"' })
    await send(agent, '/status/500', 'POST')
    await send(agent, '/status/504', 'GET')
    const keys = await origin.keys()
    assert.deepEqual(keys['/status/502'], ['"mine"', '"mine"'])
    assert.deepEqual(keys['/status/500'], ['"order-1"', '"order-1"'])
    assert.equal(keys['/status/504'], undefined)
    assert.equal((await origin.counts())['/status/504'], 2)
  })

  it('does not retry a POST without it', async (t) => {
    await origin.tell('reset')
    const agent = agentWith({ maxRetries: 2 })
    t.after(() => agent.destroy())
    assert.equal(await send(agent, '/status/503', 'POST'), 503)
    assert.equal((await origin.counts())['/status/503'], 1)
  })

  it('fails a request whose key function returns no usable key, and rejects a bad option', async (t) => {
    assert.throws(() => interceptors.retry({ idempotencyKey: 'yes' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /idempotencyKey must be a boolean or a function/ })
    const agent = agentWith({ idempotencyKey: () => 'line\nbreak' })
    t.after(() => agent.destroy())
    assert.equal(await send(agent, '/ok', 'POST'), 'LIB_ERR_INVALID_RETURN_VALUE')
  })
})
