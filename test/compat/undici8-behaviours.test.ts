// Behaviours a user moving from undici 8 meets, each against undici: bodies and headers
// (a FormData body, the headers a custom dispatcher sees from fetch and EventSource, an ended
// stream body), proxies (an empty httpProxy, a clientFactory that returns a plain dispatcher), the
// connect diagnostics, the `connection: keep-alive` request header, a response that arrives
// before the request body is complete, and interceptors written for undici 6 and 7.
import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { PassThrough } from 'node:stream'
import { once } from 'node:events'
import diagnosticsChannel from 'node:diagnostics_channel'
import { both } from './harness.js'
import type { Lib } from './harness.js'
import { NODE_MAJOR, UNDICI_MAJOR, undici } from '../helpers/undici-reference.js'
import { startHttpServer, startScriptedServer, startTcpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'
import { startH2sServer } from '../helpers/h2-server.js'
import { caCrt } from '../helpers/certs.js'
import * as conduit from '../../src/index.js'

/** A server that answers with what it received: method, framing headers, content type and body. */
async function echoServer (t: TestContext): Promise<TestServer<http.Server>> {
  const server = await startHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({
        contentLength: req.headers['content-length'] ?? null,
        transferEncoding: req.headers['transfer-encoding'] ?? null,
        contentType: req.headers['content-type'] ?? null,
        connection: req.headers.connection ?? null,
        body: Buffer.concat(chunks).toString('latin1')
      }))
    })
  })
  t.after(() => server.close())
  return server
}

async function json (lib: Lib, url: string, opts: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { body } = await lib.request(url, opts)
  return await body.json() as Record<string, unknown>
}

/**
 * undici 8 on Node 24 and later takes the runtime's FormData for its own and fails a body of its
 * own class (a `TypeError` from inside on Node 24, an `InvalidArgumentError` on Node 26), as the
 * runtime's bundled undici shares its brand checks (docs/undici-differences.md).
 */
const UNDICI_TAKES_RUNTIME_FORM_DATA = UNDICI_MAJOR === 8 && NODE_MAJOR >= 24

async function dispatcherJson (dispatcher: Lib, opts: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { body } = await dispatcher.request(opts)
  return await body.json() as Record<string, unknown>
}

