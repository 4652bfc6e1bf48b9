import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import type { DispatchController, IncomingHeaders } from '../../../src/handler.js'
import { RecordingHandler } from './recording-handler.js'

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function until (condition: () => boolean): Promise<void> {
  while (!condition()) await tick()
}

/**
 * A raw server that records sockets and what they received, and answers with `reply` if given
 * (to the first `replies` reads of each connection).
 */
async function silentServer (reply?: string, replies = Infinity) {
  let received = 0
  const sockets: Socket[] = []
  const server = await startTcpServer((socket) => {
    sockets.push(socket)
    let answered = 0
    socket.on('data', () => {
      received++
      if (reply !== undefined && answered++ < replies) socket.write(reply)
    })
  })
  return { server, received: () => received, sockets }
}

function mockTimers (t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout'] })
}

/** Moves the mocked clock to 1 ms short of `ms` (the dispatch must still wait), then to `ms`: it must fail with `code`. */
async function failsAtExactly (t: TestContext, ms: number, handler: RecordingHandler, code: string): Promise<void> {
  const before = [...handler.events]
  t.mock.timers.tick(ms - 1)
  await tick()
  assert.deepEqual(handler.events, before)
  t.mock.timers.tick(1)
  await handler.done
  assert.equal((handler.error as { code?: string }).code, code)
}

describe('Client timeouts', () => {
  it('fails with HeadersTimeoutError when the head does not arrive within headersTimeout', async (t) => {
    mockTimers(t)
    const { server, received } = await silentServer()
    const client = new Client(server.origin, { headersTimeout: 1000 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/slow', method: 'GET' }, handler)
    await until(() => received() > 0)
    assert.deepEqual(handler.events, ['start'])
    await failsAtExactly(t, 1000, handler, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(handler.error!.message, /GET \/slow within 1000 ms/)
  })

  it('lets a per-request headersTimeout override the client one, and 0 disable it', async (t) => {
    mockTimers(t)
    const { server, received } = await silentServer()
    const client = new Client(server.origin, { headersTimeout: 1000, pipelining: 2 })
    t.after(async () => { await client.destroy(); await server.close() })
    const disabled = new RecordingHandler()
    client.dispatch({ path: '/never', method: 'GET', headersTimeout: 0 }, disabled)
    await until(() => received() > 0)
    t.mock.timers.tick(10_000_000)
    await tick()
    assert.deepEqual(disabled.events, ['start'])
    await client.destroy()

    const { server: server2, received: received2 } = await silentServer()
    const client2 = new Client(server2.origin, { headersTimeout: 1000 })
    t.after(async () => { await client2.destroy(); await server2.close() })
    const short = new RecordingHandler()
    client2.dispatch({ path: '/short', method: 'GET', headersTimeout: 50 }, short)
    await until(() => received2() > 0)
    t.mock.timers.tick(50)
    await short.done
    assert.equal((short.error as { code?: string }).code, 'LIB_ERR_HEADERS_TIMEOUT')
  })

  it('fails with BodyTimeoutError when body data stops for bodyTimeout', async (t) => {
    mockTimers(t)
    const { server } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc')
    const client = new Client(server.origin, { bodyTimeout: 500 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await until(() => handler.chunks.length > 0)
    assert.deepEqual(handler.events, ['start', 'response', 'data'])
    await failsAtExactly(t, 500, handler, 'LIB_ERR_BODY_TIMEOUT')
    assert.match(handler.error!.message, /within 500 ms \(bodyTimeout\)/)
  })

  it('does not time out the body while the handler keeps it paused', async (t) => {
    mockTimers(t)
    const { server, sockets } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nabc')
    const client = new Client(server.origin, { bodyTimeout: 500 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    handler.onChunk = (controller) => { if (handler.chunks.length === 1) controller.pause() }
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await until(() => handler.chunks.length > 0)
    t.mock.timers.tick(5000)
    await tick()
    assert.deepEqual(handler.events, ['start', 'response', 'data'])
    handler.controller!.resume()
    sockets[0]!.write('def')
    await handler.done
    assert.equal(handler.body, 'abcdef')
  })

  it('fails with ConnectTimeoutError naming the address and the timeout when TLS never completes', async (t) => {
    mockTimers(t)
    const { server } = await silentServer()
    const origin = `https://127.0.0.1:${server.port}`
    const client = new Client(origin, { connectTimeout: 1000 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await until(() => server.connections > 0)
    t.mock.timers.tick(1000)
    await handler.done
    assert.equal((handler.error as { code?: string }).code, 'LIB_ERR_CONNECT_TIMEOUT')
    assert.match(handler.error!.message, new RegExp(`127\\.0\\.0\\.1:${server.port} after 1000 ms`))
  })

  it('closes an idle connection after keepAliveTimeout when the server sends no hint', async (t) => {
    mockTimers(t)
    const { server } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { keepAliveTimeout: 2000 })
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    t.mock.timers.tick(1999)
    assert.equal(client.connected, true)
    t.mock.timers.tick(1)
    assert.equal(client.connected, false)
  })

  it('honours the Keep-Alive timeout hint minus keepAliveTimeoutThreshold', async (t) => {
    mockTimers(t)
    // node:http sends `Keep-Alive: timeout=5`; 5000 - 1000 leaves 4000 ms of idle time.
    const server = await startHttpServer((req, res) => res.end('ok'))
    const client = new Client(server.origin, { keepAliveTimeout: 100, keepAliveTimeoutThreshold: 1000 })
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    t.mock.timers.tick(3999)
    assert.equal(client.connected, true)
    t.mock.timers.tick(1)
    assert.equal(client.connected, false)
  })

  it('caps the Keep-Alive hint at keepAliveMaxTimeout', async (t) => {
    mockTimers(t)
    const { server } = await silentServer('HTTP/1.1 200 OK\r\nkeep-alive: timeout=3600\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { keepAliveMaxTimeout: 10_000 })
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    t.mock.timers.tick(9999)
    assert.equal(client.connected, true)
    t.mock.timers.tick(1)
    assert.equal(client.connected, false)
  })

  it('restarts the body timeout at each later read of the body', async (t) => {
    // Real timers: the body takes several times bodyTimeout in all, each gap a quarter of it.
    // Equal timeouts take the path where one Node timer serves headers and body alike.
    const { server, sockets } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\na', 1)
    const client = new Client(server.origin, { headersTimeout: 400, bodyTimeout: 400 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await until(() => handler.chunks.length === 1)
    for (const byte of 'bcdefgh') {
      await sleep(100)
      sockets[0]!.write(byte)
    }
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.body, 'abcdefgh')
  })

  it('times the head of a request written while the previous response was read from that moment', async (t) => {
    mockTimers(t)
    const { server, received } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok', 1)
    const client = new Client(server.origin, { headersTimeout: 1000, bodyTimeout: 1000 })
    t.after(async () => { await client.destroy(); await server.close() })
    const second = new RecordingHandler()
    const first = new RecordingHandler()
    // Written from the first request's end hook, so inside the socket read that ended it.
    const end = first.onResponseEnd.bind(first)
    first.onResponseEnd = (controller: DispatchController, trailers: IncomingHeaders): void => {
      end(controller, trailers)
      client.dispatch({ path: '/second', method: 'GET' }, second)
    }
    client.dispatch({ path: '/first', method: 'GET' }, first)
    await first.done
    assert.equal(first.body, 'ok')
    await until(() => received() === 2)
    assert.deepEqual(second.events, ['start'])
    await failsAtExactly(t, 1000, second, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(second.error!.message, /GET \/second within 1000 ms/)
  })
})
