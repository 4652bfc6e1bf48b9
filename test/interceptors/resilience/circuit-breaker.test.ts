import { after, before, describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import FakeTimers from '@sinonjs/fake-timers'
import { Agent, interceptors } from '../../../src/index.js'
import type { CircuitStateChange, Interceptor } from '../../../src/index.js'
import { CircuitOpenError } from '../../../src/errors.js'
import { freePort } from '../../helpers/free-port.js'
import { startResilienceOrigin } from './resilience-origin.js'
import type { ResilienceOrigin } from './resilience-origin.js'

let origin: ResilienceOrigin

before(async () => { origin = await startResilienceOrigin() })
after(async () => { await origin.stop() })

/** An Agent composed with `interceptors`, the clock's Date faked (I/O keeps the runtime's timers), and the state changes seen. */
function setup (t: TestContext, ...composed: Interceptor[]) {
  const clock = FakeTimers.install({ toFake: ['Date'], now: 1_000_000 })
  const agent = new Agent().compose(...composed)
  const changes: string[] = []
  const onChange = (message: unknown): void => {
    const { from, to } = message as CircuitStateChange
    changes.push(`${from}->${to}`)
  }
  diagnosticsChannel.subscribe('conduit:circuitBreaker:stateChange', onChange)
  t.after(async () => {
    diagnosticsChannel.unsubscribe('conduit:circuitBreaker:stateChange', onChange)
    clock.uninstall()
    await agent.destroy()
  })
  /** The status of a GET, or the code of the error it failed with. */
  const get = async (path: string, at = origin.origin, extra: Record<string, unknown> = {}): Promise<number | string> => {
    try {
      const { statusCode, body } = await agent.request({ origin: at, path, method: 'GET', ...extra })
      await body.dump()
      return statusCode
    } catch (err) {
      const code = (err as { code?: unknown }).code
      return typeof code === 'string' ? code : (err as Error).name
    }
  }
  return { agent, clock, changes, get }
}

describe('interceptors.circuitBreaker()', () => {
  it('opens after consecutive failures, fails fast unsent, and closes when a probe to the recovered origin succeeds', async (t) => {
    await origin.tell('reset')
    await origin.tell('fail')
    const { agent, clock, changes, get } = setup(t, interceptors.circuitBreaker({ consecutiveFailures: 3, openMs: 1000 }))
    assert.deepEqual([await get('/flaky'), await get('/flaky'), await get('/flaky')], [503, 503, 503])
    await assert.rejects(agent.request({ origin: origin.origin, path: '/flaky', method: 'GET' }), (err: unknown) => {
      assert.ok(err instanceof CircuitOpenError)
      assert.equal(err.code, 'LIB_ERR_CIRCUIT_OPEN')
      assert.equal(err.key, origin.origin)
      assert.equal(err.retryAfterMs, 1000)
      assert.match(err.message, /is open \(3 consecutive failures, the last status 503\); a probe may pass in 1000ms/)
      return true
    })
    clock.tick(999)
    assert.equal(await get('/flaky'), 'LIB_ERR_CIRCUIT_OPEN')
    assert.equal((await origin.counts())['/flaky'], 3, 'an open circuit sends nothing')
    await origin.tell('recover')
    clock.tick(1)
    assert.equal(await get('/flaky'), 200)
    assert.equal(await get('/flaky'), 200)
    assert.deepEqual(changes, ['closed->open', 'open->half-open', 'half-open->closed'])
    assert.equal((await origin.counts())['/flaky'], 5)
  })

  it('lets only halfOpenProbes through at once, and opens again when a probe fails', async (t) => {
    const { clock, changes, get } = setup(t, interceptors.circuitBreaker({ consecutiveFailures: 1, openMs: 500 }))
    assert.equal(await get('/status/502'), 502)
    clock.tick(500)
    const probe = get('/slow/100')
    assert.equal(await get('/ok'), 'LIB_ERR_CIRCUIT_OPEN', 'a second request waits out the probe')
    assert.equal(await probe, 200)
    assert.equal(await get('/status/500'), 500)
    clock.tick(500)
    assert.equal(await get('/status/503'), 503)
    assert.equal(await get('/ok'), 'LIB_ERR_CIRCUIT_OPEN')
    assert.deepEqual(changes, ['closed->open', 'open->half-open', 'half-open->closed', 'closed->open', 'open->half-open', 'half-open->open'])
  })

  it('opens on the failure rate over a rolling window, once the window holds minimumRequests', async (t) => {
    const { clock, changes, get } = setup(t, interceptors.circuitBreaker({ consecutiveFailures: 0, minimumRequests: 4, failureRate: 0.5, windowMs: 1000 }))
    for (const path of ['/ok', '/status/500', '/ok', '/ok']) await get(path)
    assert.deepEqual(changes, [], 'one failure in four stays below the rate')
    clock.tick(1000)
    for (const path of ['/status/500', '/status/500', '/ok']) await get(path)
    assert.deepEqual(changes, [], 'the old outcomes left the window: three requests are too few to judge')
    assert.equal(await get('/status/500'), 500)
    assert.deepEqual(changes, ['closed->open'])
    assert.equal(await get('/ok'), 'LIB_ERR_CIRCUIT_OPEN')
  })

  it('keeps a circuit per origin across the pools of one Agent, or one for all with a key function', async (t) => {
    const down = `http://127.0.0.1:${await freePort()}`
    const perOrigin = setup(t, interceptors.circuitBreaker({ consecutiveFailures: 1 }))
    assert.equal(await perOrigin.get('/', down), 'ECONNREFUSED')
    assert.equal(await perOrigin.get('/', down), 'LIB_ERR_CIRCUIT_OPEN')
    assert.equal(await perOrigin.get('/ok'), 200, 'another origin has its own circuit')

    const shared = new Agent().compose(interceptors.circuitBreaker({ consecutiveFailures: 1, key: () => 'upstreams' }))
    t.after(() => shared.destroy())
    await assert.rejects(shared.request({ origin: down, path: '/', method: 'GET' }), { code: 'ECONNREFUSED' })
    await assert.rejects(shared.request({ origin: origin.origin, path: '/ok', method: 'GET' }), { code: 'LIB_ERR_CIRCUIT_OPEN', key: 'upstreams' })
  })

  it('counts what the options say: statuses, error codes, timeouts, and never the caller\'s abort', async (t) => {
    const down = `http://127.0.0.1:${await freePort()}`
    const { get, changes } = setup(t, interceptors.circuitBreaker({ consecutiveFailures: 1, errorCodes: ['ECONNRESET'], timeouts: false, statusCodes: [429] }))
    assert.equal(await get('/status/503'), 503)
    assert.equal(await get('/', down), 'ECONNREFUSED')
    assert.equal(await get('/hang-head', origin.origin, { headersTimeout: 50 }), 'LIB_ERR_HEADERS_TIMEOUT')
    const caller = new AbortController()
    const aborted = get('/hang-head', origin.origin, { signal: caller.signal })
    setTimeout(() => caller.abort(), 50)
    assert.equal(await aborted, 'AbortError')
    assert.equal(await get('/hang-head', origin.origin, { signal: AbortSignal.timeout(50) }), 'TimeoutError')
    assert.deepEqual(changes, [], 'none of these counts')
    assert.equal(await get('/retry-after-seconds/1'), 429)
    assert.deepEqual(changes, ['closed->open'])
  })

  it('inside retry, stops the retries of a failing upstream at the open circuit', async (t) => {
    await origin.tell('reset')
    const { agent } = setup(t, interceptors.circuitBreaker({ consecutiveFailures: 2 }), interceptors.retry({ minTimeout: 1, maxRetries: 5 }))
    await assert.rejects(agent.request({ origin: origin.origin, path: '/status/503', method: 'GET' }), { code: 'LIB_ERR_CIRCUIT_OPEN' })
    assert.equal((await origin.counts())['/status/503'], 2)
  })

  it('rejects bad options at once, naming the value, and a key function that returns no string', async (t) => {
    assert.throws(() => interceptors.circuitBreaker({ failureRate: 2 }), { code: 'LIB_ERR_INVALID_ARG', message: /circuitBreaker\(\): failureRate must be a number above 0 and at most 1, got 2/ })
    assert.throws(() => interceptors.circuitBreaker({ openMs: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /openMs must be a positive number/ })
    assert.throws(() => interceptors.circuitBreaker({ statusCodes: [99] }), { code: 'LIB_ERR_INVALID_ARG', message: /statusCodes must be an array of status codes/ })
    assert.throws(() => interceptors.circuitBreaker({ key: 'origin' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /key must be a function/ })
    assert.throws(() => interceptors.circuitBreaker({ consecutiveFailures: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /got -1/ })
    const agent = new Agent().compose(interceptors.circuitBreaker({ key: () => 42 as never }))
    t.after(() => agent.destroy())
    await assert.rejects(agent.request({ origin: origin.origin, path: '/ok', method: 'GET' }), { code: 'LIB_ERR_INVALID_RETURN_VALUE', message: /key must return a string, got 42/ })
  })
})
