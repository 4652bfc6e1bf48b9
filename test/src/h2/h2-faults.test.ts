import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import { once } from 'node:events'
import { H2CClient, Client } from '../../../src/index.js'
import { startH2cServer, respond } from '../../helpers/h2-server.js'

const { NGHTTP2_CANCEL, NGHTTP2_INTERNAL_ERROR, NGHTTP2_REFUSED_STREAM, NGHTTP2_NO_ERROR } = http2.constants

describe('HTTP/2: aborts, resets, GOAWAY and timeouts', async () => {
  const resets: number[] = []
  let refusedOnce = false
  const held: http2.ServerHttp2Stream[] = []
  const server = await startH2cServer((stream, headers, session) => {
    const path = String(headers[':path'])
    if (path === '/hang') {
      stream.on('close', () => resets.push(stream.rstCode))
      held.push(stream)
      return
    }
    if (path === '/reset') return stream.close(NGHTTP2_INTERNAL_ERROR)
    if (path === '/refuse-once') {
      if (!refusedOnce) {
        refusedOnce = true
        return stream.close(NGHTTP2_REFUSED_STREAM)
      }
      return respond(stream, 200, 'second try')
    }
    if (path === '/half-body') {
      stream.respond({ ':status': 200 })
      stream.write('part')
      setImmediate(() => session.destroy())
      return
    }
    if (path === '/big-headers') {
      return respond(stream, 200, 'x', { 'x-big': 'a'.repeat(20_000) })
    }
    if (path === '/slow-body') {
      stream.respond({ ':status': 200 })
      stream.write('first')
      held.push(stream)
      return
    }
    respond(stream, 200, 'ok')
  })
  after(async () => { for (const s of held) s.destroy(); await server.close() })

  it('resets the stream with CANCEL when the request is aborted, and keeps the session', async () => {
    const client = new H2CClient(server.origin)
    after(() => client.close())
    const ac = new AbortController()
    const pending = client.request({ path: '/hang', method: 'GET', signal: ac.signal })
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve))
    ac.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    while (resets.length === 0) await new Promise((resolve) => setImmediate(resolve))
    assert.equal(resets[0], NGHTTP2_CANCEL)
    const sessions = server.sessions
    const res = await client.request({ path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'ok')
    assert.equal(server.sessions, sessions)
  })

  it('fails a request whose stream the server resets, naming the error code', async () => {
    const client = new H2CClient(server.origin)
    after(() => client.close())
    await assert.rejects(client.request({ path: '/reset', method: 'GET' }), {
      code: 'LIB_ERR_SOCKET',
      message: /RST_STREAM INTERNAL_ERROR/
    })
  })

  it('sends a refused stream again: the server did not process it', async () => {
    const client = new H2CClient(server.origin)
    after(() => client.close())
    const res = await client.request({ path: '/refuse-once', method: 'GET' })
    assert.equal(await res.body.text(), 'second try')
  })

  it('fails a response cut by the end of its session with a SocketError', async () => {
    const client = new H2CClient(server.origin)
    after(() => client.close())
    const res = await client.request({ path: '/half-body', method: 'GET' })
    await assert.rejects(res.body.text(), { code: 'LIB_ERR_SOCKET' })
  })

  it('refuses response headers larger than maxHeaderSize', async () => {
    const client = new H2CClient(server.origin, { maxHeaderSize: 16_384 })
    after(() => client.close())
    await assert.rejects(client.request({ path: '/big-headers', method: 'GET' }), (err: Error & { code?: string }) => {
      assert.match(err.code ?? '', /^LIB_ERR_/)
      return true
    })
  })

  it('times out a missing response head (headersTimeout) and a stalled body (bodyTimeout)', async () => {
    const client = new H2CClient(server.origin, { headersTimeout: 50 })
    // A loaded machine may take longer than 50 ms to answer: only the body may stall here.
    const bodyClient = new H2CClient(server.origin, { headersTimeout: 30_000, bodyTimeout: 50 })
    after(async () => { await client.close(); await bodyClient.close() })
    await assert.rejects(client.request({ path: '/hang', method: 'GET' }), { code: 'LIB_ERR_HEADERS_TIMEOUT' })
    const res = await bodyClient.request({ path: '/slow-body', method: 'GET' })
    await assert.rejects(res.body.text(), { code: 'LIB_ERR_BODY_TIMEOUT' })
  })

  it('fails a request to a server that does not speak h2c, without hanging', async () => {
    const http1 = await import('../../helpers/servers.js')
    const plain = await http1.startHttpServer((_req, res) => res.end('h1 only'))
    const client = new H2CClient(plain.origin, { headersTimeout: 2_000 })
    after(async () => { await client.close(); await plain.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), (err: Error & { code?: string }) => {
      assert.match(err.code ?? '', /^LIB_ERR_/)
      return true
    })
  })
})

