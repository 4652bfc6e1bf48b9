import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { Client } from '../../../src/index.js'
import type { ClientOptions } from '../../../src/index.js'
import { startScriptedServer, startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

async function useClient (t: TestContext, server: TestServer, options?: ClientOptions): Promise<Client> {
  const client = new Client(server.origin, options)
  t.after(async () => { await client.destroy(); await server.close() })
  return client
}

function send (client: Client, path: string, method = 'GET', blocking?: boolean): RecordingHandler {
  const handler = new RecordingHandler()
  client.dispatch({ path, method, ...(blocking === undefined ? {} : { blocking }) }, handler)
  return handler
}

const OK = (body: string): string => `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n${body}`

describe('Client connection reuse', () => {
  it('sends the requests pipelined behind a `connection: close` response again on a fresh connection, even when the server leaves the socket open', { timeout: 5000 }, async (t) => {
    const server = await startScriptedServer((socket, connection, request, head) => {
      const path = head.split(' ')[1]!
      if (connection === 1 && request === 1) socket.write(`HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: ${path.length}\r\n\r\n${path}`)
      else if (connection > 1) socket.write(OK(path))
    })
    const client = await useClient(t, server, { pipelining: 3 })
    const handlers = ['/1', '/2', '/3'].map((path) => send(client, path))
    await Promise.all(handlers.map((h) => h.done))
    assert.deepEqual(handlers.map((h) => h.events), [0, 1, 2].map(() => ['start', 'response', 'data', 'end']))
    assert.deepEqual(handlers.map((h) => h.body), ['/1', '/2', '/3'])
    assert.equal(server.connections, 2)
  })

  it('fails a request pipelined behind a `connection: close` response that was already sent once, instead of waiting forever', { timeout: 5000 }, async (t) => {
    // Every connection answers only its first request, with close, and keeps the socket open.
    const server = await startScriptedServer((socket, _connection, request, head) => {
      const path = head.split(' ')[1]!
      if (request === 1) socket.write(`HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: ${path.length}\r\n\r\n${path}`)
    })
    const client = await useClient(t, server, { pipelining: 3 })
    // Non-blocking requests are all written at once: /2 and /3 are sent twice, and /3 is not
    // answered the second time either.
    const handlers = ['/1', '/2', '/3'].map((path) => send(client, path, 'GET', false))
    await Promise.all(handlers.map((h) => h.done))
    assert.equal(handlers[0]!.body, '/1')
    assert.equal(handlers[1]!.body, '/2')
    assert.deepEqual(handlers[2]!.events, ['start', 'error'])
    assert.equal((handlers[2]!.error as { code?: string }).code, 'LIB_ERR_SOCKET')
  })

  for (const status of ['204 No Content', '304 Not Modified']) {
    it(`ignores body bytes a server sends after a ${status.slice(0, 3)} and answers the next request on a fresh connection`, async (t) => {
      const server = await startScriptedServer((socket, connection, request) => {
        if (connection === 1 && request === 1) socket.write(`HTTP/1.1 ${status}\r\ncontent-length: 5\r\n\r\nhello`)
        else socket.write(OK('next'))
      })
      const client = await useClient(t, server)
      const first = send(client, '/first')
      await first.done
      assert.deepEqual(first.events, ['start', 'response', 'end'])
      const second = send(client, '/second')
      await second.done
      assert.deepEqual(second.events, ['start', 'response', 'data', 'end'])
      assert.equal(second.body, 'next')
      assert.equal(server.connections, 2)
    })
  }

  it('drops a connection whose response carried more bytes than its content-length, so they are not read as the next response', async (t) => {
    const server = await startScriptedServer((socket, connection, request) => {
      if (connection === 1 && request === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA')
      else socket.write(OK('fine'))
    })
    const client = await useClient(t, server)
    const first = send(client, '/first')
    await first.done
    assert.equal(first.body, 'ok')
    const second = send(client, '/second')
    await second.done
    assert.equal(second.body, 'fine')
    assert.equal(server.connections, 2)
  })

  it('reads no body after a HEAD response with content-length and does not reuse the connection, as undici', async (t) => {
    const requests: string[] = []
    const server = await startScriptedServer((socket, _connection, _request, head) => {
      requests.push(head)
      socket.write(head.startsWith('HEAD') ? 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n' : OK('body'))
    })
    const client = await useClient(t, server)
    const head = send(client, '/', 'HEAD')
    await head.done
    assert.deepEqual(head.events, ['start', 'response', 'end'])
    assert.equal(head.headers['content-length'], '5')
    assert.match(requests[0]!, /\r\nconnection: close(\r\n|$)/)
    const get = send(client, '/')
    await get.done
    assert.equal(get.body, 'body')
    assert.equal(server.connections, 2)
  })

  it('reuses the connection after a HEAD sent with reset: false', async (t) => {
    const server = await startScriptedServer((socket, _connection, _request, head) => {
      socket.write(head.startsWith('HEAD') ? 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n' : OK('body'))
    })
    const client = await useClient(t, server)
    const head = await client.request({ path: '/', method: 'HEAD', reset: false })
    assert.equal(await head.body.text(), '')
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'body')
    assert.equal(server.connections, 1)
  })

  it('opens a new connection after maxRequestsPerClient requests, pipelined or not', async (t) => {
    const server = await startScriptedServer((socket, connection, request) => socket.write(OK(`${connection}.${request}`)))
    const client = await useClient(t, server, { maxRequestsPerClient: 2, pipelining: 3 })
    const handlers = [1, 2, 3, 4, 5].map((i) => send(client, `/${i}`))
    await Promise.all(handlers.map((h) => h.done))
    assert.deepEqual(handlers.map((h) => h.body), ['1.1', '1.2', '2.1', '2.2', '3.1'])
  })
})

describe('Client pipelining after a failure', () => {
  /** Connection 1 never answers; later connections answer each request with its path. */
  function startFirstConnectionSilent (): Promise<TestServer> {
    return startScriptedServer((socket, connection, _request, head) => {
      if (connection > 1) socket.write(OK(head.split(' ')[1]!))
    })
  }

  it('sends the requests pipelined behind an aborted one again on a fresh connection', { timeout: 5000 }, async (t) => {
    const server = await startFirstConnectionSilent()
    const client = await useClient(t, server, { pipelining: 3 })
    const written = new Promise((resolve) => server.server.once('connection', (socket: Socket) => {
      let heads = 0
      socket.on('data', (chunk: Buffer) => { heads += chunk.toString('latin1').split('\r\n\r\n').length - 1; if (heads === 3) resolve(null) })
    }))
    const handlers = ['/1', '/2', '/3'].map((path) => send(client, path, 'GET', false))
    await written
    handlers[0]!.controller!.abort(new Error('not wanted'))
    await Promise.all(handlers.map((h) => h.done))
    assert.equal(handlers[0]!.error?.message, 'not wanted')
    assert.deepEqual(handlers.slice(1).map((h) => h.body), ['/2', '/3'])
    assert.equal(server.connections, 2)
  })

  it('sends the requests pipelined behind one that timed out waiting for its head again on a fresh connection', { timeout: 5000 }, async (t) => {
    const server = await startFirstConnectionSilent()
    const client = await useClient(t, server, { pipelining: 3, headersTimeout: 50 })
    const handlers = ['/1', '/2', '/3'].map((path) => send(client, path, 'GET', false))
    await Promise.all(handlers.map((h) => h.done))
    assert.equal((handlers[0]!.error as { code?: string }).code, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.deepEqual(handlers.slice(1).map((h) => h.body), ['/2', '/3'])
  })

  it('never pipelines a POST behind another request, so a failure cannot make it run twice', async (t) => {
    const seen: string[] = []
    const server = await startScriptedServer((socket, _connection, _request, head) => {
      seen.push(head.split(' ').slice(0, 2).join(' '))
      socket.destroy()
    })
    const client = await useClient(t, server, { pipelining: 3 })
    const get = send(client, '/get', 'GET', false)
    const post = send(client, '/post', 'POST', false)
    await Promise.all([get.done, post.done])
    assert.equal((post.error as { code?: string }).code, 'LIB_ERR_SOCKET')
    assert.equal(seen.filter((line) => line === 'POST /post').length, 1)
  })
})
