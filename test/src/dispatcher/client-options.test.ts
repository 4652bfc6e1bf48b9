import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { Agent, Client, Pool } from '../../../src/index.js'
import type { DispatchController } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

const text = async (p: Promise<{ body: { text: () => Promise<string> } }>): Promise<string> => await (await p).body.text()

describe('Client connection options', () => {
  it('replaces the connection after maxRequestsPerClient requests', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const client = new Client(server.origin, { maxRequestsPerClient: 2 })
    t.after(async () => { await client.close(); await server.close() })
    for (let i = 0; i < 5; i++) await text(client.request({ path: '/', method: 'GET' }))
    assert.equal(server.connections, 3)
  })

  it('sends connection: close and opens a new connection after a request with reset', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await text(client.request({ path: '/', method: 'GET', reset: true }))
    await text(client.request({ path: '/', method: 'GET' }))
    assert.equal(server.requests[0]!.headers.connection, 'close')
    assert.equal(server.connections, 2)
  })

  it('sends the real body length when strictContentLength is off and the header disagrees', async (t) => {
    const server = await startHttpServer((req, res) => { let n = 0; req.on('data', (c: Buffer) => { n += c.length }); req.on('end', () => res.end(`${String(req.headers['content-length'])}:${n}`)) })
    const client = new Client(server.origin, { strictContentLength: false })
    t.after(async () => { await client.close(); await server.close() })
    assert.equal(await text(client.request({ path: '/', method: 'POST', headers: { 'content-length': '2' }, body: 'hello' })), '5:5')
  })

  it('delivers a response that arrives before the request body was sent, and does not reuse the connection', async (t) => {
    const server = await startHttpServer((req, res) => { res.statusCode = 413; res.setHeader('connection', 'keep-alive'); res.end('too big') })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    let produced = 0
    const body = new Readable({
      read () {
        if (produced++ < 1000) this.push(Buffer.alloc(16 * 1024, 'a'))
        else this.push(null)
      }
    })
    const { statusCode, body: responseBody } = await client.request({ path: '/', method: 'POST', body })
    assert.equal(statusCode, 413)
    assert.equal(await responseBody.text(), 'too big')
    assert.equal(await text(client.request({ path: '/', method: 'GET' })), 'too big')
    assert.equal(server.connections, 2)
  })

  it('fails the request with the error a handler hook throws, exactly once', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    const boom = new Error('handler bug')
    handler.onChunk = () => { throw boom }
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'error'])
    assert.equal(handler.error, boom)
    assert.equal(await text(client.request({ path: '/', method: 'GET' })), 'x')
  })
})

describe('Agent and Pool housekeeping', () => {
  it('drops the pool of an origin once its connections are gone', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('connection', 'close'); res.end('x') })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const disconnected = new Promise((resolve) => agent.once('disconnect', resolve))
    await text(agent.request({ origin: server.origin, path: '/', method: 'GET' }))
    await disconnected
    assert.equal(agent.origins, 0)
    assert.equal(await text(agent.request({ origin: server.origin, path: '/', method: 'GET' })), 'x')
  })

  it('fails a request waiting in the pool queue as soon as its signal aborts', async (t) => {
    const server = await startHttpServer(() => {})
    const pool = new Pool(server.origin, { connections: 1 })
    t.after(async () => { await pool.destroy(); await server.close() })
    pool.dispatch({ path: '/busy', method: 'GET' }, new RecordingHandler())
    const ac = new AbortController()
    const waiting = new RecordingHandler()
    pool.dispatch({ path: '/waiting', method: 'GET', signal: ac.signal }, waiting)
    assert.equal(pool.pending, 1)
    ac.abort(new Error('gave up'))
    await waiting.done
    assert.deepEqual(waiting.events, ['error'])
    assert.equal(waiting.error!.message, 'gave up')
    assert.equal(pool.pending, 0)
  })

  it('lets a handler pause and resume through the controller it got at start', async (t) => {
    const server = await startHttpServer((req, res) => res.end('abc'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const handler = new RecordingHandler()
    let controller: DispatchController | null = null
    handler.onChunk = (c) => { controller = c }
    agent.dispatch({ origin: server.origin, path: '/', method: 'GET' }, handler)
    await handler.done
    assert.equal(controller, handler.controller)
  })
})

describe('Client expectContinue', () => {
  it('keeps the body when the server answers with a final status instead of 100, and does not reuse the connection', async (t) => {
    let received = ''
    const server = await startTcpServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1')
        if (received.endsWith('\r\n\r\n')) socket.write('HTTP/1.1 417 Expectation Failed\r\ncontent-length: 2\r\n\r\nno')
      })
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { statusCode, body } = await client.request({ path: '/', method: 'PUT', body: 'secret body', expectContinue: true })
    assert.equal(statusCode, 417)
    assert.equal(await body.text(), 'no')
    assert.match(received, /expect: 100-continue\r\n/)
    assert.ok(!received.includes('secret body'))
    const disconnected = client.connected ? new Promise((resolve) => client.once('disconnect', resolve)) : Promise.resolve()
    await disconnected
    assert.equal(client.connected, false)
  })
})
