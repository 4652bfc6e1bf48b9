import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import type { RequestOptions } from '../../../src/api/request.js'
import { startHttpServer } from '../../helpers/servers.js'

function get (agent: MockAgent, origin: string, path: string) {
  return agent.request({ origin, path, method: 'GET' } as RequestOptions)
}

describe('MockAgent: passthrough to the network', () => {
  it('sends unmatched requests to a real server while net connect is enabled (the default)', async (t) => {
    const server = await startHttpServer((req, res) => res.end(`real ${req.url}`))
    const agent = new MockAgent()
    t.after(async () => { await agent.close(); await server.close() })
    agent.get(server.origin).intercept({ path: '/mocked' }).reply(200, 'mocked')
    assert.equal(await (await get(agent, server.origin, '/mocked')).body.text(), 'mocked')
    assert.equal(await (await get(agent, server.origin, '/other')).body.text(), 'real /other')
    assert.deepEqual(server.requests.map((r) => r.url), ['/other'])
  })

  it('lets through only hosts enabled by enableNetConnect, and refuses the rest', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('real'))
    const agent = new MockAgent()
    t.after(async () => { await agent.close(); await server.close() })
    agent.disableNetConnect()
    await assert.rejects(get(agent, server.origin, '/'), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED', message: /net connect is disabled/ })
    agent.enableNetConnect((host: string) => host === `127.0.0.1:${server.port}`)
    assert.equal(await (await get(agent, server.origin, '/')).body.text(), 'real')
    agent.disableNetConnect()
    agent.enableNetConnect(`127.0.0.1:${server.port}`)
    assert.equal(await (await get(agent, server.origin, '/')).body.text(), 'real')
    agent.enableNetConnect()
    assert.equal(await (await get(agent, server.origin, '/')).body.text(), 'real')
    assert.equal(server.requests.length, 3)
  })

  it('bypasses every interceptor while deactivated and uses them again after activate()', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('real'))
    const agent = new MockAgent()
    t.after(async () => { await agent.close(); await server.close() })
    agent.get(server.origin).intercept({ path: '/' }).reply(200, 'mocked').persist()
    agent.deactivate()
    assert.equal(agent.isMockActive, false)
    assert.equal(await (await get(agent, server.origin, '/')).body.text(), 'real')
    agent.activate()
    assert.equal(await (await get(agent, server.origin, '/')).body.text(), 'mocked')
    assert.equal(server.requests.length, 1)
  })

  it('sends a streamed body that matched no interceptor to the server intact', async (t) => {
    const server = await startHttpServer(async (req, res) => {
      let body = ''
      for await (const chunk of req) body += chunk
      res.end(`got ${body}`)
    })
    const agent = new MockAgent()
    t.after(async () => { await agent.close(); await server.close() })
    agent.get(server.origin).intercept({ path: '/', method: 'POST', body: 'other' }).reply(200, 'mocked')
    const { Readable } = await import('node:stream')
    const res = await agent.request({ origin: server.origin, path: '/', method: 'POST', body: Readable.from(['a', 'b']) })
    assert.equal(await res.body.text(), 'got ab')
  })

  it('uses the dispatcher given as agent for passthrough and closes it with the mock agent', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('real'))
    t.after(() => server.close())
    const { Agent } = await import('../../../src/dispatcher/agent.js')
    const real = new Agent()
    let dispatched = 0
    const counting = real.compose((dispatch) => (opts, handler) => { dispatched++; return dispatch(opts, handler) })
    const agent = new MockAgent({ agent: counting })
    assert.equal(await (await get(agent, server.origin, '/')).body.text(), 'real')
    assert.equal(dispatched, 1)
    await agent.close()
    await assert.rejects(real.request({ origin: server.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })
})