describe('undici 8 behaviours, differential', () => {
  it('sends a FormData body as multipart/form-data with its length, as undici does', async (t) => {
    const server = await echoServer(t)
    const { undici: theirs, conduit: ours } = await both(async (lib, name) => {
      const form = name === 'undici' && UNDICI_TAKES_RUNTIME_FORM_DATA ? new globalThis.FormData() : new lib.FormData()
      form.append('name', 'conduit')
      form.append('file', new Blob(['file bytes'], { type: 'text/plain' }), 'a.txt')
      const seen = await json(lib, `${server.origin}/upload`, { method: 'POST', body: form })
      const boundary = /boundary=(.+)$/.exec(String(seen.contentType))?.[1] ?? ''
      return {
        type: String(seen.contentType).split(';')[0],
        lengthMatches: Number(seen.contentLength) === (seen.body as string).length,
        chunked: seen.transferEncoding,
        // The parts, with the boundary (random in both) taken out.
        body: (seen.body as string).split(boundary).join('BOUNDARY')
      }
    })
    assert.deepEqual(ours, theirs)
    assert.equal(ours.type, 'multipart/form-data')
    assert.equal(ours.lengthMatches, true)
    assert.match(ours.body, /name="file"; filename="a.txt"\r\nContent-Type: text\/plain\r\n\r\nfile bytes\r\n/)
  })

  it('sends the runtime\'s own FormData and undici\'s, where undici takes one of them', async (t) => {
    const server = await echoServer(t)
    const form = new globalThis.FormData()
    form.append('k', 'v')
    const seen = await json(conduit, `${server.origin}/`, { method: 'POST', body: form })
    assert.match(String(seen.contentType), /^multipart\/form-data; boundary=/)
    assert.match(String(seen.body), /name="k"\r\n\r\nv\r\n/)
    const own = new undici.FormData()
    own.append('k', 'v')
    if (UNDICI_TAKES_RUNTIME_FORM_DATA) {
      // undici 8 on Node 24 and later sends the runtime's FormData and fails its own.
      assert.match(String((await json(undici as unknown as Lib, `${server.origin}/`, { method: 'POST', body: form })).body), /name="k"\r\n\r\nv\r\n/)
      await assert.rejects(json(undici as unknown as Lib, `${server.origin}/`, { method: 'POST', body: own }))
    } else {
      // undici 8 refuses it with an InvalidArgumentError, undici 7 fails inside with a TypeError.
      await assert.rejects(json(undici as unknown as Lib, `${server.origin}/`, { method: 'POST', body: form }))
    }
    const sent = await json(conduit, `${server.origin}/`, { method: 'POST', body: own })
    assert.match(String(sent.body), /name="k"\r\n\r\nv\r\n/)
  })

  it('sends a stream body that has already ended with its content-length, not chunked, as undici does', async (t) => {
    const server = await echoServer(t)
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const empty = new PassThrough()
      empty.end()
      const full = new PassThrough()
      full.end('abc')
      const a = await json(lib, `${server.origin}/`, { method: 'POST', body: empty })
      const b = await json(lib, `${server.origin}/`, { method: 'PUT', body: full })
      return [[a.contentLength, a.transferEncoding, a.body], [b.contentLength, b.transferEncoding, b.body]]
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, [['0', null, ''], ['3', null, 'abc']])
  })

  it('sends a stream body that was read from, paused or read to its end before the request as undici does', async (t) => {
    const server = await echoServer(t)
    const bodies: Record<string, () => Promise<PassThrough>> = {
      'read(0), then ended': async () => {
        const s = new PassThrough()
        s.write('abc')
        s.read(0)
        s.end('def')
        return s
      },
      'read(0) on an ended empty stream': async () => {
        const s = new PassThrough()
        s.end()
        s.read(0)
        return s
      },
      'paused, with its data written and ended': async () => {
        const s = new PassThrough()
        s.pause()
        s.write('abc')
        s.end('d')
        return s
      },
      'read to its end (end emitted, destroyed since)': async () => {
        const s = new PassThrough()
        s.end('abc')
        s.resume()
        await once(s, 'end')
        return s
      },
      'read to its end, not destroying itself': async () => {
        const s = new PassThrough({ autoDestroy: false })
        s.end('abc')
        s.resume()
        await once(s, 'end')
        return s
      }
    }
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const seen: Record<string, unknown> = {}
      for (const [name, make] of Object.entries(bodies)) {
        const echoed = await json(lib, `${server.origin}/`, { method: 'POST', body: await make() })
        seen[name] = [echoed.contentLength, echoed.transferEncoding, echoed.body]
      }
      return seen
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, {
      'read(0), then ended': ['6', null, 'abcdef'],
      'read(0) on an ended empty stream': ['0', null, ''],
      'paused, with its data written and ended': ['4', null, 'abcd'],
      'read to its end (end emitted, destroyed since)': ['0', null, ''],
      'read to its end, not destroying itself': ['0', null, '']
    })
  })

  it('fails a stream body that has a \'readable\' listener with InvalidArgumentError, where undici never sends it', async (t) => {
    const server = await echoServer(t)
    const body = new PassThrough()
    body.on('readable', () => {})
    body.end('abc')
    await assert.rejects(json(conduit, `${server.origin}/`, { method: 'POST', body }), (err: Error) => err instanceof conduit.errors.InvalidArgumentError && /'readable' listener/.test(err.message))
  })

  it('gives a dispatcher the headers of fetch and EventSource as an object, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end('data: one\n\n')
        return
      }
      res.end('ok')
    })
    t.after(() => server.close())
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const seen: unknown[] = []
      const dispatcher = new lib.Agent().compose((dispatch: (o: { headers?: unknown }, h: unknown) => boolean) => (opts: { headers?: unknown }, handler: unknown) => {
        // undici keeps the case the caller wrote a name in, conduit writes every name in lower case
        // (docs/undici-differences.md, "fetch"): the names are compared in lower case.
        const headers = Object.fromEntries(Object.entries(opts.headers as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]))
        seen.push({ isArray: Array.isArray(opts.headers), accept: headers.accept, custom: headers['x-custom'] })
        return dispatch(opts, handler)
      })
      const res = await lib.fetch(`${server.origin}/`, { dispatcher, headers: { 'X-Custom': 'yes' } })
      await res.text()
      const source = new lib.EventSource(`${server.origin}/events`, { dispatcher })
      await new Promise<void>((resolve) => { source.onmessage = () => { source.close(); resolve() } })
      await dispatcher.close()
      return seen
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, [
      { isArray: false, accept: '*/*', custom: 'yes' },
      { isArray: false, accept: 'text/event-stream', custom: undefined }
    ])
  })

  it('goes direct for EnvHttpProxyAgent({ httpProxy: \'\' }), whatever the environment says, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => res.end('direct'))
    t.after(() => server.close())
    const saved = { lower: process.env.http_proxy, upper: process.env.HTTP_PROXY }
    process.env.http_proxy = 'http://127.0.0.1:1'
    t.after(() => {
      if (saved.lower === undefined) delete process.env.http_proxy
      else process.env.http_proxy = saved.lower
    })
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const agent = new lib.EnvHttpProxyAgent({ httpProxy: '' })
      try {
        const { body } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
        return await body.text()
      } finally {
        await agent.close()
      }
    })
    assert.equal(ours, theirs)
    assert.equal(ours, 'direct')
  })

  it('takes a clientFactory that returns a plain object with dispatch(), not an EventEmitter, as undici does', async (t) => {
    const target = await startHttpServer((req, res) => res.end(`via ${req.url}`))
    const proxy = await startHttpProxy()
    t.after(() => Promise.all([target.close(), proxy.close()]))
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      let pool: { dispatch: Function, close: () => Promise<void>, destroy: (e?: Error) => Promise<void> } | null = null
      const agent = new lib.ProxyAgent({
        uri: proxy.url,
        clientFactory: (origin: URL, opts: object) => {
          pool = new lib.Pool(origin, opts)
          // connect() for undici 7, which tunnels plain http: targets through it.
          return { dispatch: (o: unknown, h: unknown) => pool!.dispatch(o, h), connect: (o: unknown) => (pool as unknown as Lib).connect(o), close: () => pool!.close(), destroy: (e?: Error) => pool!.destroy(e) }
        }
      })
      try {
        const { body } = await agent.request({ origin: target.origin, path: '/plain', method: 'GET' })
        return await body.text()
      } finally {
        await agent.close()
      }
    })
    assert.equal(ours, theirs)
    assert.equal(ours, 'via /plain')
    assert.throws(() => new conduit.ProxyAgent({ uri: proxy.url, clientFactory: () => 42 as never }), {
      code: 'LIB_ERR_INVALID_ARG', message: /clientFactory must return a dispatcher \(an object with dispatch\(\)\), got 42/
    })
  })

  it('puts the client\'s localAddress in the undici:client connect messages, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => res.end('ok'))
    t.after(() => server.close())
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const seen: unknown[] = []
      const before = (m: unknown): void => { seen.push(['beforeConnect', (m as { connectParams: { localAddress?: unknown } }).connectParams.localAddress]) }
      const connected = (m: unknown): void => { seen.push(['connected', (m as { connectParams: { localAddress?: unknown } }).connectParams.localAddress]) }
      diagnosticsChannel.subscribe('undici:client:beforeConnect', before)
      diagnosticsChannel.subscribe('undici:client:connected', connected)
      const client = new lib.Client(server.origin, { localAddress: '127.0.0.1' })
      try {
        await (await client.request({ path: '/', method: 'GET' })).body.text()
      } finally {
        diagnosticsChannel.unsubscribe('undici:client:beforeConnect', before)
        diagnosticsChannel.unsubscribe('undici:client:connected', connected)
        await client.close()
      }
      return seen
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, [['beforeConnect', '127.0.0.1'], ['connected', '127.0.0.1']])
  })

  it('sends connection: keep-alive on requests it means to reuse the connection for, and close otherwise, as undici does', async (t) => {
    const server = await echoServer(t)
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const client = new lib.Client(server.origin)
      try {
        const get = await dispatcherJson(client, { path: '/', method: 'GET' })
        const post = await dispatcherJson(client, { path: '/', method: 'POST', body: 'x' })
        const reset = await dispatcherJson(client, { path: '/', method: 'GET', reset: true })
        return [get.connection, post.connection, reset.connection]
      } finally {
        await client.close()
      }
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, ['keep-alive', 'keep-alive', 'close'])
  })

  it('delivers an answer that arrives before the request body is complete, so a proxy forwarding its own request passes it on, as undici does', async (t) => {
    // The origin refuses the upload at once, without reading it.
    const origin = await startHttpServer((req, res) => {
      res.writeHead(413, { 'content-type': 'text/plain' })
      res.end('too large')
    })
    t.after(() => origin.close())
    const { undici: theirs, conduit: ours } = await both((lib) => proxiedUpload((req) => lib.request(`${origin.origin}${req.url ?? '/'}`, { method: 'POST', body: req, headers: { 'content-type': 'application/octet-stream' } })))
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, { status: 413, body: 'too large' })
  })

  it('delivers an early answer over HTTP/2 too, so a proxy forwarding its own request passes it on, as undici does', async (t) => {
    const origin = await startH2sServer((stream) => {
      stream.respond({ ':status': 413, 'content-type': 'text/plain' })
      stream.end('too large')
    })
    t.after(() => origin.close())
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const client = new lib.Client(origin.origin, { allowH2: true, connect: { ca: caCrt } })
      try {
        return await proxiedUpload((req) => client.request({ path: req.url ?? '/', method: 'POST', body: req, headers: { 'content-type': 'application/octet-stream' } }))
      } finally {
        await client.close()
      }
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, { status: 413, body: 'too large' })
    assert.equal(origin.sessions, 2, 'both went over HTTP/2')
  })
})

