import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { getGlobalDispatcher, setGlobalDispatcher } from '../../../src/global.js'
import { request } from '../../../src/top-level.js'
import { fetch } from '../../../src/fetch/fetch.js'

const ORIGIN = 'http://127.0.0.1:3999'

describe('MockAgent as the global dispatcher', () => {
  it('answers the top-level request(), conduit fetch and the runtime fetch', async (t) => {
    const previous = getGlobalDispatcher()
    const agent = new MockAgent()
    agent.disableNetConnect()
    setGlobalDispatcher(agent)
    t.after(async () => { setGlobalDispatcher(previous); await agent.close() })
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/top', method: 'GET' }).reply(200, 'top-level')
    pool.intercept({ path: '/conduit-fetch', method: 'GET' }).reply(200, { via: 'conduit fetch' })
    pool.intercept({ path: '/runtime-fetch', method: 'POST', body: 'from runtime' }).reply(201, 'runtime fetch', { headers: { 'x-mock': '1' } })

    const res = await request(`${ORIGIN}/top`)
    assert.equal(await res.body.text(), 'top-level')
    assert.deepEqual(await (await fetch(`${ORIGIN}/conduit-fetch`)).json(), { via: 'conduit fetch' })
    const runtime = await globalThis.fetch(`${ORIGIN}/runtime-fetch`, { method: 'POST', body: 'from runtime' })
    assert.equal(runtime.status, 201)
    assert.equal(runtime.headers.get('x-mock'), '1')
    assert.equal(await runtime.text(), 'runtime fetch')
    agent.assertNoPendingInterceptors()
  })
})
