import { it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { describeWithEachStore } from './cache-store-matrix.js'
import type { StoreFactory } from './cache-store-matrix.js'
import type { TestContext } from 'node:test'

/** A server that answers with the Host it was asked for, cacheable for a minute; and a cache in front of it. */
async function setup (t: TestContext, makeStore: StoreFactory) {
  const server = await startHttpServer((req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method !== 'GET') {
      res.end('changed')
      return
    }
    res.setHeader('cache-control', 'max-age=60')
    res.end(`for ${req.headers.host ?? ''}`)
  })
  const store = makeStore(t)
  const agent = new Agent()
  const dispatcher = agent.compose(interceptors.cache({ store }))
  t.after(async () => {
    await agent.destroy()
    await server.close()
  })
  const send = async (headers: Record<string, string> = {}, method = 'GET'): Promise<string> => {
    const res = await dispatcher.request({ origin: server.origin, path: '/page', method, headers })
    const body = await res.body.text()
    await store.settled()
    return body
  }
  return { server, send, plain: `for 127.0.0.1:${server.port}` }
}

describeWithEachStore('a request whose Host header names another authority', (makeStore) => {
  it('is not stored, so a plain request for the origin never gets its answer', async (t) => {
    const { server, send, plain } = await setup(t, makeStore)
    assert.equal(await send({ host: 'evil.example' }), 'for evil.example')
    assert.equal(await send(), plain)
    assert.equal(server.requests.length, 2)
    // The plain answer was stored and is served from the cache.
    assert.equal(await send(), plain)
    assert.equal(server.requests.length, 2)
  })

  it('is not served the origin\'s stored answer either', async (t) => {
    const { server, send, plain } = await setup(t, makeStore)
    assert.equal(await send(), plain)
    assert.equal(await send({ Host: 'evil.example' }), 'for evil.example')
    assert.equal(server.requests.length, 2)
  })

  it('is cached as usual when the Host names the origin itself (case and default port aside)', async (t) => {
    const { server, send, plain } = await setup(t, makeStore)
    assert.equal(await send({ host: `127.0.0.1:${server.port}` }), plain)
    assert.equal(await send(), plain)
    assert.equal(server.requests.length, 1)
  })

  it('does not invalidate the origin\'s entries with an unsafe method, while a plain unsafe request does', async (t) => {
    const { server, send, plain } = await setup(t, makeStore)
    assert.equal(await send(), plain)
    assert.equal(await send({ host: 'evil.example' }, 'POST'), 'changed')
    assert.equal(await send(), plain)
    assert.equal(server.requests.length, 2, 'the POST for another host left the stored answer in place')
    assert.equal(await send({}, 'POST'), 'changed')
    assert.equal(await send(), plain)
    assert.equal(server.requests.length, 4, 'the plain POST invalidated it')
  })
})
