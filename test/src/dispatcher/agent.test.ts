import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, Pool } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../../helpers/servers.js'

function echo (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    res.setHeader('x-method', req.method ?? '')
    res.end(Buffer.concat(chunks).toString() || req.url)
  })
}

describe('Agent', () => {
  it('reuses one kept-alive connection for 20 sequential requests', async (t) => {
    const server = await startHttpServer(echo)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    for (let i = 0; i < 20; i++) {
      const { statusCode, body } = await agent.request({ origin: server.origin, path: `/n${i}`, method: 'GET' })
      assert.equal(statusCode, 200)
      assert.equal(await body.text(), `/n${i}`)
    }
    assert.equal(server.connections, 1)
    assert.equal(server.requests.length, 20)
  })

  it('sends a POST body and reads the response', async (t) => {
    const server = await startHttpServer(echo)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const { statusCode, headers, body } = await agent.request({ origin: server.origin, path: '/', method: 'POST', body: 'hello world' })
    assert.equal(statusCode, 200)
    assert.equal(headers['x-method'], 'POST')
    assert.equal(await body.text(), 'hello world')
    assert.equal(server.requests[0]?.headers['content-length'], '11')
  })

  it('talks HTTPS to a server whose certificate is signed by the trusted test CA', async (t) => {
    const server = await startHttpsServer(echo)
    const agent = new Agent({ connect: trustTestCa })
    t.after(async () => { await agent.close(); await server.close() })
    for (let i = 0; i < 3; i++) {
      const { statusCode, body } = await agent.request({ origin: server.origin, path: '/secure', method: 'GET' })
      assert.equal(statusCode, 200)
      assert.equal(await body.text(), '/secure')
    }
    assert.equal(server.connections, 1)
  })

  it('keeps one pool per origin and builds them with the factory', async (t) => {
    const a = await startHttpServer(echo)
    const b = await startHttpServer(echo)
    const built: string[] = []
    const agent = new Agent({ factory: (origin, opts) => { built.push(origin); return new Pool(origin, opts) } })
    t.after(async () => { await agent.close(); await a.close(); await b.close() })
    for (const origin of [a.origin, b.origin, a.origin, new URL(b.origin)]) {
      const { body } = await agent.request({ origin, path: '/', method: 'GET' })
      await body.text()
    }
    assert.deepEqual(built, [a.origin, b.origin])
  })

  it('uses a Client for an origin when connections is 1', async (t) => {
    const server = await startHttpServer(echo)
    let made: unknown
    const agent = new Agent({ connections: 1, factory: (origin, opts) => { made = new Client(origin, opts); return made as Client } })
    t.after(async () => { await agent.close(); await server.close() })
    const { body } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    await body.text()
    assert.ok(made instanceof Client)
  })

  it('rejects a dispatch without an origin with LIB_ERR_INVALID_ARG', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    await assert.rejects(agent.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_INVALID_ARG' })
  })

  it('emits connect and disconnect with itself, the pool and the client as targets', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('connection', 'close'); res.end('x') })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const events: Array<[string, string, number]> = []
    for (const name of ['connect', 'disconnect']) {
      agent.on(name, (origin: URL, targets: Dispatcher[]) => {
        events.push([name, origin.origin, targets.length])
        assert.equal(targets[0], agent)
        assert.ok(targets[1] instanceof Pool)
        assert.ok(targets[2] instanceof Client)
      })
    }
    const disconnected = new Promise((resolve) => agent.once('disconnect', resolve))
    await (await agent.request({ origin: server.origin, path: '/', method: 'GET' })).body.text()
    await disconnected
    assert.deepEqual(events, [['connect', server.origin, 3], ['disconnect', server.origin, 3]])
  })
})
