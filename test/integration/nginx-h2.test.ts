import { describe, it, after, before } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { Agent, Client, Pool, fetch, interceptors, cacheStores } from '../../src/index.js'
import { startNginx } from './helpers/nginx.js'
import { trustTestCa } from '../helpers/servers.js'

describe('HTTP/2 against a real nginx (http2 over TLS)', () => {
  const big = randomBytes(1024 * 1024 + 3)
  // Started in a hook, not in an async describe body: a failure there must fail the run on every
  // runtime's test runner (Node 22's exits 0 when an async describe body rejects before any test).
  let nginx!: Awaited<ReturnType<typeof startNginx>>
  before(async () => { nginx = await startNginx({ 'big.bin': big }) })
  after(() => nginx?.stop())

  it('negotiates h2 with allowH2 and gets the body', async () => {
    const client = new Client(nginx.origin, { allowH2: true, connect: trustTestCa })
    after(() => client.close())
    const res = await client.request({ path: '/hello', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), 'hello from nginx')
    assert.equal(client.protocol, 'h2')
  })

  it('downloads 1 MiB bodies on 20 concurrent streams of one session', async () => {
    const pool = new Pool(nginx.origin, { allowH2: true, connect: trustTestCa })
    after(() => pool.close())
    const digest = createHash('sha256').update(big).digest('hex')
    const digests = await Promise.all(Array.from({ length: 20 }, async () => {
      const res = await pool.request({ path: '/big.bin', method: 'GET' })
      const hash = createHash('sha256')
      for await (const chunk of res.body) hash.update(chunk as Buffer)
      return hash.digest('hex')
    }))
    assert.deepEqual(new Set(digests), new Set([digest]))
    assert.equal(pool.clientCount, 1)
  })

  it('uploads a request body with flow control', async () => {
    const agent = new Agent({ allowH2: true, connect: trustTestCa })
    after(() => agent.close())
    const res = await agent.request({ origin: nginx.origin, path: '/upload', method: 'POST', body: randomBytes(4 * 1024 * 1024) })
    assert.equal(res.statusCode, 201)
    assert.equal(await res.body.text(), 'stored')
  })

  it('runs fetch and the cache interceptor over the session', async () => {
    const agent = new Agent({ allowH2: true, connect: trustTestCa })
    after(() => agent.close())
    const res = await fetch(`${nginx.origin}/hello`, { dispatcher: agent })
    assert.equal(await res.text(), 'hello from nginx')
    const cached = agent.compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore(), cacheStatus: true }))
    await (await cached.request({ origin: nginx.origin, path: '/cached', method: 'GET' })).body.text()
    const hit = await cached.request({ origin: nginx.origin, path: '/cached', method: 'GET' })
    assert.equal(await hit.body.text(), 'cacheable')
    assert.match(String(hit.headers['cache-status']), /hit/)
  })

  it('answers 404 for a missing file as over HTTP/1.1', async () => {
    const h2 = new Client(nginx.origin, { connect: trustTestCa })
    const h1 = new Client(nginx.origin, { allowH2: false, connect: trustTestCa })
    after(async () => { await h2.close(); await h1.close() })
    const [a, b] = await Promise.all([h2, h1].map((c) => c.request({ path: '/missing', method: 'GET' })))
    assert.equal(a!.statusCode, 404)
    assert.equal(b!.statusCode, 404)
    await a!.body.dump()
    await b!.body.dump()
    assert.deepEqual([h2.protocol, h1.protocol], ['h2', 'h1'])
  })
})
