import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { Blob } from 'node:buffer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Client } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

function echo (req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    res.setHeader('x-framing', req.headers['transfer-encoding'] ?? `length ${req.headers['content-length'] ?? 'none'}`)
    res.end(Buffer.concat(chunks))
  })
}

describe('Client request bodies', () => {
  const kinds: Array<[string, () => unknown, string]> = [
    ['a string', () => 'héllo', 'length 6'],
    ['a Buffer', () => Buffer.from('hello'), 'length 5'],
    ['a Uint8Array', () => new Uint8Array([104, 101, 108, 108, 111]), 'length 5'],
    ['a Blob', () => new Blob(['hel', 'lo']), 'length 5'],
    ['a Readable', () => Readable.from([Buffer.from('hel'), Buffer.from('lo')]), 'chunked'],
    ['an async iterable', () => (async function * () { yield 'hel'; yield Buffer.from('lo') })(), 'chunked'],
    ['an iterable', () => [Buffer.from('hel'), 'lo'], 'chunked']
  ]
  for (const [name, make, framing] of kinds) {
    it(`sends ${name} body with ${framing === 'chunked' ? 'chunked framing' : 'a content-length'}`, async (t) => {
      const server = await startHttpServer(echo)
      const client = new Client(server.origin)
      t.after(async () => { await client.close(); await server.close() })
      const { statusCode, headers, body } = await client.request({ path: '/', method: 'POST', body: make() as string })
      assert.equal(statusCode, 200)
      assert.equal(headers['x-framing'], framing)
      assert.equal(await body.text(), name === 'a string' ? 'héllo' : 'hello')
    })
  }

  it('sends a stream body with a given content-length without chunking it', async (t) => {
    const server = await startHttpServer(echo)
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { headers, body } = await client.request({ path: '/', method: 'PUT', headers: { 'content-length': '5' }, body: Readable.from(['hel', 'lo']) })
    assert.equal(headers['x-framing'], 'length 5')
    assert.equal(await body.text(), 'hello')
  })

  it('fails a stream body shorter than its content-length with RequestContentLengthMismatchError', async (t) => {
    const server = await startHttpServer(echo)
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await assert.rejects(
      client.request({ path: '/', method: 'PUT', headers: { 'content-length': '10' }, body: Readable.from(['hel', 'lo']) }),
      { code: 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH', message: /ended after 5 of the 10 bytes/ }
    )
    await assert.rejects(
      client.request({ path: '/', method: 'PUT', headers: { 'content-length': '2' }, body: Readable.from(['hel', 'lo']) }),
      { code: 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH', message: /longer than its content-length \(2 bytes\)/ }
    )
  })

  it('fails a known-size body whose content-length header disagrees, before sending it', async (t) => {
    const server = await startHttpServer(echo)
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'POST', headers: { 'content-length': '3' }, body: 'hello' }), { code: 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH' })
    assert.equal(server.requests.length, 0)
  })

  it('fails the request with the error of a Readable body that errors', async (t) => {
    const server = await startHttpServer((req, res) => { req.resume() })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const body = new Readable({ read () {} })
    body.push('partial')
    setImmediate(() => body.destroy(Object.assign(new Error('disk gone'), { code: 'EDISK' })))
    await assert.rejects(client.request({ path: '/', method: 'POST', body }), { code: 'EDISK' })
  })

  it('sends an empty POST with content-length 0 and a GET without one', async (t) => {
    const server = await startHttpServer(echo)
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'POST' })).body.text()
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.equal(server.requests[0]!.headers['content-length'], '0')
    assert.equal(server.requests[1]!.headers['content-length'], undefined)
  })

  it('waits for 100 Continue before sending the body when expectContinue is set', async (t) => {
    const server = await startHttpServer(echo)
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { body } = await client.request({ path: '/', method: 'POST', body: 'after continue', expectContinue: true })
    assert.equal(await body.text(), 'after continue')
    assert.equal(server.requests[0]!.headers.expect, '100-continue')
  })
})

