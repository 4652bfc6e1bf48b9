import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '../../../src/index.js'
import type { DispatchController, IncomingHeaders } from '../../../src/handler.js'
import { startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from '../dispatcher/recording-handler.js'

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function until (condition: () => boolean): Promise<void> {
  while (!condition()) await tick()
}

/** A raw server that answers the first request head on each socket with `first` and ignores the rest. */
async function answerOnce (first: string) {
  let received = 0
  const sockets: Socket[] = []
  const server = await startTcpServer((socket) => {
    sockets.push(socket)
    socket.on('data', () => {
      received++
      if (received === 1) socket.write(first)
    })
  })
  return { server, sockets, received: () => received }
}

function mockTimers (t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout'] })
}

describe('HTTP/1 connection timers, refreshed once per socket read', () => {
  it('restarts the body timeout at each later read of the body', async (t) => {
    // Real timers: the body takes several times bodyTimeout in all, each gap a quarter of it.
    const { server, sockets } = await answerOnce('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\na')
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

  it('times the headers of a request written while the previous response was read from that moment', async (t) => {
    mockTimers(t)
    const { server, received } = await answerOnce('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { headersTimeout: 1000, bodyTimeout: 1000 })
    t.after(async () => { await client.destroy(); await server.close() })
    const second = new RecordingHandler()
    const first = new RecordingHandler()
    // The second request is written from the first one's end hook: inside the same socket read.
    const end = first.onResponseEnd.bind(first)
    first.onResponseEnd = (controller: DispatchController, trailers: IncomingHeaders): void => {
      end(controller, trailers)
      client.dispatch({ path: '/second', method: 'GET' }, second)
    }
    client.dispatch({ path: '/first', method: 'GET' }, first)
    await first.done
    assert.equal(first.body, 'ok')
    await until(() => received() === 2)
    t.mock.timers.tick(999)
    await tick()
    assert.deepEqual(second.events, ['start'])
    t.mock.timers.tick(1)
    await second.done
    assert.equal((second.error as { code?: string }).code, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(second.error!.message, /GET \/second within 1000 ms/)
  })

  it('closes a connection left idle after a response once keepAliveTimeout has passed, to the millisecond', async (t) => {
    mockTimers(t)
    const { server, sockets } = await answerOnce('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    const client = new Client(server.origin, { keepAliveTimeout: 700, headersTimeout: 700, bodyTimeout: 700 })
    t.after(async () => { await client.destroy(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    t.mock.timers.tick(699)
    await tick()
    assert.equal(client.connected, true)
    const closed = new Promise((resolve) => sockets[0]!.once('close', resolve))
    t.mock.timers.tick(1)
    await closed
    assert.equal(client.connected, false)
  })
})
