import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Client, errors } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

/**
 * A server that answers "ok" to every request, except that its first connection resets at its
 * second request (a kept-alive connection that went stale). `bodies` gets each answered body.
 */
function startStaleOnceServer (bodies: string[] = []): Promise<TestServer> {
  let connection = 0
  return startTcpServer((socket) => {
    const n = ++connection
    let requests = 0
    socket.on('data', (chunk: Buffer) => {
      requests++
      if (n === 1 && requests === 2) { socket.destroy(); return }
      bodies.push(chunk.toString('latin1').split('\r\n\r\n')[1] ?? '')
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    })
  })
}

/**
 * Dispatches a GET to `server` whose handler pauses on its first chunk (or on every chunk), waits
 * until that chunk arrived and the connection's end had time to follow, and returns the handler.
 */
async function dispatchPaused (t: TestContext, server: TestServer, pauseOn: 'first chunk' | 'every chunk'): Promise<RecordingHandler> {
  const client = new Client(server.origin)
  t.after(async () => { await client.close(); await server.close() })
  const handler = new RecordingHandler()
  handler.onChunk = (controller) => { if (pauseOn === 'every chunk' || handler.chunks.length === 1) controller.pause() }
  client.dispatch({ path: '/', method: 'GET' }, handler)
  while (handler.chunks.length === 0) await nextTurn()
  for (let i = 0; i < 20; i++) await nextTurn()
  return handler
}

describe('Client input validation', () => {
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a CRLF in the method', { method: 'GET\r\nX: y', path: '/' }, /invalid method: "GET\\r\\nX: y"/],
    ['a NUL in the path', { method: 'GET', path: '/a\0b' }, /invalid path: "\/a\\u0000b"/],
    ['a CRLF in the path', { method: 'GET', path: '/a\r\nHost: evil' }, /invalid path/],
    ['a CRLF in a header value', { method: 'GET', path: '/', headers: { 'x-a': 'v\r\nx-b: 1' } }, /invalid value for header x-a/],
    ['a NUL in a header value', { method: 'GET', path: '/', headers: ['x-a', 'v\0'] }, /invalid value for header x-a/],
    ['a header name that is not a token', { method: 'GET', path: '/', headers: { 'bad name': 'v' } }, /invalid header name: "bad name"/],
    ['a CRLF in a header name', { method: 'GET', path: '/', headers: [['x\r\ny', 'v']] }, /invalid header name/],
    ['a transfer-encoding header other than chunked', { method: 'GET', path: '/', headers: { 'transfer-encoding': 'gzip, chunked' } }, /invalid transfer-encoding header/],
    ['differing content-length values', { method: 'POST', path: '/', body: 'abc', headers: { 'content-length': '3, 4' } }, /invalid content-length header: "3, 4"/],
    ['an expectation other than 100-continue', { method: 'POST', path: '/', body: 'abc', headers: { expect: 'magic' } }, /invalid expect header: "magic"/],
    ['a body of an unsupported type', { method: 'POST', path: '/', body: 42 }, /invalid body: number/],
    ['a path that is not a path', { method: 'GET', path: 'nope' }, /must start with "\/"/],
    ['a negative headersTimeout', { method: 'GET', path: '/', headersTimeout: -1 }, /headersTimeout must be a number of milliseconds from 0 to 2147483647, got -1/]
  ]
  for (const [name, opts, message] of bad) {
    it(`throws InvalidArgumentError for ${name} before writing anything`, async (t) => {
      let bytes = 0
      const server = await startTcpServer((socket) => socket.on('data', (c: Buffer) => { bytes += c.length }))
      const client = new Client(server.origin)
      t.after(async () => { await client.destroy(); await server.close() })
      const handler = new RecordingHandler()
      assert.throws(() => client.dispatch(opts as never, handler), { code: 'LIB_ERR_INVALID_ARG', message })
      assert.deepEqual(handler.events, [])
      assert.equal(server.connections, 0)
      assert.equal(bytes, 0)
    })
  }

  it('rejects bad options naming the option and the value', () => {
    assert.throws(() => new Client('http://127.0.0.1:1', { pipelining: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: 'Client: pipelining must be a non-negative integer, got -1' })
    assert.throws(() => new Client('http://127.0.0.1:1', { keepAliveTimeout: Number.NaN }), { code: 'LIB_ERR_INVALID_ARG', message: /keepAliveTimeout.*NaN/ })
    assert.throws(() => new Client('ftp://127.0.0.1:1'), { code: 'LIB_ERR_INVALID_ARG', message: /http: or https:.*ftp:/ })
    assert.throws(() => new Client('http://127.0.0.1:1/path'), { code: 'LIB_ERR_INVALID_ARG', message: /must not have a path/ })
    assert.throws(() => new Client('http://127.0.0.1:1', { connect: 5 as never }), { code: 'LIB_ERR_INVALID_ARG', message: /connect must be a function or an object/ })
  })
})

