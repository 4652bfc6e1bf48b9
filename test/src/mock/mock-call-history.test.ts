import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { MockCallHistory, MockCallHistoryLog } from '../../../src/mock/mock-call-history.js'
import type { RequestOptions } from '../../../src/api/request.js'

const ORIGIN = 'http://127.0.0.1:9'

async function call (agent: MockAgent, opts: Partial<RequestOptions>): Promise<void> {
  const res = await agent.request({ origin: ORIGIN, method: 'GET', ...opts } as RequestOptions)
  await res.body.dump()
}

function mocked (opts: ConstructorParameters<typeof MockAgent>[0] = {}): MockAgent {
  const agent = new MockAgent(opts)
  agent.disableNetConnect()
  agent.get(ORIGIN).intercept({ path: /.*/, method: /.*/ }).reply(200, 'ok').persist()
  return agent
}

describe('MockAgent call history', () => {
  it('is off until enabled, then logs every request with its URL parts, headers and body', async (t) => {
    const agent = mocked()
    t.after(() => agent.close())
    assert.equal(agent.getCallHistory(), undefined)
    await call(agent, { path: '/skipped' })
    const history = agent.enableCallHistory().getCallHistory()!
    assert.ok(history instanceof MockCallHistory)
    await call(agent, { path: '/users?id=1#top', method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'hi' })
    assert.equal(history.calls().length, 1)
    const log = history.firstCall()!
    assert.ok(log instanceof MockCallHistoryLog)
    assert.equal(log.method, 'POST')
    assert.equal(log.protocol, 'http:')
    assert.equal(log.host, '127.0.0.1:9')
    assert.equal(log.port, '9')
    assert.equal(log.origin, ORIGIN)
    assert.equal(log.path, '/users')
    assert.deepEqual(log.searchParams, { id: '1' })
    assert.equal(log.hash, '#top')
    assert.equal(log.fullUrl, `${ORIGIN}/users?id=1#top`)
    assert.deepEqual(log.headers, { 'content-type': 'text/plain' })
    assert.equal(log.body, 'hi')
    assert.equal(log.toString(), `protocol->http:|host->127.0.0.1:9|port->9|origin->${ORIGIN}|path->/users|hash->#top|searchParams->{"id":"1"}|fullUrl->${ORIGIN}/users?id=1#top|method->POST|body->hi|headers->{"content-type":"text/plain"}`)
  })

  it('logs from the start with enableCallHistory: true, and stops when disabled', async (t) => {
    const agent = mocked({ enableCallHistory: true })
    t.after(() => agent.close())
    await call(agent, { path: '/a' })
    agent.disableCallHistory()
    await call(agent, { path: '/b' })
    assert.deepEqual(agent.getCallHistory()!.calls().map((l) => l.path), ['/a'])
    agent.clearCallHistory()
    assert.deepEqual(agent.getCallHistory()!.calls(), [])
  })

  it('logs requests that no interceptor matched too', async (t) => {
    const agent = new MockAgent({ enableCallHistory: true })
    agent.disableNetConnect()
    t.after(() => agent.close())
    await assert.rejects(call(agent, { path: '/nothing' }), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED' })
    assert.equal(agent.getCallHistory()!.lastCall()!.path, '/nothing')
  })

  it('picks calls by position and filters them by field, RegExp or predicate', async (t) => {
    const agent = mocked({ enableCallHistory: true })
    t.after(() => agent.close())
    await call(agent, { path: '/a', method: 'GET' })
    await call(agent, { path: '/b', method: 'POST' })
    await call(agent, { path: '/c', method: 'POST', query: { x: '1' } })
    const history = agent.getCallHistory()!
    assert.equal(history.nthCall(2)!.path, '/b')
    assert.equal(history.lastCall()!.fullUrl, `${ORIGIN}/c?x=1`)
    assert.deepEqual([...history].map((l) => l.path), ['/a', '/b', '/c'])
    assert.deepEqual(history.filterCallsByMethod('POST').map((l) => l.path), ['/b', '/c'])
    assert.deepEqual(history.filterCallsByPath(/^\/[ab]$/).map((l) => l.path), ['/a', '/b'])
    assert.deepEqual(history.filterCallsByFullUrl(`${ORIGIN}/a`).map((l) => l.path), ['/a'])
    assert.deepEqual(history.filterCallsByProtocol('http:').length, 3)
    assert.deepEqual(history.filterCallsByHost('127.0.0.1:9').length, 3)
    assert.deepEqual(history.filterCallsByPort('9').length, 3)
    assert.deepEqual(history.filterCallsByOrigin(ORIGIN).length, 3)
    assert.deepEqual(history.filterCallsByHash('').length, 3)
    assert.deepEqual(history.filterCalls({ method: 'POST', path: '/a' }).map((l) => l.path), ['/a', '/b', '/c'])
    assert.deepEqual(history.filterCalls({ method: 'POST', path: '/b' }, { operator: 'and' }).map((l) => l.path), ['/b'])
    assert.deepEqual(history.filterCalls(/x->|x=1/).map((l) => l.path), ['/c'])
    assert.deepEqual(history.filterCalls((l) => l.path !== '/a').map((l) => l.path), ['/b', '/c'])
    assert.equal(history.filterCalls({}).length, 3)
  })

  it('rejects bad filter arguments naming the value', (t) => {
    const agent = mocked({ enableCallHistory: true })
    t.after(() => agent.close())
    const history = agent.getCallHistory()!
    assert.throws(() => history.nthCall(0), { code: 'LIB_ERR_INVALID_ARG', message: /got 0/ })
    assert.throws(() => history.filterCalls({ method: 'GET' }, { operator: 'XOR' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /got "XOR"$/ })
    assert.throws(() => history.filterCalls(42 as never), { code: 'LIB_ERR_INVALID_ARG', message: /got 42$/ })
    assert.throws(() => history.filterCallsByMethod(42 as never), { code: 'LIB_ERR_INVALID_ARG', message: /got 42$/ })
  })
})
