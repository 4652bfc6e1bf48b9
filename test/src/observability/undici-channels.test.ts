// undici's channel names, published by conduit: the same scenario runs through undici and through
// conduit, and the messages a subscriber sees (names, order, fields) are compared.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { undici } from '../../helpers/undici-reference.js'
import { Agent, Client, errors, fetch, interceptors, MockAgent, request, setUndiciChannels } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { respond, startH2sServer } from '../../helpers/h2-server.js'
import { caCrt } from '../../helpers/certs.js'

const NAMES = [
  'undici:request:create', 'undici:client:beforeConnect', 'undici:client:connected', 'undici:client:connectError',
  'undici:client:sendHeaders', 'undici:request:bodyChunkSent', 'undici:request:bodySent', 'undici:request:headers',
  'undici:request:bodyChunkReceived', 'undici:request:trailers', 'undici:request:error'
]

type Message = Record<string, any>

/** Runs `scenario` with a subscriber on every undici channel; returns what it saw, in order. */
async function observe (scenario: () => Promise<unknown>, onCreate?: (request: Message) => void): Promise<Array<[string, Message]>> {
  const seen: Array<[string, Message]> = []
  const subscribers = NAMES.map((name) => {
    const fn = (message: unknown): void => {
      // What a tracing tool reads of the socket, read while the message is delivered.
      const socket = (message as Message).socket
      seen.push([name, socket === undefined ? message as Message : { ...(message as Message), peerPort: socket?.remotePort }])
      if (name === 'undici:request:create') onCreate?.((message as Message).request)
    }
    diagnosticsChannel.subscribe(name, fn)
    return () => diagnosticsChannel.unsubscribe(name, fn)
  })
  try {
    await scenario()
  } finally {
    for (const off of subscribers) off()
  }
  return seen
}

/** The names seen, with runs of the same chunk event folded into one (chunking differs by design). */
function sequence (seen: Array<[string, Message]>): string[] {
  const names: string[] = []
  for (const [name] of seen) if (names.at(-1) !== name || !name.includes('Chunk')) names.push(name)
  return names
}

function message (seen: Array<[string, Message]>, name: string): Message {
  const found = seen.find(([n]) => n === name)
  assert.ok(found, `no ${name} message`)
  return found[1]
}

/** Response headers of an `undici:request:headers` message as lower-case name → value text. */
function headerMap (raw: Buffer[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (let i = 0; i < raw.length; i += 2) out[raw[i]!.toString().toLowerCase()] = raw[i + 1]!.toString()
  return out
}

/** The fields a tracing tool reads, from every message of one run. */
function observed (seen: Array<[string, Message]>): Record<string, unknown> {
  const create = message(seen, 'undici:request:create').request
  const headers = seen.find(([n]) => n === 'undici:request:headers')?.[1].response
  const body = Buffer.concat(seen.filter(([n]) => n === 'undici:request:bodyChunkReceived').map(([, m]) => Buffer.from(m.chunk)))
  const sent = seen.filter(([n]) => n === 'undici:request:bodyChunkSent').map(([, m]) => Buffer.from(m.chunk).toString()).join('')
  return {
    sequence: sequence(seen),
    sameRequestObject: seen.filter(([n]) => n.startsWith('undici:request:') || n === 'undici:client:sendHeaders').every(([, m]) => m.request === create),
    origin: create.origin,
    method: create.method,
    path: create.path,
    requestHeaderNames: (create.headers as string[]).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
    completedAtEnd: create.completed,
    statusCode: headers?.statusCode,
    responseHeaders: headers === undefined ? undefined : (({ date: _d, ...rest }) => rest)(headerMap(headers.headers)),
    receivedBody: body.toString(),
    sentBody: sent,
    sendHeadersHasPeer: seen.filter(([n]) => n === 'undici:client:sendHeaders').every(([, m]) => typeof m.peerPort === 'number'),
    connectedVersion: seen.find(([n]) => n === 'undici:client:connected')?.[1].connectParams.version
  }
}

async function withServer (t: { after: (fn: () => Promise<void>) => void }, handler: Parameters<typeof startHttpServer>[0]): Promise<TestServer> {
  const server = await startHttpServer(handler)
  t.after(() => server.close())
  return server
}

const echo: Parameters<typeof startHttpServer>[0] = (req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk: string) => { body += chunk })
  req.on('end', () => {
    res.setHeader('x-got', `${req.method}:${body}`)
    res.setHeader('x-trace', String(req.headers['x-trace'] ?? ''))
    res.end(`hello ${req.url}`)
  })
}

