import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { Agent } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import { authTokenRefresh } from '../../examples/interceptors/auth-token-refresh.js'
import { requestId } from '../../examples/interceptors/request-id.js'

describe('example interceptor: authTokenRefresh', async () => {
  let valid = 'token-1'
  const server = await startHttpServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${valid}`) {
      res.statusCode = 401
      res.end('expired')
      return
    }
    req.resume()
    req.on('end', () => res.end(`hello ${req.url}`))
  })
  const agent = new Agent()
  after(async () => { await agent.close(); await server.close() })

  it('fetches a token on first use and sends it', async () => {
    let refreshes = 0
    const client = agent.compose(authTokenRefresh({ refresh: async () => { refreshes++; return valid } }))
    const res = await client.request({ origin: server.origin, path: '/a', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), 'hello /a')
    assert.equal(refreshes, 1)
  })

  it('refreshes once after a 401 and replays the request; the caller sees only the success', async () => {
    let refreshes = 0
    const tokens = ['old-token', 'token-2']
    valid = 'token-2'
    const client = agent.compose(authTokenRefresh({ refresh: async () => tokens[refreshes++]! }))
    const before = server.requests.length
    const res = await client.request({ origin: server.origin, path: '/b', method: 'POST', body: 'payload' })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), 'hello /b')
    assert.equal(refreshes, 2)
    assert.equal(server.requests.length - before, 2)
  })

  it('shares one refresh between concurrent requests that all got a 401', async () => {
    let refreshes = 0
    valid = 'token-3'
    const client = agent.compose(authTokenRefresh({ refresh: async () => (++refreshes === 1 ? 'stale' : 'token-3') }))
    await (await client.request({ origin: server.origin, path: '/warm', method: 'GET' })).body.text()
    const results = await Promise.all([1, 2, 3].map(async (n) => {
      const res = await client.request({ origin: server.origin, path: `/c${n}`, method: 'GET' })
      return `${res.statusCode} ${await res.body.text()}`
    }))
    assert.deepEqual(results, ['200 hello /c1', '200 hello /c2', '200 hello /c3'])
    assert.equal(refreshes, 2)
  })

  it('passes a second 401 through instead of looping', async () => {
    valid = 'never-issued'
    const client = agent.compose(authTokenRefresh({ refresh: async () => 'wrong' }))
    const res = await client.request({ origin: server.origin, path: '/d', method: 'GET' })
    assert.equal(res.statusCode, 401)
    assert.equal(await res.body.text(), 'expired')
  })

  it('does not replay a stream body', async () => {
    valid = 'token-4'
    const client = agent.compose(authTokenRefresh({ refresh: async () => 'stale' }))
    const res = await client.request({ origin: server.origin, path: '/e', method: 'PUT', body: Readable.from(['x']) })
    assert.equal(res.statusCode, 401)
    await res.body.dump()
  })

  it('fails the request with the refresh error', async () => {
    const client = agent.compose(authTokenRefresh({ refresh: async () => { throw new Error('login service down') } }))
    await assert.rejects(client.request({ origin: server.origin, path: '/f', method: 'GET' }), { message: 'login service down' })
  })

  it('rejects a missing refresh function, naming what it got', () => {
    assert.throws(() => authTokenRefresh({} as never), { name: 'TypeError', message: /refresh must be a function, got undefined/ })
  })
})

describe('example interceptor: requestId', async () => {
  const server = await startHttpServer((req, res) => {
    if (req.url === '/echo') res.setHeader('x-request-id', String(req.headers['x-request-id']))
    res.end()
  })
  const agent = new Agent()
  after(async () => { await agent.close(); await server.close() })

  it('adds a fresh id to the request and shows it on the response', async () => {
    let n = 0
    const client = agent.compose(requestId({ generate: () => `id-${++n}` }))
    const res = await client.request({ origin: server.origin, path: '/', method: 'GET' })
    await res.body.dump()
    assert.equal(res.headers['x-request-id'], 'id-1')
    assert.equal(server.requests.at(-1)!.headers['x-request-id'], 'id-1')
  })

  it('keeps an id the caller set, and the one the server echoed', async () => {
    const client = agent.compose(requestId())
    const res = await client.request({ origin: server.origin, path: '/echo', method: 'GET', headers: { 'X-Request-Id': 'mine' } })
    await res.body.dump()
    assert.equal(res.headers['x-request-id'], 'mine')
    assert.equal(server.requests.at(-1)!.headers['x-request-id'], 'mine')
  })

  it('uses random UUIDs by default', async () => {
    const res = await agent.compose(requestId()).request({ origin: server.origin, path: '/', method: 'GET' })
    await res.body.dump()
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  })

  it('rejects a generate option that is not a function', () => {
    assert.throws(() => requestId({ generate: 'x' as never }), { name: 'TypeError', message: /got string/ })
  })
})
