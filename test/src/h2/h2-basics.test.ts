import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, H2CClient, Pool, errors } from '../../../src/index.js'
import { startH2cServer, startH2sServer, respond } from '../../helpers/h2-server.js'
import { startHttpServer, trustTestCa } from '../../helpers/servers.js'

describe('HTTP/2: protocol selection', async () => {
  const tls = await startH2sServer((stream, headers) => {
    respond(stream, 200, `h2 ${String(headers[':method'])} ${String(headers[':path'])}`, { 'x-proto': 'h2' })
  }, { allowHTTP1: true })
  tls.server.on('request', (req, res) => {
    // Only HTTP/1.1 requests reach the compatibility 'request' event without a stream handler.
    if (req.httpVersion === '1.1') res.end('h1')
  })
  const h2c = await startH2cServer((stream, headers) => respond(stream, 200, `h2c ${String(headers[':path'])}`))
  after(async () => { await tls.close(); await h2c.close() })

  it('negotiates h2 by ALPN with allowH2 and answers over one stream', async () => {
    const client = new Client(tls.origin, { allowH2: true, connect: trustTestCa })
    after(() => client.close())
    const res = await client.request({ path: '/a?b=1', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['x-proto'], 'h2')
    assert.equal(await res.body.text(), 'h2 GET /a?b=1')
    assert.equal(client.protocol, 'h2')
    assert.equal(client.pipelining, 100)
  })

  it('stays on HTTP/1.1 with allowH2: false, against the same server', async () => {
    const client = new Client(tls.origin, { allowH2: false, connect: trustTestCa })
    after(() => client.close())
    const res = await client.request({ path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'h1')
    assert.equal(client.protocol, 'h1')
  })

  it('speaks h2c by prior knowledge through H2CClient and the h2c option', async () => {
    const client = new H2CClient(h2c.origin)
    const agent = new Agent({ h2c: true })
    after(async () => { await client.close(); await agent.close() })
    const a = await client.request({ path: '/x', method: 'GET' })
    assert.equal(await a.body.text(), 'h2c /x')
    const b = await agent.request({ origin: h2c.origin, path: '/y', method: 'GET' })
    assert.equal(await b.body.text(), 'h2c /y')
  })

  it('multiplexes 50 concurrent requests of a Pool over one session', async () => {
    const before = tls.sessions
    const pool = new Pool(tls.origin, { allowH2: true, connect: trustTestCa })
    after(() => pool.close())
    const bodies = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const res = await pool.request({ path: `/${i}`, method: 'GET' })
      return await res.body.text()
    }))
    assert.deepEqual(bodies, Array.from({ length: 50 }, (_, i) => `h2 GET /${i}`))
    assert.equal(tls.sessions - before, 1)
    assert.equal(pool.clientCount, 1)
  })

  it('refuses an H2CClient for an https: origin, and bad HTTP/2 options, naming the value', () => {
    assert.throws(() => new H2CClient('https://localhost:1'), { code: 'LIB_ERR_INVALID_ARG', message: /https:\/\/localhost:1/ })
    assert.throws(() => new Client('http://127.0.0.1:1', { maxConcurrentStreams: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxConcurrentStreams.*0/ })
    assert.throws(() => new Client('http://127.0.0.1:1', { initialWindowSize: 10 }), { code: 'LIB_ERR_INVALID_ARG', message: /initialWindowSize.*10/ })
    assert.throws(() => new Client('http://127.0.0.1:1', { allowH2: 'yes' as unknown as boolean }), { code: 'LIB_ERR_INVALID_ARG', message: /allowH2.*"yes"/ })
    assert.throws(() => new Agent({ pingInterval: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /pingInterval.*-1/ })
    assert.ok(errors.InvalidArgumentError)
  })

  it('falls back to HTTP/1.1 when the server does not offer h2', async () => {
    const plain = await startHttpServer((_req, res) => res.end('plain'))
    const agent = new Agent({ allowH2: true })
    after(async () => { await agent.close(); await plain.close() })
    const res = await agent.request({ origin: plain.origin, path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'plain')
  })
})
