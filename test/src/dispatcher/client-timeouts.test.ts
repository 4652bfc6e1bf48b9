import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'
import type { DispatchController, IncomingHeaders } from '../../../src/handler.js'
import { RecordingHandler } from './recording-handler.js'
import { keepAliveIdleMs } from '../../../src/h1/keep-alive-idle.js'

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

/** Resolves with the error of the client's next `disconnect` event. */
function disconnected (client: Client): Promise<Error> {
  return new Promise((resolve) => client.once('disconnect', (_origin: unknown, _targets: unknown, err: Error) => resolve(err)))
}

// The connection timers are the runtime's own (a test's fake clock must not stall I/O), so these
// tests use short real timeouts and wait for the outcome; none of them measures how long it took.
describe('Client timeouts', () => {
  it('fails with HeadersTimeoutError when the head does not arrive within headersTimeout', async (t) => {
    const { server, received } = await silentServer()
    const client = new Client(server.origin, { headersTimeout: 300 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/slow', method: 'GET' }, handler)
    await until(() => received() > 0)
    assert.deepEqual(handler.events, ['start'])
    await handler.done
    assert.deepEqual(handler.events, ['start', 'error'])
    assert.equal((handler.error as { code?: string }).code, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(handler.error!.message, /GET \/slow within 300 ms/)
  })

  it('lets a per-request headersTimeout override the client one, and 0 disable it', async (t) => {
    const { server, received } = await silentServer()
    const client = new Client(server.origin, { headersTimeout: 50 })
    t.after(async () => { await client.destroy(); await server.close() })
    const disabled = new RecordingHandler()
    client.dispatch({ path: '/never', method: 'GET', headersTimeout: 0 }, disabled)

    const { server: server2, received: received2 } = await silentServer()
    const client2 = new Client(server2.origin, { headersTimeout: 60_000 })
    t.after(async () => { await client2.destroy(); await server2.close() })
    const short = new RecordingHandler()
    client2.dispatch({ path: '/short', method: 'GET', headersTimeout: 50 }, short)
    await until(() => received() > 0 && received2() > 0)
    await short.done
    assert.equal((short.error as { code?: string }).code, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(short.error!.message, /within 50 ms/)
    // Several times the client's own headersTimeout later, the request without one still waits.
    await sleep(200)
    assert.deepEqual(disabled.events, ['start'])
  })

  it('fails with BodyTimeoutError when body data stops for bodyTimeout', async (t) => {
    const { server } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc')
    const client = new Client(server.origin, { bodyTimeout: 100 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'error'])
    assert.equal((handler.error as { code?: string }).code, 'LIB_ERR_BODY_TIMEOUT')
    assert.match(handler.error!.message, /within 100 ms \(bodyTimeout\)/)
  })

  it('does not time out the body while the handler keeps it paused', async (t) => {
    const { server, sockets } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nabc')
    const client = new Client(server.origin, { bodyTimeout: 50 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    handler.onChunk = (controller) => { if (handler.chunks.length === 1) controller.pause() }
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await until(() => handler.chunks.length > 0)
    await sleep(250)
    assert.deepEqual(handler.events, ['start', 'response', 'data'])
    handler.controller!.resume()
    sockets[0]!.write('def')
    await handler.done
    assert.equal(handler.body, 'abcdef')
  })

  it('fails with ConnectTimeoutError naming the address and the timeout when TLS never completes', async (t) => {
    const { server } = await silentServer()
    const origin = `https://127.0.0.1:${server.port}`
    const client = new Client(origin, { connectTimeout: 100 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    assert.ok(server.connections > 0)
    assert.equal((handler.error as { code?: string }).code, 'LIB_ERR_CONNECT_TIMEOUT')
    assert.match(handler.error!.message, new RegExp(`127\\.0\\.0\\.1:${server.port} after 100 ms`))
  })

  it('closes an idle connection after keepAliveTimeout when the server sends no hint', { timeout: 30_000 }, async (t) => {
    const { server, sockets } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { keepAliveTimeout: 100 })
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.equal(client.connected, true)
    const gone = disconnected(client)
    // The server never closes a socket: the client's idle timer is what ends this one.
    assert.equal((await gone as { code?: string }).code, 'LIB_ERR_SOCKET')
    assert.equal(client.connected, false)
    if (!sockets[0]!.destroyed) await new Promise((resolve) => sockets[0]!.once('close', resolve))
    assert.equal(sockets[0]!.destroyed, true)
  })

  it('honours the Keep-Alive timeout hint minus keepAliveTimeoutThreshold', { timeout: 30_000 }, async (t) => {
    // The hint of 1 s less a threshold of 900 ms leaves 100 ms; keepAliveTimeout alone would keep it a minute.
    const { server } = await silentServer('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { keepAliveTimeout: 60_000, keepAliveTimeoutThreshold: 900 })
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.equal(client.connected, true)
    await disconnected(client)
    assert.equal(client.connected, false)
  })

  it('caps the Keep-Alive hint at keepAliveMaxTimeout', { timeout: 30_000 }, async (t) => {
    // An hour's hint, capped at 100 ms: the connection goes long before the test's own timeout.
    const { server } = await silentServer('HTTP/1.1 200 OK\r\nkeep-alive: timeout=3600\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { keepAliveMaxTimeout: 100 })
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.equal(client.connected, true)
    await disconnected(client)
    assert.equal(client.connected, false)
  })

  it('computes the idle time from the hint less the threshold, capped, and keeps it without a hint', () => {
    const config = { keepAliveTimeoutThreshold: 1000, keepAliveMaxTimeout: 600_000 }
    assert.equal(keepAliveIdleMs(5000, 4000, config), 4000)
    assert.equal(keepAliveIdleMs(-1, 4000, config), 4000)
    assert.equal(keepAliveIdleMs(3_600_000, 4000, config), 600_000)
    assert.equal(keepAliveIdleMs(1000, 4000, config), 0)
    assert.equal(keepAliveIdleMs(500, 4000, config), 0)
    assert.equal(keepAliveIdleMs(0, 4000, { keepAliveTimeoutThreshold: 0, keepAliveMaxTimeout: 10 }), 0)
  })

  it('restarts the body timeout at each later read of the body', async (t) => {
    // The body takes several times bodyTimeout in all, each gap a quarter of it.
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
    const { server, received } = await silentServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok', 1)
    const client = new Client(server.origin, { headersTimeout: 300, bodyTimeout: 300 })
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
    await second.done
    assert.equal((second.error as { code?: string }).code, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(second.error!.message, /GET \/second within 300 ms/)
  })
})
