import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type net from 'node:net'
import { Agent, RetryHandler, errors, interceptors } from '../../../src/index.js'
import type { IncomingHeaders } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'

/** Reads one request head from a raw socket and hands over its lower-case headers. */
function onRequestHead (socket: net.Socket, respond: (headers: Record<string, string>) => void): void {
  let text = ''
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1')
    const end = text.indexOf('\r\n\r\n')
    if (end === -1) return
    const headers: Record<string, string> = {}
    for (const line of text.slice(0, end).split('\r\n').slice(1)) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    text = ''
    respond(headers)
  })
}

/** A server whose first answer breaks off after `hello`; later ones answer the Range they get. */
async function breakingServer (etag: string) {
  const resumes: Array<Record<string, string>> = []
  let connections = 0
  const server = await startTcpServer((socket) => {
    const n = ++connections
    onRequestHead(socket, (headers) => {
      if (n === 1) {
        socket.write(`HTTP/1.1 200 OK\r\netag: ${etag}\r\ncontent-length: 10\r\n\r\nhello`)
        setImmediate(() => socket.destroy())
        return
      }
      resumes.push(headers)
      socket.end(`HTTP/1.1 206 Partial Content\r\netag: ${etag}\r\ncontent-range: bytes 5-9/10\r\ncontent-length: 5\r\n\r\nworld`)
    })
  })
  return { server, resumes }
}

describe('retry compatibility with undici', () => {
  it('resumes a body whose ETag is unquoted, sending the tag back exactly as received', async (t) => {
    const { server, resumes } = await breakingServer('abc123')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.retry({ minTimeout: 1, maxRetries: 2 }))
    const { body } = await dispatcher.request({ origin: server.origin, path: '/file', method: 'GET' })
    assert.equal(await body.text(), 'helloworld')
    assert.equal(resumes.length, 1)
    assert.equal(resumes[0]!.range, 'bytes=5-9')
    assert.equal(resumes[0]!['if-match'], 'abc123')
  })

  it('restarts a body with a weak ETag from the start without Range, and says so in the debug log', async () => {
    const script = `
      import net from 'node:net'
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      let connections = 0
      const seen = []
      const server = net.createServer((socket) => socket.once('data', (head) => {
        seen.push(/\\r\\nrange:/i.test(head.toString('latin1')))
        if (++connections === 1) {
          socket.write('HTTP/1.1 200 OK\\r\\netag: W/"v1"\\r\\ncontent-length: 10\\r\\n\\r\\nhello')
          setImmediate(() => socket.destroy())
          return
        }
        socket.end('HTTP/1.1 200 OK\\r\\netag: W/"v1"\\r\\ncontent-length: 10\\r\\n\\r\\nhelloworld')
      }))
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const agent = new Agent()
      const { body } = await agent.compose(interceptors.retry({ minTimeout: 1 })).request({ origin: 'http://127.0.0.1:' + server.address().port, path: '/', method: 'GET' })
      const text = await body.text()
      await agent.close()
      server.close()
      process.exit(text === 'helloworld' && seen.join() === 'false,false' ? 0 : 3)
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit:retry')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /CONDUIT:RETRY \d+: asking for all of GET http:\/\/127\.0\.0\.1:\d+\/ again, 5 bytes of it already delivered/)
    assert.match(stderr, /CONDUIT:RETRY \d+: restarted GET http:\/\/127\.0\.0\.1:\d+\/: comparing its first 5 bytes with the delivered ones/)
  })

  it('fails clearly when the first answer is a 206 whose Content-Length disagrees with its Content-Range', async (t) => {
    const server = await startTcpServer((socket) => onRequestHead(socket, () => {
      socket.end('HTTP/1.1 206 Partial Content\r\netag: "v"\r\ncontent-range: bytes 0-9/20\r\ncontent-length: 4\r\n\r\nabcd')
    }))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.retry({ minTimeout: 1 }))
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/part', method: 'GET', headers: { range: 'bytes=0-9' } }), (err: Error) => {
      assert.ok(err instanceof errors.RequestRetryError)
      assert.equal((err as errors.RequestRetryError).code, 'LIB_ERR_REQ_RETRY')
      assert.equal((err as errors.RequestRetryError).statusCode, 206)
      assert.match(err.message, /answered 206 with Content-Length 4 does not match Content-Range bytes 0-9\/20/)
      return true
    })
  })

  it('sends a GET when RetryHandler is given no method, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => res.end(req.method))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const opts = { origin: server.origin, path: '/' } as never
    const result = await new Promise<string>((resolve, reject) => {
      let text = ''
      const handler = new RetryHandler(opts, {
        dispatch: (o, h) => agent.dispatch(o, h),
        handler: {
          onResponseData: (_c, chunk) => { text += String(chunk) },
          onResponseEnd: () => resolve(text),
          onResponseError: (_c, err) => reject(err)
        }
      })
      agent.dispatch({ origin: server.origin, path: '/', method: 'GET' }, handler)
    })
    assert.equal(result, 'GET')
    assert.deepEqual(server.requests.map((r) => r.method), ['GET'])
  })

  it('forwards informational answers (103 Early Hints) of the attempt that succeeds', async (t) => {
    let n = 0
    const server = await startTcpServer((socket) => onRequestHead(socket, () => {
      if (++n === 1) {
        socket.write('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n')
        return
      }
      socket.write('HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n')
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    }))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.retry({ minTimeout: 1 }))
    const events: string[] = []
    await new Promise<void>((resolve, reject) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onResponseInformation: (_c, status: number, headers: IncomingHeaders) => { events.push(`info ${status} ${String(headers.link)}`) },
        onResponseStart: (_c, status) => { events.push(`start ${status}`) },
        onResponseEnd: () => resolve(),
        onResponseError: (_c, err) => reject(err)
      })
    })
    assert.deepEqual(events, ['info 103 </a.css>; rel=preload', 'start 200'])
  })
})
