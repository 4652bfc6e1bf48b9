import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type { Socket } from 'node:net'
import { Client, ProxyAgent } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

/** A TCP server that accepts connections and never answers (no TLS handshake, no CONNECT reply). */
async function startSilentServer (): Promise<{ server: TestServer, sockets: Socket[] }> {
  const sockets: Socket[] = []
  const server = await startTcpServer((socket) => { sockets.push(socket) })
  return { server, sockets }
}

/** Resolves once every socket the server accepted has closed. */
async function allClosed (sockets: Socket[]): Promise<void> {
  await Promise.all(sockets.map((s) => s.destroyed ? undefined : once(s, 'close')))
}

// The connect timeout is far beyond the test timeout: a close() that waits for it fails the test.
const SLOW_CONNECT = { connectTimeout: 60_000 }

describe('Client close while a connection is being set up', () => {
  it('close() resolves without waiting for a connection the aborted request asked for, and drops it', { timeout: 5000 }, async (t) => {
    const { server, sockets } = await startSilentServer()
    t.after(() => server.close())
    const client = new Client(`https://127.0.0.1:${server.port}`, SLOW_CONNECT)
    const accepted = once(server.server, 'connection')
    const handler = new RecordingHandler()
    const ac = new AbortController()
    client.dispatch({ path: '/', method: 'GET', signal: ac.signal }, handler)
    await accepted
    ac.abort(new Error('gave up'))
    await handler.done
    assert.deepEqual(handler.events, ['start', 'error'])
    await client.close()
    await allClosed(sockets)
    assert.equal(client.connected, false)
  })

  it('destroy() stops a connection attempt under way and fails the waiting request with its error', { timeout: 5000 }, async (t) => {
    const { server, sockets } = await startSilentServer()
    t.after(() => server.close())
    const client = new Client(`https://127.0.0.1:${server.port}`, SLOW_CONNECT)
    const accepted = once(server.server, 'connection')
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await accepted
    await client.destroy(new Error('shutting down'))
    await handler.done
    assert.equal(handler.error?.message, 'shutting down')
    await allClosed(sockets)
  })

  it('close() still waits for a connection that a queued request needs', { timeout: 5000 }, async (t) => {
    let accepted = 0
    const server = await startTcpServer((socket) => {
      accepted++
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'))
    })
    t.after(() => server.close())
    const client = new Client(server.origin)
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await client.close()
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.body, 'ok')
    assert.equal(accepted, 1)
  })

  it('a custom connector gets a signal that aborts when the client closes with nothing to send', { timeout: 5000 }, async () => {
    let signal: AbortSignal | undefined
    const client = new Client('http://127.0.0.1:1', {
      connect: (opts, _callback) => { signal = opts.signal }
    })
    const ac = new AbortController()
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET', signal: ac.signal }, handler)
    ac.abort()
    await handler.done
    await client.close()
    assert.equal(signal?.aborted, true)
    assert.equal((signal?.reason as { code?: string }).code, 'LIB_ERR_CLOSED')
  })
})

describe('ProxyAgent close while the proxy does not answer', () => {
  it('close() resolves without waiting for the connect timeout once the request was aborted', { timeout: 5000 }, async (t) => {
    const { server, sockets } = await startSilentServer()
    t.after(() => server.close())
    const agent = new ProxyAgent({ uri: server.origin, proxyTunnel: true, ...SLOW_CONNECT })
    const accepted = once(server.server, 'connection')
    const ac = new AbortController()
    const pending = agent.request({ origin: 'http://127.0.0.1:9', path: '/', method: 'GET', signal: ac.signal })
    await accepted
    ac.abort(new Error('gave up'))
    await assert.rejects(pending, { message: 'gave up' })
    await agent.close()
    await allClosed(sockets)
  })
})

describe('Client close with an aborted pipelined request', () => {
  /** Answers the first request of a connection once `release` is called; never answers later ones. */
  async function startFirstAnswerOnly (): Promise<{ server: TestServer, release: () => void, heads: Promise<void> }> {
    let release!: () => void
    const released = new Promise<void>((resolve) => { release = resolve })
    let sawTwo!: () => void
    const heads = new Promise<void>((resolve) => { sawTwo = resolve })
    const server = await startTcpServer((socket) => {
      let count = 0
      socket.on('data', (chunk: Buffer) => {
        count += chunk.toString('latin1').split('\r\n\r\n').length - 1
        if (count >= 2) sawTwo()
      })
      void released.then(() => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'))
    })
    return { server, release, heads }
  }

  for (const order of ['abort, then close', 'close, then abort']) {
    it(`close() does not wait for the answer to an aborted pipelined request (${order})`, { timeout: 5000 }, async (t) => {
      const { server, release, heads } = await startFirstAnswerOnly()
      t.after(() => server.close())
      const client = new Client(server.origin, { pipelining: 2, headersTimeout: 60_000 })
      const first = new RecordingHandler()
      const second = new RecordingHandler()
      client.dispatch({ path: '/1', method: 'GET', blocking: false }, first)
      client.dispatch({ path: '/2', method: 'GET', blocking: false }, second)
      await heads
      let closed: Promise<void>
      if (order === 'abort, then close') {
        second.controller!.abort(new Error('not wanted'))
        closed = client.close()
      } else {
        closed = client.close()
        second.controller!.abort(new Error('not wanted'))
      }
      release()
      await closed
      assert.deepEqual(first.events, ['start', 'response', 'data', 'end'])
      assert.deepEqual(second.events, ['start', 'error'])
      assert.equal(client.connected, false)
    })
  }
})