/**
 * Runs a reverse proxy that sends its incoming request on as the body (through `forward`) and
 * the answer back, and uploads through it a body that never completes: only an answer given
 * before the body's end reaches the client.
 */
async function proxiedUpload (forward: (req: http.IncomingMessage) => Promise<{ statusCode: number, body: { text: () => Promise<string> } }>): Promise<{ status: number | undefined, body: string }> {
  const proxy = await startHttpServer((req, res) => {
    forward(req).then(async ({ statusCode, body }) => {
      const text = await body.text()
      res.writeHead(statusCode)
      res.end(text)
    }, (err: Error) => { res.writeHead(502); res.end(err.message) })
  })
  try {
    return await new Promise<{ status: number | undefined, body: string }>((resolve, reject) => {
      const upload = http.request(`${proxy.origin}/upload`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (c: string) => { body += c }).on('end', () => {
          resolve({ status: res.statusCode, body })
          upload.destroy()
        })
      })
      upload.on('error', reject)
      upload.write('x'.repeat(64 * 1024))
    })
  } finally {
    await proxy.close()
  }
}

describe('interceptors written for undici 6 and 7', () => {
  /** An interceptor that calls only the older hooks on the handler it wraps, as undici 6's did. */
  function legacyInterceptor (log: string[]): conduit.Interceptor {
    return (dispatch) => (opts, handler) => {
      const h = handler as unknown as Required<conduit.LegacyDispatchHandler>
      return dispatch(opts, {
        onConnect: (abort: (err?: Error) => void, context?: unknown) => { log.push('connect'); h.onConnect(abort, context) },
        onHeaders: (status: number, raw: Buffer[], resume: () => void, text?: string) => { log.push(`headers ${status}`); return h.onHeaders(status, raw, resume, text) },
        onData: (chunk: Buffer) => { log.push('data'); return h.onData(chunk) },
        onComplete: (trailers: Buffer[] | null) => { log.push('complete'); h.onComplete(trailers) },
        onError: (err: Error) => { log.push(`error ${(err as { code?: string }).code ?? err.name}`); h.onError(err) }
      } as never)
    }
  }

  async function run (lib: Lib, origin: string): Promise<unknown> {
    const log: string[] = []
    const agent = new lib.Agent().compose(legacyInterceptor(log))
    try {
      const { statusCode, headers, body } = await agent.request({ origin, path: '/', method: 'GET' })
      return { statusCode, type: headers['content-type'], body: await body.text(), log }
    } finally {
      await agent.close()
    }
  }

  it('answer the older hooks on the handlers of request(), as undici 7\'s do', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('content-type', 'text/plain'); res.end('old style') })
    t.after(() => server.close())
    const ours = await run(conduit as unknown as Lib, server.origin)
    assert.deepEqual(ours, { statusCode: 200, type: 'text/plain', body: 'old style', log: ['connect', 'headers 200', 'data', 'complete'] })
    // undici 8's handlers have only the newer hooks; undici 7's are the comparison.
    if (UNDICI_MAJOR === 7) assert.deepEqual(await run(undici as unknown as Lib, server.origin), ours)
  })

  it('answer them on fetch\'s handler, on stream()\'s and on the handlers of conduit\'s own interceptors', async (t) => {
    const server = await startHttpServer((req, res) => res.end('fine'))
    t.after(() => server.close())
    const log: string[] = []
    const agent = new conduit.Agent().compose(legacyInterceptor(log), conduit.interceptors.retry(), conduit.interceptors.decompress())
    t.after(() => agent.close())
    const response = await conduit.fetch(`${server.origin}/`, { dispatcher: agent })
    assert.equal(await response.text(), 'fine')
    const chunks: Buffer[] = []
    await agent.stream({ origin: server.origin, path: '/', method: 'GET' }, () => new (class extends PassThrough {})().on('data', (c: Buffer) => chunks.push(c)))
    assert.equal(Buffer.concat(chunks).toString(), 'fine')
    assert.deepEqual(log, ['connect', 'headers 200', 'data', 'complete', 'connect', 'headers 200', 'data', 'complete'])
  })

  it('answer onError with the failure', async (t) => {
    const server = await startTcpServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc')))
    t.after(() => server.close())
    const log: string[] = []
    const agent = new conduit.Agent().compose(legacyInterceptor(log))
    t.after(() => agent.close())
    const { body } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    await assert.rejects(body.text(), { code: 'LIB_ERR_SOCKET' })
    assert.deepEqual(log, ['connect', 'headers 200', 'data', 'error LIB_ERR_SOCKET'])
  })
})

