import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type { Duplex } from 'node:stream'
import { Agent, Client } from '../../../src/index.js'
import { connect, upgrade } from '../../../src/top-level.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from '../dispatcher/recording-handler.js'

async function readSome (socket: Duplex): Promise<string> {
  const [chunk] = await once(socket, 'data') as [Buffer]
  return chunk.toString()
}

describe('upgrade()', () => {
  it('hands over the socket after 101, with bytes the server sent right after the head', async (t) => {
    const server = await startHttpServer((req, res) => res.end('plain'))
    server.server.on('upgrade', (req, socket: Duplex) => {
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: ${String(req.headers.upgrade)}\r\nconnection: upgrade\r\n\r\ngreeting`)
      socket.on('data', (chunk: Buffer) => socket.write(`echo:${chunk.toString()}`))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { statusCode, headers, socket } = await upgrade(`${server.origin}/chat`, { protocol: 'chat-v1', dispatcher: client })
    t.after(() => socket.destroy())
    assert.equal(statusCode, 101)
    assert.equal(headers.upgrade, 'chat-v1')
    assert.equal(await readSome(socket), 'greeting')
    socket.write('hi')
    assert.equal(await readSome(socket), 'echo:hi')
    assert.equal(client.connected, false)
  })

  it('rejects with the status when the server answers without switching', async (t) => {
    const server = await startHttpServer((req, res) => { res.statusCode = 426; res.end('no') })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await assert.rejects(upgrade({ origin: server.origin, path: '/', protocol: 'x', dispatcher: client }), { code: 'LIB_ERR_SOCKET', message: /refused: the server answered 426/ })
  })

  it('rejects a request with the upgrade option when the handler cannot take a socket', async (t) => {
    const client = new Client('http://127.0.0.1:1')
    t.after(() => client.close())
    assert.throws(() => client.dispatch({ path: '/', method: 'GET', upgrade: 'x' }, { onResponseError () {} }), { code: 'LIB_ERR_INVALID_ARG', message: /onRequestUpgrade/ })
  })
})

describe('connect()', () => {
  it('opens a CONNECT tunnel and hands over the socket on 200', async (t) => {
    let requestLine = ''
    const server = await startTcpServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        requestLine = chunk.toString('latin1').split('\r\n')[0]!
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        socket.on('data', (c: Buffer) => socket.write(`tunnel:${c.toString()}`))
      })
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const { statusCode, socket } = await connect({ origin: server.origin, path: 'example.test:443', dispatcher: agent })
    t.after(() => socket.destroy())
    assert.equal(statusCode, 200)
    assert.equal(requestLine, 'CONNECT example.test:443 HTTP/1.1')
    socket.write('ping')
    assert.equal(await readSome(socket), 'tunnel:ping')
  })

  it('delivers a refused CONNECT as an ordinary response to a raw handler', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 4\r\n\r\ndeny'))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: 'example.test:443', method: 'CONNECT' }, handler)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.statusCode, 407)
    assert.equal(handler.body, 'deny')
  })
})

describe('request() and upgrades', () => {
  it('rejects request() with the upgrade option instead of hanging when the server switches protocols', async (t) => {
    const server = await startHttpServer((req, res) => res.end('plain'))
    server.server.on('upgrade', (_req, socket: Duplex) => socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n'))
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET', upgrade: 'x' }), { code: 'LIB_ERR_INVALID_ARG', message: /upgrade response \(101\)/ })
  })
})