describe('HTTP/2: GOAWAY', () => {
  it('sends the requests the server did not process again on a new session; the others complete', async () => {
    let first: http2.ServerHttp2Session | null = null
    let wentAway = false
    const slow: http2.ServerHttp2Stream[] = []
    const server = await startH2cServer((stream, headers, session) => {
      const path = String(headers[':path'])
      if (first === null) first = session
      if (session === first && path === '/slow') {
        slow.push(stream)
        return
      }
      if (session === first) {
        // Processed nothing after the slow stream: tell the client so, then finish the slow one.
        if (!wentAway) {
          wentAway = true
          session.goaway(NGHTTP2_NO_ERROR, slow[0]!.id!)
          setImmediate(() => respond(slow[0]!, 200, 'slow done'))
        }
        return
      }
      respond(stream, 200, `fresh ${path}`)
    })
    const client = new H2CClient(server.origin)
    after(async () => { await client.close(); await server.close() })
    const slowRes = client.request({ path: '/slow', method: 'GET' })
    while (slow.length === 0) await new Promise((resolve) => setImmediate(resolve))
    const others = [client.request({ path: '/a', method: 'POST', body: 'x' }), client.request({ path: '/b', method: 'GET' })]
    const texts = await Promise.all([slowRes, ...others].map(async (p) => await (await p).body.text()))
    assert.deepEqual(texts, ['slow done', 'fresh /a', 'fresh /b'])
    assert.equal(server.sessions, 2)
  })

  it('closes the client while a session drains after GOAWAY, waiting for its last response', async () => {
    const slow: http2.ServerHttp2Stream[] = []
    const server = await startH2cServer((stream, _headers, session) => {
      slow.push(stream)
      session.goaway(NGHTTP2_NO_ERROR, stream.id!)
    })
    const client = new H2CClient(server.origin)
    after(() => server.close())
    const pending = client.request({ path: '/', method: 'GET' })
    while (slow.length === 0) await new Promise((resolve) => setImmediate(resolve))
    const closed = client.close()
    respond(slow[0]!, 200, 'last')
    assert.equal(await (await pending).body.text(), 'last')
    await closed
    assert.equal(client.closed, true)
  })
})

describe('HTTP/2: flow control and keep-alive', () => {
  it('stops reading a paused response, so the server sees backpressure, and resumes it', async () => {
    let blocked = false
    const chunk = Buffer.alloc(64 * 1024, 1)
    const server = await startH2cServer((stream) => {
      stream.respond({ ':status': 200 })
      let sent = 0
      const pump = (): void => {
        while (sent < 64) {
          sent++
          if (!stream.write(chunk)) {
            blocked = true
            stream.once('drain', pump)
            return
          }
        }
        stream.end()
      }
      pump()
    })
    const client = new H2CClient(server.origin, { initialWindowSize: 65_535 })
    after(async () => { await client.close(); await server.close() })
    const res = await client.request({ path: '/', method: 'GET', highWaterMark: 16 })
    while (!blocked) await new Promise((resolve) => setTimeout(resolve, 5))
    let total = 0
    for await (const part of res.body) total += (part as Buffer).length
    assert.equal(total, 64 * chunk.length)
    assert.equal(blocked, true)
  })

  it('checks an idle session with PING frames every pingInterval', async () => {
    const server = await startH2cServer((stream) => respond(stream, 200, 'ok'))
    const client = new H2CClient(server.origin, { pingInterval: 10, keepAliveTimeout: 10_000 })
    after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    const [session] = [...server.open]
    await once(session!, 'ping')
    assert.equal(server.sessions, 1)
  })

  it('closes an idle session after keepAliveTimeout and opens a new one on demand', async () => {
    const server = await startH2cServer((stream) => respond(stream, 200, 'ok'))
    const client = new Client(server.origin, { h2c: true, keepAliveTimeout: 10 })
    after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    await once(client, 'disconnect')
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.equal(server.sessions, 2)
  })
})