describe('Client failures', () => {
  it('passes a refused connection through with its system code', async () => {
    const server = await startTcpServer(() => {})
    const origin = server.origin
    await server.close()
    const client = new Client(origin)
    const errorsSeen: string[] = []
    client.on('connectionError', (_origin, _targets, err: NodeJS.ErrnoException) => errorsSeen.push(err.code!))
    await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'ECONNREFUSED' })
    assert.deepEqual(errorsSeen, ['ECONNREFUSED'])
    await client.close()
  })

  it('fails with a SocketError when the server closes mid-body', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part'))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'error'])
    assert.equal((handler.error as errors.SocketError).code, 'LIB_ERR_SOCKET')
    assert.match(handler.error!.message, /other side closed/)
    assert.equal(((handler.error as errors.SocketError).cause as errors.LibraryError).code, 'LIB_ERR_RES_CONTENT_LENGTH_MISMATCH')
    assert.ok((handler.error as errors.SocketError).socket?.remotePort)
  })

  it('fails with HTTPParserError naming the problem for a malformed response', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab'))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_HTTP_PARSER', message: /conflicting content-length values/ })
  })

  it('fails with HeadersOverflowError when the head exceeds maxHeaderSize', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('x-big', 'a'.repeat(2000)); res.end() })
    const client = new Client(server.origin, { maxHeaderSize: 1024 })
    t.after(async () => { await client.close(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_HEADERS_OVERFLOW', message: /1024 bytes/ })
  })

  it('retries an idempotent request once when a kept-alive connection is reset before any response byte', async (t) => {
    const server = await startStaleOnceServer()
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    assert.equal(server.connections, 2)
  })

  it('does not retry a non-idempotent request on a reset connection', async (t) => {
    let requests = 0
    const server = await startTcpServer((socket) => {
      socket.on('data', () => {
        if (++requests === 2) { socket.destroy(); return }
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
      })
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    await assert.rejects(client.request({ path: '/', method: 'POST', body: 'x' }), { code: 'LIB_ERR_SOCKET' })
    assert.equal(server.connections, 1)
  })

  it('drops a kept-alive connection the server closes while idle without failing anything', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const disconnected = new Promise((resolve) => client.once('disconnect', resolve))
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    await disconnected
    assert.equal(client.connected, false)
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
  })
})

