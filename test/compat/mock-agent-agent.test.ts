/**
 * MockAgent's own methods (get, request, dispatch, activate/deactivate, net connect,
 * pendingInterceptors, assertNoPendingInterceptors, close) and its call history, run through
 * undici's MockAgent and conduit's: each scenario must give the same observable result in both.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { MOCK_ORIGIN, inBoth, requestSummary } from './mock-agent-compat.js'
import type { LooseMockAgent } from './mock-agent-compat.js'

async function sameInBoth (scenario: (agent: LooseMockAgent) => Promise<unknown>, agentOptions: object = {}): Promise<unknown> {
  const { undici, conduit } = await inBoth(scenario, agentOptions)
  assert.deepEqual(conduit, undici)
  assert.ok('value' in undici, `the scenario itself failed: ${JSON.stringify(undici)}`)
  return undici
}

describe('MockAgent methods match undici', () => {
  let server: TestServer
  before(async () => {
    server = await startHttpServer((req, res) => res.end(`real ${req.url ?? ''}`))
  })
  after(() => server.close())

  it('get() returns one pool per origin, whatever the spelling', async () => {
    const outcome = await sameInBoth(async (agent) => {
      const pool = agent.get(MOCK_ORIGIN)
      return { same: agent.get(`${MOCK_ORIGIN}/`) === pool || agent.get(new URL(MOCK_ORIGIN)) === pool, other: agent.get('http://127.0.0.1:6') === pool }
    })
    assert.deepEqual(outcome, { value: { same: true, other: false } })
  })

  it('request() and dispatch() both reach the interceptor', async () => {
    await sameInBoth(async (agent) => {
      agent.get(MOCK_ORIGIN).intercept({ path: '/r' }).reply(200, 'via request')
      agent.get(MOCK_ORIGIN).intercept({ path: '/d' }).reply(201, 'via dispatch')
      const viaRequest = await requestSummary(agent, { path: '/r' })
      const viaDispatch = await new Promise((resolve, reject) => {
        const chunks: Buffer[] = []
        let status = 0
        agent.dispatch({ origin: MOCK_ORIGIN, path: '/d', method: 'GET' }, {
          onRequestStart () {},
          onResponseStart (_c: unknown, statusCode: number) { status = statusCode },
          onResponseData (_c: unknown, chunk: Buffer) { chunks.push(chunk) },
          onResponseEnd () { resolve({ status, body: Buffer.concat(chunks).toString() }) },
          onResponseError (_c: unknown, err: Error) { reject(err) }
        })
      })
      return { viaRequest, viaDispatch }
    })
  })

  it('deactivate() sends requests to the real network and activate() brings the mocks back', async () => {
    const outcome = await sameInBoth(async (agent) => {
      agent.get(server.origin).intercept({ path: '/x' }).reply(200, 'mocked').persist()
      agent.deactivate()
      const real = await requestSummary(agent, { origin: server.origin, path: '/x' })
      agent.activate()
      const mocked = await requestSummary(agent, { origin: server.origin, path: '/x' })
      return [real.body, mocked.body]
    })
    assert.deepEqual(outcome, { value: ['real /x', 'mocked'] })
  })

  it('enableNetConnect(host) lets unmatched requests to that host through; disableNetConnect() stops them', async () => {
    const outcome = await sameInBoth(async (agent) => {
      agent.enableNetConnect(new URL(server.origin).host)
      const through = await requestSummary(agent, { origin: server.origin, path: '/open' })
      agent.disableNetConnect()
      try {
        await requestSummary(agent, { origin: server.origin, path: '/closed' })
        return [through.body, 'answered']
      } catch (err) {
        return [through.body, (err as { code: string }).code.replace(/^(UND|LIB)_/, '')]
      }
    })
    assert.deepEqual(outcome, { value: ['real /open', 'MOCK_ERR_MOCK_NOT_MATCHED'] })
  })

  it('enableNetConnect() with a RegExp or a predicate lets matching hosts through', async () => {
    const outcome = await sameInBoth(async (agent) => {
      const host = new URL(server.origin).host
      agent.enableNetConnect(/127\.0\.0\.1/)
      const byRegExp = await requestSummary(agent, { origin: server.origin, path: '/re' })
      agent.disableNetConnect()
      agent.enableNetConnect((candidate: string) => candidate === host)
      const byPredicate = await requestSummary(agent, { origin: server.origin, path: '/fn' })
      return [byRegExp.body, byPredicate.body]
    })
    assert.deepEqual(outcome, { value: ['real /re', 'real /fn'] })
  })

  it('answers the same through a MockClient (connections: 1)', async () => {
    await sameInBoth(async (agent) => {
      const client = agent.get(MOCK_ORIGIN)
      client.intercept({ path: '/c' }).reply(200, 'client')
      return { kind: client.constructor.name, response: await requestSummary(agent, { path: '/c' }) }
    }, { connections: 1 })
  })

  it('applies the agent-wide ignoreTrailingSlash and acceptNonStandardSearchParameters options', async () => {
    await sameInBoth(async (agent) => {
      agent.get(MOCK_ORIGIN).intercept({ path: '/c/' }).reply(200, 'slash ignored')
      return requestSummary(agent, { path: '/c' })
    }, { ignoreTrailingSlash: true })
    await sameInBoth(async (agent) => {
      agent.get(MOCK_ORIGIN).intercept({ path: '/list', query: { tag: ['a', 'b'] } }).reply(200, 'list')
      return requestSummary(agent, { path: '/list?tag[]=a&tag[]=b' })
    }, { acceptNonStandardSearchParameters: true })
  })

  it('a pool closed on its own refuses requests while the agent serves other origins', async () => {
    await sameInBoth(async (agent) => {
      const pool = agent.get(MOCK_ORIGIN)
      pool.intercept({ path: '/p' }).reply(200, 'x')
      agent.get('http://127.0.0.1:6').intercept({ path: '/other' }).reply(200, 'other')
      await pool.close()
      const other = await requestSummary(agent, { origin: 'http://127.0.0.1:6', path: '/other' })
      return { other: other.body }
    })
  })

  it('pendingInterceptors() lists the same fields for waiting interceptors', async () => {
    await sameInBoth(async (agent) => {
      const pool = agent.get(MOCK_ORIGIN)
      pool.intercept({ path: '/static', method: 'POST', body: 'b' }).reply(200, 'x', { headers: { 'x-h': '1' } }).times(2)
      pool.intercept({ path: '/used' }).reply(200, 'y')
      pool.intercept({ path: '/slash/', ignoreTrailingSlash: true }).replyWithError(new Error('e'))
      await requestSummary(agent, { path: '/used' })
      return agent.pendingInterceptors().map((p: Record<string, unknown>) => ({
        origin: p.origin,
        path: p.path,
        method: p.method,
        body: p.body,
        times: p.times,
        timesInvoked: p.timesInvoked,
        persist: p.persist,
        consumed: p.consumed,
        pending: p.pending,
        ignoreTrailingSlash: p.ignoreTrailingSlash,
        data: { ...(p.data as object), error: (p.data as { error: Error | null }).error?.message ?? null }
      }))
    })
  })

  it('assertNoPendingInterceptors() throws only while an interceptor waits', async () => {
    const outcome = await sameInBoth(async (agent) => {
      agent.assertNoPendingInterceptors()
      agent.get(MOCK_ORIGIN).intercept({ path: '/wait' }).reply(200, 'x')
      let threw = false
      try {
        agent.assertNoPendingInterceptors()
      } catch (err) {
        threw = /1 interceptor is pending/.test((err as Error).message)
      }
      await requestSummary(agent, { path: '/wait' })
      agent.assertNoPendingInterceptors()
      return threw
    })
    assert.deepEqual(outcome, { value: true })
  })

  it('close() resolves and the agent then refuses requests as destroyed', async () => {
    const { undici, conduit } = await inBoth(async (agent) => {
      agent.get(MOCK_ORIGIN).intercept({ path: '/c' }).reply(200, 'x')
      await agent.close()
      return requestSummary(agent, { path: '/c' })
    })
    assert.deepEqual(undici, { error: 'ClientDestroyedError', code: 'ERR_DESTROYED' })
    assert.deepEqual(conduit, undici)
  })
})

describe('MockAgent call history matches undici', () => {
  async function withCalls (agent: LooseMockAgent): Promise<LooseMockAgent> {
    agent.get(MOCK_ORIGIN).intercept({ path: /.*/, method: /.*/ }).reply(200, 'ok').persist()
    await requestSummary(agent, { path: '/one?a=1', method: 'POST', body: 'first', headers: { 'x-n': '1' } })
    await requestSummary(agent, { path: '/two', method: 'GET' })
    await requestSummary(agent, { path: '/three#frag', method: 'PUT', body: 'third' })
    return agent.getCallHistory()
  }

  const fields = (log: Record<string, unknown> | undefined): unknown => log === undefined
    ? undefined
    : { method: log.method, path: log.path, origin: log.origin, fullUrl: log.fullUrl, protocol: log.protocol, host: log.host, port: log.port, searchParams: log.searchParams, body: log.body }

  it('records calls with the same URL parts and bodies, and picks them the same way', async () => {
    await sameInBoth(async (agent) => {
      const history = await withCalls(agent)
      return {
        calls: history.calls().map(fields),
        first: fields(history.firstCall()),
        last: fields(history.lastCall()),
        second: fields(history.nthCall(2)),
        outOfRange: history.nthCall(9)
      }
    }, { enableCallHistory: true })
  })

  // undici 7.30's filterCallsBy<Field>() methods throw inside undici itself (they read a field that
  // does not exist), so they are tested on their own in the call history tests, not against it.
  it('filters calls by predicate, RegExp and object criteria with either operator', async () => {
    await sameInBoth(async (agent) => {
      const history = await withCalls(agent)
      const paths = (logs: Array<{ path: string }>): string[] => logs.map((log) => log.path)
      return {
        byPredicate: paths(history.filterCalls((log: { body: unknown }) => log.body === 'third')),
        byRegExp: paths(history.filterCalls(/one/)),
        byObjectOr: paths(history.filterCalls({ method: 'GET', path: '/one' })),
        byObjectAnd: paths(history.filterCalls({ method: 'POST', path: '/one' }, { operator: 'AND' })),
        byObjectAndMiss: paths(history.filterCalls({ method: 'GET', path: '/one' }, { operator: 'AND' }))
      }
    }, { enableCallHistory: true })
  })

  it('turns a log into a map and a string, and clears, disables and re-enables the history', async () => {
    await sameInBoth(async (agent) => {
      const history = await withCalls(agent)
      const first = history.firstCall()
      const map = Object.fromEntries([...first.toMap()].filter(([key]) => key !== 'headers'))
      const text = first.toString()
      history.clear()
      const afterClear = history.calls().length
      await requestSummary(agent, { path: '/again' })
      agent.clearCallHistory()
      const afterAgentClear = history.calls().length
      agent.disableCallHistory()
      await requestSummary(agent, { path: '/unlogged' })
      const whileDisabled = history.calls().length
      agent.enableCallHistory()
      await requestSummary(agent, { path: '/logged' })
      return { map, text, afterClear, afterAgentClear, whileDisabled, finally: history.calls().map((log: { path: string }) => log.path) }
    }, { enableCallHistory: true })
  })
})
