import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import FakeTimers from '@sinonjs/fake-timers'
import { Agent, interceptors } from '../../../src/index.js'
import { DeadlineExceededError, RequestRetryError } from '../../../src/errors.js'
import { startResilienceOrigin } from './resilience-origin.js'
import type { ResilienceOrigin } from './resilience-origin.js'

let origin: ResilienceOrigin

before(async () => { origin = await startResilienceOrigin() })
after(async () => { await origin.stop() })

async function get (agent: { request: Agent['request'] }, path: string, extra: Record<string, unknown> = {}, at = origin.origin): Promise<string> {
  const { body } = await agent.request({ origin: at, path, method: 'GET', ...extra })
  return await body.text()
}

function isDeadline (timeoutMs: number, phase: string) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof DeadlineExceededError, `expected a DeadlineExceededError, got ${String(err)}`)
    assert.equal(err.code, 'LIB_ERR_DEADLINE_EXCEEDED')
    assert.equal(err.timeoutMs, timeoutMs)
    assert.equal(err.phase, phase)
    assert.match(err.message, new RegExp(`deadline of ${timeoutMs}ms .*phase ${phase}`))
    return true
  }
}

describe('interceptors.deadline()', () => {
  it('fails a request whose head never comes, in the headers phase', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 150 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/hang-head'), isDeadline(150, 'headers'))
  })

  it('fails a body that stops arriving, in the body phase, after the head was delivered', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 150 }))
    t.after(() => agent.destroy())
    const { statusCode, body } = await agent.request({ origin: origin.origin, path: '/hang-body', method: 'GET' })
    assert.equal(statusCode, 200)
    await assert.rejects(body.text(), isDeadline(150, 'body'))
  })

  it('fails a connection whose TLS handshake never completes, in the connect phase', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 150 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/', {}, origin.silentOrigin), isDeadline(150, 'connect'))
  })

  it('fails a request still waiting for a busy connection, in the queue phase', async (t) => {
    const agent = new Agent({ connections: 1 }).compose(interceptors.deadline())
    t.after(() => agent.destroy())
    // Without a budget the first request passes through untouched and holds the one connection.
    const holding = get(agent, '/hang-head').catch((err: Error) => err)
    await assert.rejects(get(agent, '/ok', { deadlineMs: 150 }), isDeadline(150, 'queue'))
    await agent.destroy()
    assert.ok(await holding instanceof Error)
  })

  it('lets an exchange that fits its budget through unchanged', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 5000 }))
    t.after(() => agent.destroy())
    assert.equal(await get(agent, '/slow/20'), 'slow')
    assert.equal(await get(agent, '/ok', { deadlineMs: 5000 }), 'ok')
  })

  it('reads a request\'s own deadlineMs in place of the default budget', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 60_000 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/hang-head', { deadlineMs: 120 }), isDeadline(120, 'headers'))
  })

  it('keeps a shorter budget set further out, and its phase', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 60_000 }), interceptors.deadline({ timeoutMs: 130 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/hang-head'), isDeadline(130, 'headers'))
  })

  it('refuses a retry whose backoff would outlast the budget, without sending it', async (t) => {
    await origin.tell('reset')
    const agent = new Agent().compose(interceptors.retry({ minTimeout: 10_000 }), interceptors.deadline({ timeoutMs: 2000 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/status/503'), (err: unknown) => {
      isDeadline(2000, 'retry-wait')(err)
      assert.ok((err as Error).cause instanceof RequestRetryError, 'the last failure is the cause')
      assert.match((err as Error).message, /not enough to wait 10000ms and retry/)
      return true
    })
    assert.equal((await origin.counts())['/status/503'], 1)
  })

  it('bounds every retry of a failing origin, ending with the deadline rather than after maxRetries', async (t) => {
    await origin.tell('reset')
    const agent = new Agent().compose(interceptors.retry({ minTimeout: 20, timeoutFactor: 1, maxRetries: 1000 }), interceptors.deadline({ timeoutMs: 300 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/status/503'), (err: unknown) => {
      assert.ok(err instanceof DeadlineExceededError)
      assert.ok(['queue', 'connect', 'headers', 'retry-wait'].includes(err.phase), `phase ${err.phase}`)
      return true
    })
    const sent = (await origin.counts())['/status/503'] ?? 0
    assert.ok(sent >= 2 && sent < 1000, `${sent} attempts`)
  })

  it('covers the hops of a redirect chain, failing in the phase of the hop that ran out', async (t) => {
    await origin.tell('reset')
    const agent = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }), interceptors.deadline({ timeoutMs: 150 }))
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/redirect-to/hang-head'), isDeadline(150, 'headers'))
    const counts = await origin.counts()
    assert.equal(counts['/redirect-to/hang-head'], 1)
    assert.equal(counts['/hang-head'], 1)
  })

  it('runs on the runtime\'s clock: a frozen fake clock does not stop it', async (t) => {
    const agent = new Agent().compose(interceptors.deadline({ timeoutMs: 150 }))
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'Date'] })
    t.after(() => { clock.uninstall(); return agent.destroy() })
    await assert.rejects(get(agent, '/hang-head'), isDeadline(150, 'headers'))
  })

  it('rejects a bad budget at once, naming the value', async (t) => {
    assert.throws(() => interceptors.deadline({ timeoutMs: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /deadline\(\): timeoutMs must be a positive number of milliseconds .*got -1/ })
    assert.throws(() => interceptors.deadline({ timeoutMs: Number.NaN }), { code: 'LIB_ERR_INVALID_ARG' })
    assert.throws(() => interceptors.deadline(null as never), { code: 'LIB_ERR_INVALID_ARG', message: /options must be an object/ })
    const agent = new Agent().compose(interceptors.deadline())
    t.after(() => agent.destroy())
    await assert.rejects(get(agent, '/ok', { deadlineMs: 'soon' }), { code: 'LIB_ERR_INVALID_ARG', message: /deadlineMs must be .*got "soon"/ })
  })
})