describe('Client abort', () => {
  it('fails a request aborted before its headers with the abort reason', async (t) => {
    const server = await startTcpServer(() => {})
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET' }, handler)
    client.once('connect', () => setImmediate(() => handler.controller!.abort(new errors.RequestAbortedError('stop'))))
    await handler.done
    assert.deepEqual(handler.events, ['start', 'error'])
    assert.equal(handler.error!.message, 'stop')
  })

  it('fails a request aborted in the middle of its body and frees the client', async (t) => {
    const server = await startHttpServer((req, res) => { res.write('first'); req.on('close', () => res.destroy()) })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const handler = new RecordingHandler()
    handler.onChunk = (controller) => controller.abort(new errors.RequestAbortedError('enough'))
    client.dispatch({ path: '/', method: 'GET' }, handler)
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'error'])
    assert.equal(handler.error!.message, 'enough')
    assert.equal(client.running, 0)
  })

  it('rejects with the signal reason when the signal aborts at any stage', async (t) => {
    const server = await startHttpServer((req, res) => { res.write('part') })
    const client = new Client(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    const before = new AbortController()
    before.abort(new Error('before'))
    await assert.rejects(client.request({ path: '/', method: 'GET', signal: before.signal }), { message: 'before' })

    const queued = new AbortController()
    const pending = client.request({ path: '/', method: 'GET', signal: queued.signal })
    queued.abort(new Error('queued'))
    await assert.rejects(pending, { message: 'queued' })

    const during = new AbortController()
    const { body } = await client.request({ path: '/', method: 'GET', signal: during.signal })
    const reading = body.text()
    during.abort(new Error('during body'))
    await assert.rejects(reading, { message: 'during body' })
  })

  it('fails a raw dispatch with the signal reason and calls onResponseError exactly once', async (t) => {
    const server = await startTcpServer(() => {})
    const client = new Client(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    const ac = new AbortController()
    const handler = new RecordingHandler()
    client.dispatch({ path: '/', method: 'GET', signal: ac.signal }, handler)
    ac.abort(new Error('signalled'))
    await handler.done
    handler.controller!.abort(new Error('again'))
    await nextTurn()
    assert.deepEqual(handler.events, ['start', 'error'])
    assert.equal(handler.error!.message, 'signalled')
  })
})

describe('Client close and destroy', () => {
  it('close() waits for requests in flight, then refuses new ones with ClientClosedError', async (t) => {
    const pending: { respond: (() => void) | null } = { respond: null }
    const server = await startHttpServer((req, res) => { pending.respond = () => res.end('late') })
    const client = new Client(server.origin)
    t.after(() => server.close())
    const response = client.request({ path: '/', method: 'GET' })
    while (pending.respond === null) await nextTurn()
    let closed = false
    const closing = client.close().then(() => { closed = true })
    const handler = new RecordingHandler()
    assert.equal(client.dispatch({ path: '/', method: 'GET' }, handler), false)
    assert.equal(handler.error?.name, 'ClientClosedError')
    assert.equal((handler.error as errors.LibraryError).code, 'LIB_ERR_CLOSED')
    assert.equal(closed, false)
    pending.respond()
    const { body } = await response
    assert.equal(await body.text(), 'late')
    await closing
    assert.equal(client.connected, false)
  })

  it('destroy(err) fails requests in flight and queued with that error', async (t) => {
    const server = await startTcpServer(() => {})
    const client = new Client(server.origin)
    t.after(() => server.close())
    const first = client.request({ path: '/1', method: 'GET' })
    const second = client.request({ path: '/2', method: 'GET' })
    await new Promise((resolve) => client.once('connect', resolve))
    const err = new Error('shutting down')
    await client.destroy(err)
    await assert.rejects(first, { message: 'shutting down' })
    await assert.rejects(second, { message: 'shutting down' })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('destroy() without an error fails requests with ClientDestroyedError', async (t) => {
    const server = await startTcpServer(() => {})
    const client = new Client(server.origin)
    t.after(() => server.close())
    const pending = client.request({ path: '/', method: 'GET' })
    await client.destroy()
    await assert.rejects(pending, { code: 'LIB_ERR_DESTROYED' })
  })
})

describe('Client idle connections', () => {
  it('drops a connection that receives bytes while no request is waiting, and answers the next request on a new one', async (t) => {
    let connection = 0
    const server = await startTcpServer((socket) => {
      const n = ++connection
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
        if (n === 1) setImmediate(() => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nstale'))
      })
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const disconnected = new Promise<Error>((resolve) => client.once('disconnect', (_o: unknown, _t: unknown, err: Error) => resolve(err)))
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    const err = await disconnected
    assert.match(err.message, /unexpected data from the server on an idle connection|unexpected response \(HTTP 200\): no request is waiting/)
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    assert.equal(server.connections, 2)
  })
})

describe('Client pipelined abort', () => {
  it('fails an aborted pipelined request alone, drops its response and keeps the connection', async (t) => {
    let heads = 0
    const server = await startTcpServer((socket) => {
      let received = ''
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1')
        heads = received.split('\r\n\r\n').length - 1
        // Nothing is answered before all three requests arrived, so /2 is aborted while pipelined.
        if (heads === 3) {
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecondHTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nthird')
        }
      })
    })
    const client = new Client(server.origin, { pipelining: 3 })
    t.after(async () => { await client.close(); await server.close() })
    const handlers = [new RecordingHandler(), new RecordingHandler(), new RecordingHandler()]
    client.dispatch({ path: '/1', method: 'GET', blocking: false }, handlers[0]!)
    client.dispatch({ path: '/2', method: 'GET', blocking: false }, handlers[1]!)
    while (heads < 2) await nextTurn()
    handlers[1]!.controller!.abort(new Error('not needed'))
    client.dispatch({ path: '/3', method: 'GET', blocking: false }, handlers[2]!)
    await Promise.all(handlers.map((h) => h.done))
    assert.deepEqual(handlers.map((h) => h.events), [['start', 'response', 'data', 'end'], ['start', 'error'], ['start', 'response', 'data', 'end']])
    assert.deepEqual([handlers[0]!.body, handlers[1]!.error!.message, handlers[2]!.body], ['first', 'not needed', 'third'])
    assert.equal(server.connections, 1)
  })
})

describe('Client retry of stale connections', () => {
  it('sends a Blob body again on the fresh connection', async (t) => {
    const bodies: string[] = []
    const server = await startStaleOnceServer(bodies)
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.equal(await (await client.request({ path: '/', method: 'PUT', body: new Blob(['blob body']) })).body.text(), 'ok')
    assert.equal(bodies.at(-1), 'blob body')
    assert.equal(server.connections, 2)
  })

  it('closes the connection after the response when the Keep-Alive hint leaves no idle time', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\nok'))
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    for (let i = 0; i < 2; i++) assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    assert.equal(server.connections, 2)
  })
})

