import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, Pool, cacheStores, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

async function cacheableServer (): Promise<TestServer> {
  let n = 0
  return await startHttpServer((req, res) => {
    res.setHeader('cache-control', 'max-age=60')
    res.end(`answer ${++n}`)
  })
}

async function read (dispatcher: Dispatcher, opts: { origin?: string, path?: string }): Promise<string> {
  const { body } = await dispatcher.request({ path: '/', method: 'GET', ...opts })
  return await body.text()
}

describe('interceptors.cache() origin keying', () => {
  it('caches requests without an origin over a Client and a Pool, keyed by their origin', async (t) => {
    const server = await cacheableServer()
    const client = new Client(server.origin)
    const pool = new Pool(server.origin)
    t.after(async () => { await client.close(); await pool.close(); await server.close() })
    const store = new cacheStores.MemoryCacheStore()
    const viaClient = client.compose(interceptors.cache({ store }))
    const viaPool = pool.compose(interceptors.cache({ store }))
    assert.equal(await read(viaClient, {}), 'answer 1')
    assert.equal(await read(viaClient, {}), 'answer 1')
    // The same key, whichever dispatcher and whether the request names the origin or not.
    assert.equal(await read(viaPool, {}), 'answer 1')
    assert.equal(await read(viaPool, { origin: server.origin }), 'answer 1')
    assert.equal(server.requests.length, 1)
  })

  it('keys a Client request whose origin is not a URL ("localhost") by that string, as given', async (t) => {
    const server = await cacheableServer()
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const cached = client.compose(interceptors.cache())
    assert.equal(await read(cached, { origin: 'localhost' }), 'answer 1')
    assert.equal(await read(cached, { origin: 'localhost' }), 'answer 1')
    assert.equal(await read(cached, { origin: 'other-name' }), 'answer 2')
    assert.equal(server.requests.length, 2)
  })

  it('tells which dispatchers have a default origin', async (t) => {
    const client = new Client('http://127.0.0.1:9')
    const agent = new Agent()
    t.after(async () => { await client.close(); await agent.close() })
    assert.equal(client.defaultOrigin, 'http://127.0.0.1:9')
    assert.equal(client.compose(interceptors.debug({ logger: () => {} })).defaultOrigin, 'http://127.0.0.1:9')
    assert.equal(agent.defaultOrigin, undefined)
  })

  it('caches only origins the origins option allows, by string or RegExp', async (t) => {
    const allowed = await cacheableServer()
    const byRegExp = await cacheableServer()
    const other = await cacheableServer()
    const agent = new Agent()
    t.after(async () => { await agent.close(); await allowed.close(); await byRegExp.close(); await other.close() })
    const cached = agent.compose(interceptors.cache({ origins: [allowed.origin.toUpperCase(), new RegExp(`:${byRegExp.port}$`)] }))
    for (const server of [allowed, byRegExp, other]) {
      await read(cached, { origin: server.origin })
      await read(cached, { origin: server.origin })
    }
    assert.equal(allowed.requests.length, 1)
    assert.equal(byRegExp.requests.length, 1)
    assert.equal(other.requests.length, 2)
  })

  it('refuses origins that are not an array of strings and RegExps, naming the value', () => {
    assert.throws(() => interceptors.cache({ origins: 'http://a' as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'cache(): origins must be an array of strings and RegExps, got "http://a"' })
    assert.throws(() => interceptors.cache({ origins: ['http://a', 5] as never }), { message: 'cache(): origins[1] must be a string or a RegExp, got 5' })
  })
})
