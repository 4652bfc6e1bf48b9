import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { Client, errors } from '../../../src/index.js'
import { MAX_H2_RESENDS } from '../../../src/h2/resend-budget.js'
import { respond, startH2cServer } from '../../helpers/h2-server.js'
import { startRawH2Server } from './raw-h2-server.js'

const { NGHTTP2_NO_ERROR, NGHTTP2_PROTOCOL_ERROR, NGHTTP2_REFUSED_STREAM } = http2.constants
/** The first attempt and every resend. */
const MAX_ATTEMPTS = 1 + MAX_H2_RESENDS

function h2c (origin: string, headersTimeout = 30_000): Client {
  return new Client(origin, { h2c: true, headersTimeout })
}

describe('HTTP/2: a request the server never processes is sent a bounded number of times', () => {
  it('fails after a few sessions when the server answers every session with GOAWAY, naming the cause', async (t) => {
    const server = await startH2cServer(() => {})
    server.server.on('session', (session: http2.ServerHttp2Session) => session.goaway(NGHTTP2_NO_ERROR, 0))
    const client = h2c(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), (err: Error) => {
      // A graceful GOAWAY (NO_ERROR) is an InformationalError, as in undici 8.
      assert.ok(err instanceof errors.InformationalError, String(err))
      assert.equal((err as errors.InformationalError).code, 'LIB_ERR_INFO')
      assert.match(err.message, new RegExp(`GET / was not processed by ${server.origin} after ${MAX_ATTEMPTS} attempts`))
      assert.match(err.message, /GOAWAY \(NO_ERROR\) before processing it/)
      return true
    })
    assert.equal(server.sessions, MAX_ATTEMPTS)
  })

  it('fails after a few sessions when the server sends GOAWAY (last stream 0) for every request it receives', async (t) => {
    const server = await startRawH2Server((conn) => conn.goaway(0, 0))
    const client = h2c(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/x', method: 'GET' }), {
      code: 'LIB_ERR_INFO',
      message: new RegExp(`after ${MAX_ATTEMPTS} attempts: the server closed ${MAX_ATTEMPTS} HTTP/2 sessions with GOAWAY \\(NO_ERROR\\)`)
    })
    assert.equal(server.connections, MAX_ATTEMPTS)
  })

  it('fails with a SocketError when the server closes every session with a GOAWAY naming an error', async (t) => {
    const server = await startH2cServer(() => {})
    server.server.on('session', (session: http2.ServerHttp2Session) => session.goaway(NGHTTP2_PROTOCOL_ERROR, 0))
    const client = h2c(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/e', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.SocketError, String(err))
      assert.match(err.message, /GOAWAY \(PROTOCOL_ERROR\) before processing it/)
      return true
    })
    assert.equal(server.sessions, MAX_ATTEMPTS)
  })

  it('fails after at most a few connections when the server drops every connection at once', async (t) => {
    let connections = 0
    const dropping = net.createServer((socket) => {
      connections++
      socket.destroy()
    })
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve))
    const client = h2c(`http://127.0.0.1:${(dropping.address() as AddressInfo).port}`)
    t.after(async () => { await client.destroy(); await new Promise((resolve) => dropping.close(resolve)) })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_SOCKET' })
    assert.ok(connections >= 1 && connections <= MAX_ATTEMPTS, `${connections} connections`)
  })

  it('fails after a few streams when the server refuses every stream (REFUSED_STREAM), naming the cause', async (t) => {
    const server = await startH2cServer((stream) => stream.close(NGHTTP2_REFUSED_STREAM))
    const client = h2c(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/r', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.SocketError, String(err))
      assert.match(err.message, new RegExp(`GET /r was not processed by ${server.origin} after ${MAX_ATTEMPTS} attempts: the server refused its stream ${MAX_ATTEMPTS} times \\(RST_STREAM REFUSED_STREAM\\)`))
      return true
    })
    assert.equal(server.streams.length, MAX_ATTEMPTS)
    assert.equal(server.sessions, 1)
  })

  it('still answers a request the server refuses fewer times than the bound', async (t) => {
    let refusals = 0
    const server = await startH2cServer((stream) => {
      if (refusals < MAX_H2_RESENDS) {
        refusals++
        stream.close(NGHTTP2_REFUSED_STREAM)
        return
      }
      respond(stream, 200, 'at last')
    })
    const client = h2c(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    const res = await client.request({ path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'at last')
    assert.equal(server.streams.length, MAX_ATTEMPTS)
  })

  it('measures headersTimeout from the first attempt, not from each resend', async (t) => {
    // Each stream is refused after 600 ms; with a 1000 ms headersTimeout the second attempt runs
    // out of time before its refusal, where a fresh timeout per attempt would end in the resend bound.
    const held: http2.ServerHttp2Stream[] = []
    const server = await startH2cServer((stream) => {
      held.push(stream)
      setTimeout(() => { if (!stream.destroyed) stream.close(NGHTTP2_REFUSED_STREAM) }, 600)
    })
    const client = h2c(server.origin, 1000)
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/slow', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.HeadersTimeoutError, String(err))
      assert.match(err.message, /within 1000 ms \(headersTimeout, counted from the first of 2 attempts\)/)
      return true
    })
    assert.equal(held.length, 2)
  })
})