describe('redirect() with upgrades and with retry() outside it, differential', () => {
  it('follows a redirect answered to an upgrade request, asking for the upgrade again, as undici does', async (t) => {
    const requests: string[] = []
    const server = await startScriptedServer((socket, _connection, _request, head) => {
      const path = head.split(' ')[1]
      requests.push(`${path} ${/\r\nupgrade: (\S+)/i.exec(head)?.[1] ?? '-'}`)
      if (path === '/old') socket.write('HTTP/1.1 302 Found\r\nlocation: /new\r\ncontent-length: 0\r\n\r\n')
      else socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: x-test\r\n\r\nhello')
    })
    t.after(() => server.close())
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      requests.length = 0
      const agent = new lib.Agent().compose(lib.interceptors.redirect({ maxRedirections: 2 }))
      try {
        const { socket } = await agent.upgrade({ origin: server.origin, path: '/old', protocol: 'x-test' })
        const first = await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())))
        socket.destroy()
        return { first, requests: requests.slice() }
      } finally {
        await agent.close()
      }
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, { first: 'hello', requests: ['/old x-test', '/new x-test'] })
  })

  it('shows the redirect history of the attempt that answered when retry() is outside redirect(), as undici does', async (t) => {
    let served = 0
    const server = await startHttpServer((req, res) => {
      if (req.url === '/a') {
        res.writeHead(302, { location: '/b' })
        res.end()
        return
      }
      res.statusCode = ++served === 1 ? 503 : 200
      res.end('b')
    })
    t.after(() => server.close())
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      served = 0
      // compose(a, b): b sees the request first, so retry() is outside redirect().
      const agent = new lib.Agent().compose(lib.interceptors.redirect({ maxRedirections: 3 }), lib.interceptors.retry({ minTimeout: 1 }))
      try {
        return await new Promise((resolve, reject) => {
          let context: { history?: URL[] } = {}
          agent.dispatch({ origin: server.origin, path: '/a', method: 'GET' }, {
            onRequestStart (_c: unknown, ctx: { history?: URL[] }) { context = ctx },
            onResponseStart (_c: unknown, statusCode: number) { this.statusCode = statusCode },
            onResponseData () {},
            onResponseEnd () { resolve({ statusCode: this.statusCode, history: context.history?.map((u) => new URL(u).pathname) }) },
            onResponseError (_c: unknown, err: Error) { reject(err) },
            statusCode: 0
          })
        })
      } finally {
        await agent.close()
      }
    })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, { statusCode: 200, history: ['/a', '/b'] })
  })
})

