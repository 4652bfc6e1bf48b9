import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type { Socket } from 'node:net'
import { Readable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Client } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

/** A server that reads request bytes and never answers; `sockets` gets each connection. */
async function startSwallowingServer (t: TestContext): Promise<{ server: TestServer, sockets: Socket[], received: () => number }> {
  const sockets: Socket[] = []
  let bytes = 0
  const server = await startTcpServer((socket) => {
    sockets.push(socket)
    socket.on('data', (chunk: Buffer) => { bytes += chunk.length })
  })
  t.after(() => server.close())
  return { server, sockets, received: () => bytes }
}

/** A Readable that produces 16 KiB chunks for as long as it is read. */
function endlessBody (): Readable {
  return new Readable({ read () { this.push(Buffer.alloc(16384, 97)) } })
}

describe('Client request bodies that do not finish', () => {
  it('destroys a streamed body source and closes the connection when the request is aborted mid-body', { timeout: 5000 }, async (t) => {
    const { server, sockets, received } = await startSwallowingServer(t)
    const client = new Client(server.origin)
    t.after(() => client.close())
    const body = endlessBody()
    const handler = new RecordingHandler()
    client.dispatch({ path: '/upload', method: 'POST', body }, handler)
    while (received() < 65536) await nextTurn()
    handler.controller!.abort(new Error('upload cancelled'))
    await handler.done
    assert.deepEqual(handler.events, ['start', 'error'])
    assert.equal(handler.error?.message, 'upload cancelled')
    assert.equal(body.destroyed, true)
    await once(sockets[0]!, 'close')
    assert.equal(client.connected, false)
  })

  it('fails the request and closes the connection when the body source errors mid-body', { timeout: 5000 }, async (t) => {
    const { server, sockets, received } = await startSwallowingServer(t)
    const client = new Client(server.origin)
    t.after(() => client.close())
    const body = endlessBody()
    const handler = new RecordingHandler()
    client.dispatch({ path: '/upload', method: 'PUT', body }, handler)
    while (received() < 65536) await nextTurn()
    body.destroy(new Error('disk read failed'))
    await handler.done
    assert.deepEqual(handler.events, ['start', 'error'])
    assert.equal(handler.error?.message, 'disk read failed')
    await once(sockets[0]!, 'close')
  })

  it('stops an async iterable body when the response completes before it, and answers the next request on a new connection', { timeout: 5000 }, async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/upload') { res.statusCode = 413; res.end('too big'); return }
      res.end('next')
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    let finished = false
    async function * produce (): AsyncGenerator<Buffer> {
      try {
        for (;;) {
          await nextTurn()
          yield Buffer.alloc(16384, 98)
        }
      } finally {
        finished = true
      }
    }
    const handler = new RecordingHandler()
    client.dispatch({ path: '/upload', method: 'POST', body: produce() }, handler)
    await handler.done
    assert.equal(handler.statusCode, 413)
    assert.equal(handler.body, 'too big')
    while (!finished) await nextTurn()
    const next = await client.request({ path: '/next', method: 'GET' })
    assert.equal(await next.body.text(), 'next')
    assert.equal(server.connections, 2)
  })
})