/** A client of either library, as these scenarios use it. */
interface RequestClient { request: (options: any) => Promise<any>, close: () => Promise<void> }

/** A scenario: one request with `options` on a fresh client, observed, the client closed. */
function oneRequest (options: Record<string, unknown>): (client: RequestClient) => Promise<Record<string, unknown>> {
  return async (client) => {
    const seen = await observe(async () => {
      const res = await client.request(options)
      await res.body.text()
    })
    await client.close()
    return observed(seen)
  }
}

describe('undici channel names (differential against undici)', () => {
  it('a GET: the same messages, in the same order, with the same fields', async (t) => {
    const server = await withServer(t, echo)
    const run = oneRequest({ path: '/a?q=1', method: 'GET', headers: { 'user-agent': 'probe', 'x-one': '1' } })
    const theirs = await run(new undici.Client(server.origin))
    const ours = await run(new Client(server.origin))
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours.sequence, [
      'undici:request:create', 'undici:client:beforeConnect', 'undici:client:connected', 'undici:client:sendHeaders',
      'undici:request:bodySent', 'undici:request:headers', 'undici:request:bodyChunkReceived', 'undici:request:trailers'
    ])
  })

  it('a POST with a body: body chunks and bodySent as undici sends them', async (t) => {
    const server = await withServer(t, echo)
    const run = oneRequest({ path: '/p', method: 'POST', body: 'payload' })
    const theirs = await run(new undici.Client(server.origin))
    const ours = await run(new Client(server.origin))
    assert.deepEqual(ours, theirs)
    assert.equal(ours.sentBody, 'payload')
  })

  it('addHeader() on request:create puts the header on the wire, as tracing tools need', async (t) => {
    const server = await withServer(t, echo)
    const addTrace = (request: Message): void => { request.addHeader('x-trace', 'abc-123') }
    const traced = async (call: () => Promise<any>): Promise<string> => {
      let header = ''
      await observe(async () => {
        const res = await call()
        header = res.headers['x-trace'] ?? res.headers.get?.('x-trace')
        if (res.body?.text !== undefined) await res.body.text(); else await res.text()
      }, addTrace)
      return header
    }
    const theirs = await traced(() => undici.request(`${server.origin}/t`))
    const ours = await traced(() => request(`${server.origin}/t`))
    const oursFetch = await traced(() => fetch(`${server.origin}/t`))
    assert.deepEqual([ours, oursFetch], [theirs, theirs])
    assert.equal(theirs, 'abc-123')
  })

  it('a refused connection: create, beforeConnect, connectError, error with the same code', async () => {
    const closed = await startHttpServer(() => {})
    const origin = closed.origin
    await closed.close()
    const run = async (client: RequestClient): Promise<unknown> => {
      const seen = await observe(async () => {
        await assert.rejects(client.request({ path: '/', method: 'GET' }))
      })
      await client.close()
      return { sequence: sequence(seen), code: message(seen, 'undici:request:error').error.code, connectCode: message(seen, 'undici:client:connectError').error.code }
    }
    const theirs = await run(new undici.Client(origin))
    const ours = await run(new Client(origin))
    assert.deepEqual(ours, theirs)
    assert.deepEqual(theirs, {
      sequence: ['undici:request:create', 'undici:client:beforeConnect', 'undici:client:connectError', 'undici:request:error'],
      code: 'ECONNREFUSED',
      connectCode: 'ECONNREFUSED'
    })
  })

  it('HTTP/2: the same messages as undici with allowH2', async (t) => {
    const server = await startH2sServer((stream, headers) => respond(stream, 200, `h2 ${String(headers[':path'])}`, { 'x-got': 'yes' }))
    t.after(() => server.close())
    const request = oneRequest({ path: '/h', method: 'GET' })
    const run = async (client: RequestClient): Promise<Record<string, unknown>> => {
      const { responseHeaders: _, ...rest } = await request(client)
      return rest
    }
    const theirs = await run(new undici.Client(server.origin, { allowH2: true, connect: { ca: caCrt } }))
    const ours = await run(new Client(server.origin, { allowH2: true, connect: { ca: caCrt } }))
    assert.deepEqual(ours, theirs)
    assert.equal(ours.connectedVersion, 'h2')
  })

  it('answers made by interceptors (a mock, a cache hit) publish nothing, as in undici', async (t) => {
    const server = await withServer(t, (req, res) => { res.setHeader('cache-control', 'max-age=60'); res.end('cached') })
    const twice = async (dispatcher: any, call: typeof request): Promise<string[]> => {
      await (await call(`${server.origin}/c`, { dispatcher })).body.text()
      const seen = await observe(async () => { await (await call(`${server.origin}/c`, { dispatcher })).body.text() })
      return seen.map(([name]) => name)
    }
    const theirCache = await twice(new undici.Agent().compose(undici.interceptors.cache()), undici.request as unknown as typeof request)
    const ourCache = await twice(new Agent().compose(interceptors.cache()), request)
    assert.deepEqual(ourCache, theirCache)
    assert.deepEqual(ourCache, [])

    const mockRun = async (agent: any, call: typeof request): Promise<string[]> => {
      agent.disableNetConnect()
      agent.get('http://mock.test').intercept({ path: '/m' }).reply(200, 'mocked')
      const seen = await observe(async () => { await (await call('http://mock.test/m', { dispatcher: agent })).body.text() })
      await agent.close()
      return seen.map(([name]) => name)
    }
    assert.deepEqual(await mockRun(new MockAgent(), request), await mockRun(new undici.MockAgent(), undici.request as unknown as typeof request))
  })

  it('credentials stay redacted on the undici names (stricter than undici on purpose)', async (t) => {
    const server = await withServer(t, echo)
    const client = new Client(server.origin)
    t.after(() => client.close())
    const seen = await observe(async () => {
      const res = await client.request({ path: '/s', method: 'GET', headers: { 'proxy-authorization': 'Basic c2VjcmV0OnB3' } })
      await res.body.text()
    })
    const text = JSON.stringify(seen.map(([name, m]) => [name, m.request?.headers, m.headers]))
    assert.ok(!text.includes('c2VjcmV0OnB3'), text)
    assert.ok(text.includes('[redacted]'))
    assert.equal(server.requests[0]!.headers['proxy-authorization'], 'Basic c2VjcmV0OnB3')
  })

  it('a credential header a subscriber adds reaches the wire and is redacted in sendHeaders; response credentials are redacted when read', async (t) => {
    const server = await withServer(t, (req, res) => {
      res.setHeader('set-cookie', 'sid=s3cr3t-cookie')
      res.setHeader('x-plain', 'shown')
      res.end('ok')
    })
    const client = new Client(server.origin)
    t.after(() => client.close())
    const seen = await observe(async () => {
      const res = await client.request({ path: '/k', method: 'GET' })
      await res.body.text()
    }, (req) => { req.addHeader('x-api-key', 'k3y-added-by-tracer') })
    assert.equal(server.requests[0]!.headers['x-api-key'], 'k3y-added-by-tracer')
    const head = message(seen, 'undici:client:sendHeaders').headers as string
    assert.ok(!head.includes('k3y-added-by-tracer'), head)
    assert.match(head, /x-api-key: \[redacted\]/)
    const response = message(seen, 'undici:request:headers').response
    const headers = headerMap(response.headers)
    assert.equal(headers['set-cookie'], '[redacted]')
    assert.equal(headers['x-plain'], 'shown')
    assert.equal(response.statusCode, 200)
    // Made once: every read gives the same list.
    assert.equal(response.headers, response.headers)
  })

  it('trailers and repeated response headers are raw Buffer lists with every credential value redacted', async (t) => {
    const server = await withServer(t, (req, res) => {
      res.setHeader('set-cookie', ['a=s3cr3t-one', 'b=s3cr3t-two'])
      res.setHeader('trailer', 'x-auth-token, x-checksum')
      res.write('ok')
      res.addTrailers({ 'x-auth-token': 's3cr3t-trailer', 'x-checksum': 'c0ffee' })
      res.end()
    })
    const client = new Client(server.origin)
    t.after(() => client.close())
    const seen = await observe(async () => {
      const res = await client.request({ path: '/t', method: 'GET' })
      await res.body.text()
    })
    const trailers = message(seen, 'undici:request:trailers').trailers as Buffer[]
    assert.ok(trailers.every((item) => Buffer.isBuffer(item)))
    assert.deepEqual(trailers.map(String), ['x-auth-token', '[redacted]', 'x-checksum', 'c0ffee'])
    const raw = (message(seen, 'undici:request:headers').response.headers as Buffer[]).map(String)
    const cookies = raw.flatMap((item, i) => i % 2 === 0 && item === 'set-cookie' ? [raw[i + 1]] : [])
    assert.deepEqual(cookies, ['[redacted]', '[redacted]'])
    assert.ok(!JSON.stringify(raw.concat(trailers.map(String))).includes('s3cr3t'))
  })

  it('addHeader refuses a bad name, a bad value and framing headers with a clear error', async (t) => {
    const server = await withServer(t, echo)
    const client = new Client(server.origin)
    t.after(() => client.close())
    const refused: string[] = []
    await observe(async () => { await (await client.request({ path: '/', method: 'GET' })).body.text() }, (req) => {
      for (const [name, value] of [['bad name', 'v'], ['x-ok', 'line\r\nbreak'], ['content-length', '1'], ['Host', 'evil.test']]) {
        try {
          req.addHeader(name, value)
        } catch (err) {
          assert.ok(err instanceof errors.InvalidArgumentError)
          refused.push((err as Error).message)
        }
      }
    })
    assert.equal(refused.length, 4)
    assert.match(refused[0]!, /"bad name"/)
    assert.match(refused[2]!, /content-length/)
    assert.equal(server.requests[0]!.headers.host, new URL(server.origin).host)
  })

  it('a name addHeader accepted before is still refused with a bad value, and framing names in any case', async (t) => {
    const server = await withServer(t, echo)
    const client = new Client(server.origin)
    t.after(() => client.close())
    const outcomes: string[] = []
    const tryAdd = (req: Message, name: string, value: string): void => {
      try {
        req.addHeader(name, value)
        outcomes.push(`added ${name}`)
      } catch (err) {
        assert.ok(err instanceof errors.InvalidArgumentError)
        outcomes.push(`refused ${name}: ${(err as Error).message}`)
      }
    }
    for (let i = 0; i < 3; i++) {
      await observe(async () => { await (await client.request({ path: '/', method: 'GET' })).body.text() }, (req) => {
        tryAdd(req, 'x-trace', i === 1 ? 'bad\nvalue' : `ok-${i}`)
        tryAdd(req, i === 2 ? 'CONTENT-LENGTH' : 'Content-Length', '5')
      })
    }
    assert.equal(outcomes[0], 'added x-trace')
    assert.match(outcomes[2]!, /^refused x-trace: addHeader: invalid value for header "x-trace"$/)
    assert.equal(outcomes[4], 'added x-trace')
    for (const i of [1, 3, 5]) assert.match(outcomes[i]!, /^refused content-length: .*set by the transport/i)
    assert.deepEqual(server.requests.map((r) => r.headers['x-trace']), ['ok-0', undefined, 'ok-2'])
  })

  it('the request view reads the request when asked: headers made on first read, with added ones after the caller\'s', async (t) => {
    const server = await withServer(t, echo)
    const client = new Client(server.origin)
    t.after(() => client.close())
    let view: Message | undefined
    const seen = await observe(async () => {
      await (await client.request({ path: '/v', method: 'GET', headers: { 'x-one': '1', authorization: 'secret', host: 'h.test' } })).body.text()
    }, (req) => {
      view = req
      // Added before any read of the list, then read: the caller's first, credentials redacted.
      req.addHeader('traceparent', 'tp-value')
      assert.deepEqual(req.headers, ['x-one', '1', 'authorization', '[redacted]', 'traceparent', 'tp-value'])
      req.addHeader('tracestate', 'ts')
      assert.equal(req.completed, false)
    })
    assert.ok(view !== undefined)
    assert.equal(view.headers, message(seen, 'undici:request:headers').request.headers)
    assert.deepEqual(view.headers.slice(-2), ['tracestate', 'ts'])
    assert.deepEqual([view.origin, view.method, view.path, view.host, view.idempotent, view.completed], [server.origin, 'GET', '/v', 'h.test', true, true])
    assert.deepEqual([server.requests[0]!.headers.traceparent, server.requests[0]!.headers.tracestate], ['tp-value', 'ts'])
  })

  it('setUndiciChannels(false) silences the undici names only; a bad value is refused', async (t) => {
    const server = await withServer(t, echo)
    const client = new Client(server.origin)
    const own: string[] = []
    const onOwn = (): void => { own.push('create') }
    diagnosticsChannel.subscribe('conduit:request:create', onOwn)
    t.after(async () => {
      setUndiciChannels(true)
      diagnosticsChannel.unsubscribe('conduit:request:create', onOwn)
      await client.close()
    })
    setUndiciChannels(false)
    const seen = await observe(async () => { await (await client.request({ path: '/', method: 'GET' })).body.text() })
    assert.deepEqual(seen, [])
    assert.deepEqual(own, ['create'])
    assert.throws(() => setUndiciChannels('no' as unknown as boolean), (err: Error) => err instanceof errors.InvalidArgumentError && /"no"|'no'|no/.test(err.message))
  })
})