describe('MockAgent with streamed request bodies, differential', () => {
  it('gives a reply callback a streamed request body as an async iterable of its chunks, as undici does', async () => {
    const { undici: theirs, conduit: ours } = await both(async (lib) => {
      const agent = new lib.MockAgent()
      agent.disableNetConnect()
      agent.get('http://mock.test').intercept({ path: '/', method: 'POST' }).reply(200, async (opts: { body: unknown }) => {
        const body = opts.body as AsyncIterable<unknown>
        if (typeof body?.[Symbol.asyncIterator] !== 'function') return `not iterable: ${typeof body}`
        const chunks: string[] = []
        for await (const chunk of body) chunks.push(String(chunk))
        return chunks.join('|')
      })
      async function * parts (): AsyncGenerator<string> { yield 'a'; yield 'b'; yield 'c' }
      try {
        const { body } = await agent.request({ origin: 'http://mock.test', path: '/', method: 'POST', body: parts() })
        return await body.text()
      } finally {
        await agent.close()
      }
    })
    assert.equal(ours, theirs)
    assert.equal(ours, 'a|b|c')
  })

  it('matches an intercept\'s body against the bytes of a streamed request body, which undici does not', async () => {
    async function * parts (): AsyncGenerator<string> { yield 'a'; yield 'bc' }
    const matched = async (lib: Lib): Promise<string> => {
      const agent = new lib.MockAgent()
      agent.disableNetConnect()
      agent.get('http://mock.test').intercept({ path: '/', method: 'POST', body: 'abc' }).reply(200, 'matched')
      try {
        const { body } = await agent.request({ origin: 'http://mock.test', path: '/', method: 'POST', body: parts() })
        return await body.text()
      } catch (err) {
        return (err as { name: string }).name
      } finally {
        await agent.close()
      }
    }
    assert.equal(await matched(conduit as unknown as Lib), 'matched')
    assert.equal(await matched(undici as unknown as Lib), 'MockNotMatchedError')
  })
})