describe('Client paused at the end of the connection', () => {
  it('completes a response whose last bytes arrived with the close while the handler was paused', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello'))
    })
    const handler = await dispatchPaused(t, server, 'every chunk')
    handler.controller!.resume()
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.body, 'hello')
  })

  it('completes a close-delimited body that ended while the handler was paused', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => { socket.write('HTTP/1.1 200 OK\r\n\r\nfirst'); setImmediate(() => socket.end('second')) })
    })
    const handler = await dispatchPaused(t, server, 'first chunk')
    handler.controller!.resume()
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.body, 'firstsecond')
  })

  it('completes a response whose bytes all arrived before a reset, when the handler resumes', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhello', () => {
        socket.write('world', () => socket.resetAndDestroy())
      }))
    })
    const handler = await dispatchPaused(t, server, 'every chunk')
    while (handler.events.at(-1) === 'data' && handler.controller!.paused) {
      handler.controller!.resume()
      await nextTurn()
    }
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'end'])
    assert.equal(handler.body, 'helloworld')
  })

  it('fails a paused response cut short by a reset once the handler resumes', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhello', () => socket.resetAndDestroy()))
    })
    const handler = await dispatchPaused(t, server, 'every chunk')
    handler.controller!.resume()
    await handler.done
    assert.deepEqual(handler.events, ['start', 'response', 'data', 'error'])
    assert.equal((handler.error as { code?: string }).code, 'LIB_ERR_SOCKET')
  })
})

describe('Client option messages', () => {
  it('quotes a string given where a number is expected, so "5" is told apart from 5', () => {
    assert.throws(() => new Client('http://127.0.0.1:1', { headersTimeout: '5' as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'Client: headersTimeout must be a number of milliseconds from 0 to 2147483647, got "5"' })
  })
})