describe('Client responses', () => {
  it('delivers chunked bodies and their trailers', async (t) => {
    const server = await startHttpServer((req, res) => {
      res.writeHead(200, { trailer: 'x-checksum' })
      res.write('ab')
      res.write('cd')
      res.addTrailers({ 'x-checksum': '42' })
      res.end()
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { headers, body, trailers } = await client.request({ path: '/', method: 'GET' })
    assert.equal(headers['transfer-encoding'], 'chunked')
    assert.equal(await body.text(), 'abcd')
    assert.deepEqual(trailers, { 'x-checksum': '42' })
  })

  it('reads no body for HEAD, 204 and 304, and keeps the connection after 204 and 304', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/204') { res.writeHead(204); res.end(); return }
      if (req.url === '/304') { res.writeHead(304, { etag: '"x"' }); res.end(); return }
      res.setHeader('content-length', '11')
      res.end(req.method === 'HEAD' ? undefined : 'hello world')
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const head = await client.request({ path: '/', method: 'HEAD' })
    assert.equal(head.headers['content-length'], '11')
    assert.equal(await head.body.text(), '')
    assert.equal((await client.request({ path: '/204', method: 'GET' })).statusCode, 204)
    const notModified = await client.request({ path: '/304', method: 'GET' })
    assert.equal(notModified.statusCode, 304)
    assert.equal(await notModified.body.text(), '')
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'hello world')
    // The HEAD closed its connection (its answer's framing cannot be checked); the rest shared one.
    assert.equal(server.connections, 2)
  })

  it('skips 1xx informational responses and delivers the final one', async (t) => {
    const server = await startHttpServer((req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' })
      res.end('final')
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.statusCode, 200)
    assert.equal(handler.body, 'final')
  })

  it('calls the handler hooks in order: start, response, data, end', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    assert.equal(client.dispatch({ path: '/', method: 'GET' }, handler), false)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
  })

  it('opens a new connection after the server answers with Connection: close', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('connection', 'close'); res.end('bye') })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    for (let i = 0; i < 3; i++) assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'bye')
    assert.equal(server.connections, 3)
  })

  it('reads a close-delimited body to the end of the connection', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\n\r\nuntil the end'))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'until the end')
  })

  it('pipelines non-blocking requests on one connection', async (t) => {
    let received = ''
    const server = await startTcpServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1')
        const heads = received.split('\r\n\r\n').length - 1
        // Answer only once all three requests arrived: they must have been pipelined.
        if (heads === 3) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\naHTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nbHTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nc')
      })
    })
    const client = new Client(server.origin, { pipelining: 3 })
    t.after(async () => { await client.close(); await server.close() })
    const bodies = await Promise.all(['/1', '/2', '/3'].map(async (path) => {
      const { body } = await client.request({ path, method: 'GET', blocking: false })
      return await body.text()
    }))
    assert.deepEqual(bodies, ['a', 'b', 'c'])
    assert.equal(server.connections, 1)
  })

  it('does not pipeline behind a non-idempotent request', async (t) => {
    const order: string[] = []
    const server = await startHttpServer((req, res) => {
      order.push(req.url!)
      setImmediate(() => res.end(req.url))
    })
    const client = new Client(server.origin, { pipelining: 4 })
    t.after(async () => { await client.close(); await server.close() })
    const results = await Promise.all([
      client.request({ path: '/post', method: 'POST', body: 'x' }).then((r) => r.body.text()),
      client.request({ path: '/get', method: 'GET', blocking: false }).then((r) => r.body.text())
    ])
    assert.deepEqual(results, ['/post', '/get'])
    assert.deepEqual(order, ['/post', '/get'])
  })

  it('stops reading while the handler is paused and continues on resume', async (t) => {
    const big = Buffer.alloc(4 * 1024 * 1024, 'x')
    const server = await startHttpServer((req, res) => res.end(big))
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    handler.onChunk = (controller) => { if (handler.chunks.length === 1) controller.pause() }
    client.dispatch({ path: '/', method: 'GET' }, handler)
    while (handler.chunks.length === 0) await new Promise((resolve) => setImmediate(resolve))
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.equal(handler.chunks.length, 1)
    assert.equal(handler.controller!.paused, true)
    handler.controller!.resume()
    await handler.done
    assert.equal(Buffer.concat(handler.chunks).length, big.length)
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
  })

  it('adds the query option to the path', async (t) => {
    const server = await startHttpServer((req, res) => res.end(req.url))
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { body } = await client.request({ path: '/q?a=1', method: 'GET', query: { b: 'x y', c: [1, 2] } })
    assert.equal(await body.text(), '/q?a=1&b=x%20y&c=1&c=2')
    // As node:querystring writes them (undici's rule): a value that is not a string, finite
    // number, bigint or boolean is empty, and an undefined one still names its key.
    const empty = await client.request({ path: '/e', method: 'GET', query: { a: null, b: undefined, c: [null, 2], d: {}, e: Infinity, f: false } })
    assert.equal(await empty.body.text(), '/e?a=&b=&c=&c=2&d=&e=&f=false')
  })
})

describe('Client methods', () => {
  it('sends standard methods upper-case, so a lower-case head gets no body and closes its connection', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('content-length', '5'); res.setHeader('x-method', req.method ?? ''); res.end(req.method === 'HEAD' ? undefined : 'hello') })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const head = await client.request({ path: '/', method: 'head' })
    assert.equal(head.headers['x-method'], 'HEAD')
    assert.equal(await head.body.text(), '')
    const get = await client.request({ path: '/', method: 'get' })
    assert.equal(await get.body.text(), 'hello')
    assert.equal(server.connections, 2)
  })
})

describe('Client backpressure through request()', () => {
  it('stops reading from the socket while the body is not consumed, then delivers all of it', async (t) => {
    const total = 32 * 1024 * 1024
    const chunk = Buffer.alloc(64 * 1024, 'y')
    let finished = false
    const server = await startHttpServer((req, res) => {
      let sent = 0
      const pump = (): void => {
        while (sent < total) {
          sent += chunk.length
          if (!res.write(chunk)) { res.once('drain', pump); return }
        }
        res.end(() => { finished = true })
      }
      pump()
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    const { body } = await client.request({ path: '/', method: 'GET' })
    // Not reading: the client must stop taking bytes, so the server can never finish writing.
    for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.equal(finished, false)
    let received = 0
    for await (const part of body) received += (part as Buffer).length
    assert.equal(received, total)
  })
})
