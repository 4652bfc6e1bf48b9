import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { retry } from '../../../interceptors/retry/index.js'
import { cache } from '../../../interceptors/cache/index.js'
import type { RequestOptions } from '../../../src/api/request.js'

const ORIGIN = 'http://127.0.0.1:3999'

describe('MockAgent under the shipped interceptors', () => {
  it('lets the retry interceptor retry mocked errors and statuses until a mocked success', async (t) => {
    const agent = new MockAgent()
    agent.disableNetConnect()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/flaky' }).replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))
    pool.intercept({ path: '/flaky' }).reply(503, 'busy')
    pool.intercept({ path: '/flaky' }).reply(200, 'finally')
    const composed = agent.compose(retry({ minTimeout: 1, maxTimeout: 1, retryAfter: false }))
    const res = await composed.request({ origin: ORIGIN, path: '/flaky', method: 'GET' } as RequestOptions)
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), 'finally')
    agent.assertNoPendingInterceptors()
  })

  it('lets the cache interceptor serve a second request without asking the mock again', async (t) => {
    const agent = new MockAgent({ enableCallHistory: true })
    agent.disableNetConnect()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/cached' }).reply(200, 'stored', { headers: { 'cache-control': 'max-age=60' } })
    const composed = agent.compose(cache())
    for (let i = 0; i < 2; i++) {
      const res = await composed.request({ origin: ORIGIN, path: '/cached', method: 'GET' } as RequestOptions)
      assert.equal(await res.body.text(), 'stored')
    }
    assert.equal(agent.getCallHistory()!.calls().length, 1)
  })
})
