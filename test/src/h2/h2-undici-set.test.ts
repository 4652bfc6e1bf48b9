import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import http2 from 'node:http2'
import { Agent, interceptors } from '../../../src/index.js'
import { startH2sServer, respond } from '../../helpers/h2-server.js'
import { trustTestCa } from '../../helpers/servers.js'

describe('HTTP/2: the undici interceptor set and retry with resume', async () => {
  const body = Buffer.from('0123456789'.repeat(1000))
  let resumeAttempts = 0
  const server = await startH2sServer((stream, headers) => {
    const path = String(headers[':path'])
    if (path === '/hop') return respond(stream, 302, '', { location: '/landing' })
    if (path === '/landing') return respond(stream, 200, 'landed')
    if (path === '/gzip') return respond(stream, 200, gzipSync('decoded over h2'), { 'content-encoding': 'gzip' })
    if (path === '/missing') return respond(stream, 404, JSON.stringify({ error: 'nope' }), { 'content-type': 'application/json' })
    if (path === '/slow-shared') {
      setTimeout(() => respond(stream, 200, 'shared'), 20)
      return
    }
    if (path === '/resume') {
      resumeAttempts++
      const range = headers.range
      if (range === undefined) {
        // The first answer breaks off mid-body: the stream is reset after half of it.
        stream.respond({ ':status': 200, 'content-length': body.length, etag: '"v1"' })
        stream.write(body.subarray(0, 5000), () => setTimeout(() => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 10))
        return
      }
      const start = Number(/bytes=(\d+)-/.exec(String(range))![1])
      stream.respond({ ':status': 206, 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}`, etag: '"v1"' })
      stream.end(body.subarray(start))
      return
    }
    respond(stream, 200, 'plain')
  })
  const agent = new Agent({ allowH2: true, connect: trustTestCa })
  after(async () => { await agent.close(); await server.close() })

  it('follows a redirect and decodes a gzip body', async () => {
    const stack = agent.compose(interceptors.redirect({ maxRedirections: 2 }), interceptors.decompress())
    const hop = await stack.request({ origin: server.origin, path: '/hop', method: 'GET' })
    assert.equal(await hop.body.text(), 'landed')
    const zipped = await stack.request({ origin: server.origin, path: '/gzip', method: 'GET' })
    assert.equal(await zipped.body.text(), 'decoded over h2')
  })

  it('turns a 404 into a ResponseError with its body', async () => {
    const stack = agent.compose(interceptors.responseError())
    await assert.rejects(stack.request({ origin: server.origin, path: '/missing', method: 'GET' }), (err: Error & { statusCode?: number, code?: string }) => {
      assert.equal(err.statusCode, 404)
      assert.equal(err.code, 'LIB_ERR_RESPONSE')
      return true
    })
  })

  it('collapses identical concurrent GETs into one stream, each caller with its own body', async () => {
    const before = server.streams.filter((h) => h[':path'] === '/slow-shared').length
    const stack = agent.compose(interceptors.deduplicate())
    const texts = await Promise.all(Array.from({ length: 10 }, async () => await (await stack.request({ origin: server.origin, path: '/slow-shared', method: 'GET' })).body.text()))
    assert.deepEqual(texts, Array(10).fill('shared'))
    assert.equal(server.streams.filter((h) => h[':path'] === '/slow-shared').length - before, 1)
  })

  it('dumps a body it is not asked for', async () => {
    const stack = agent.compose(interceptors.dump())
    const res = await stack.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), '')
  })

  it('resumes a download cut by a stream reset with a Range request', async () => {
    const stack = agent.compose(interceptors.retry({ minTimeout: 1, maxTimeout: 5, errorCodes: ['LIB_ERR_SOCKET'] }))
    const res = await stack.request({ origin: server.origin, path: '/resume', method: 'GET' })
    const received = Buffer.from(await res.body.arrayBuffer())
    assert.equal(received.length, body.length)
    assert.ok(received.equals(body))
    assert.equal(resumeAttempts, 2)
  })
})
