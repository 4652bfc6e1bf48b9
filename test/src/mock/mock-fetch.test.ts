import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { notMatched } from './mock-agent-helpers.js'
import type { FetchFailure } from './mock-agent-helpers.js'
import type { IncomingHttpHeaders } from 'node:http'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { MockPool } from '../../../src/mock/mock-pool.js'
import { MockClient } from '../../../src/mock/mock-client.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const ORIGIN = 'http://127.0.0.1:3999'

function offline (t: { after: (fn: () => unknown) => void }, opts: ConstructorParameters<typeof MockAgent>[0] = {}): MockAgent {
  const agent = new MockAgent({ enableCallHistory: true, ...opts })
  agent.disableNetConnect()
  t.after(() => agent.close())
  return agent
}

describe('MockAgent under fetch', () => {
  it('answers fetch with the mocked status, headers and every body kind', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/json' }).reply(200, { a: 1 }, { headers: { 'content-type': 'application/json' } })
    pool.intercept({ path: '/bytes' }).reply(201, Buffer.from([1, 2, 3]))
    pool.intercept({ path: '/text' }).reply(404, 'missing')
    const json = await fetch(`${ORIGIN}/json`, { dispatcher: agent })
    assert.equal(json.status, 200)
    assert.equal(json.headers.get('content-type'), 'application/json')
    assert.deepEqual(await json.json(), { a: 1 })
    const bytes = await fetch(`${ORIGIN}/bytes`, { dispatcher: agent })
    assert.equal(bytes.status, 201)
    assert.deepEqual([...new Uint8Array(await bytes.arrayBuffer())], [1, 2, 3])
    const text = await fetch(`${ORIGIN}/text`, { dispatcher: agent })
    assert.equal(text.ok, false)
    assert.equal(text.statusText, 'Not Found')
    assert.equal(await text.text(), 'missing')
  })

  it('matches fetch request headers and bodies', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/items', method: 'POST', headers: { 'content-type': /json/, authorization: 'Bearer t' }, body: '{"name":"x"}' }).reply(201, 'created')
    const res = await fetch(`${ORIGIN}/items`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
      body: JSON.stringify({ name: 'x' })
    })
    assert.equal(res.status, 201)
    assert.equal(await res.text(), 'created')
    const log = agent.getCallHistory()!.lastCall()!
    assert.equal(log.method, 'POST')
    assert.equal(log.headers.authorization, 'Bearer t')
  })

  it('matches a streamed fetch body by its text', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/up', method: 'PUT', body: 'chunk1chunk2' }).reply(200, 'ok')
    const body = new ReadableStream<Uint8Array>({
      start (controller) {
        controller.enqueue(new TextEncoder().encode('chunk1'))
        controller.enqueue(new TextEncoder().encode('chunk2'))
        controller.close()
      }
    })
    const res = await fetch(`${ORIGIN}/up`, { dispatcher: agent, method: 'PUT', body, duplex: 'half' })
    assert.equal(await res.text(), 'ok')
  })

  it('rejects fetch with a TypeError caused by MockNotMatchedError for an unmatched request', async (t) => {
    const agent = offline(t)
    await assert.rejects(fetch(`${ORIGIN}/nothing`, { dispatcher: agent }), (err: Error & { cause?: Error & { code?: string } }) => {
      assert.equal(err.name, 'TypeError')
      assert.equal(err.cause?.code, 'LIB_MOCK_ERR_MOCK_NOT_MATCHED')
      return true
    })
  })

  it('rejects fetch with the cause given to replyWithError', async (t) => {
    const agent = offline(t)
    const boom = new Error('connection reset')
    agent.get(ORIGIN).intercept({ path: '/' }).replyWithError(boom)
    await assert.rejects(fetch(`${ORIGIN}/`, { dispatcher: agent }), (err: Error & { cause?: unknown }) => err.cause === boom)
  })

  it('stops a delayed mocked fetch when its signal aborts', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/slow' }).reply(200, 'late').delay(60_000)
    const ac = new AbortController()
    const pending = fetch(`${ORIGIN}/slow`, { dispatcher: agent, signal: ac.signal })
    await new Promise((resolve) => setImmediate(resolve))
    ac.abort()
    await assert.rejects(pending, { name: 'AbortError' })
  })

  it('stops a delayed mocked error when the signal aborts first, rejecting with the abort', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/slow-error' }).replyWithError(new Error('never seen')).delay(60_000)
    const ac = new AbortController()
    const pending = fetch(`${ORIGIN}/slow-error`, { dispatcher: agent, signal: ac.signal })
    await new Promise((resolve) => setImmediate(resolve))
    ac.abort()
    await assert.rejects(pending, { name: 'AbortError' })
  })

  it('stops pulling a streamed reply while its fetch body is unread, and ends it when the body is cancelled', async (t) => {
    const agent = offline(t)
    const total = 400
    let produced = 0
    let finished = false
    const chunk = Buffer.alloc(16 * 1024, 120)
    agent.get(ORIGIN).intercept({ path: '/big' }).reply(200, (async function * () {
      try {
        for (; produced < total; produced++) yield chunk
      } finally {
        finished = true
      }
    })())
    const res = await fetch(`${ORIGIN}/big`, { dispatcher: agent })
    const reader = res.body!.getReader()
    assert.equal((await reader.read()).value?.length, chunk.length)
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.ok(produced < total / 4, `the reply ran ahead of the reader: ${produced} of ${total} chunks produced`)
    await reader.cancel()
    for (let i = 0; i < 100 && !finished; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.equal(finished, true)
    assert.ok(produced < total)
  })
})



interface Received { url: string, headers: IncomingHttpHeaders, body: string }

/** A real server answering `real <path>`, keeping each request with its body. */
async function realServer (t: { after: (fn: () => unknown) => void }): Promise<TestServer & { received: Received[] }> {
  const received: Received[] = []
  const server = await startHttpServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    received.push({ url: req.url ?? '', headers: req.headers, body })
    res.end(`real ${req.url}`)
  })
  t.after(() => server.close())
  return Object.assign(server, { received })
}

async function text (url: string, dispatcher: MockAgent | MockPool | MockClient): Promise<string> {
  return await (await fetch(url, { dispatcher })).text()
}

describe('MockAgent network access under fetch', () => {
  it('passes unmatched fetches through only to the host:port a string matcher enables', async (t) => {
    const allowed = await realServer(t)
    const refused = await realServer(t)
    const agent = offline(t)
    agent.enableNetConnect(`127.0.0.1:${allowed.port}`)
    assert.equal(await text(`${allowed.origin}/pass?x=1`, agent), 'real /pass?x=1')
    assert.equal(allowed.received[0]!.headers['user-agent'], 'conduit')
    await assert.rejects(fetch(`${refused.origin}/no`, { dispatcher: agent }), notMatched(new RegExp(`net connect is not enabled for host 127\\.0\\.0\\.1:${refused.port}`)))
    assert.equal(refused.received.length, 0)
  })

  it('passes through hosts a RegExp or a predicate enables, and the matchers add up', async (t) => {
    const first = await realServer(t)
    const second = await realServer(t)
    const third = await realServer(t)
    const agent = offline(t)
    const asked: string[] = []
    agent.enableNetConnect(new RegExp(`^127\\.0\\.0\\.1:${first.port}$`))
    agent.enableNetConnect((host: string) => { asked.push(host); return host.endsWith(`:${second.port}`) })
    assert.equal(await text(`${first.origin}/r`, agent), 'real /r')
    assert.equal(await text(`${second.origin}/f`, agent), 'real /f')
    await assert.rejects(fetch(`${third.origin}/x`, { dispatcher: agent }), notMatched())
    assert.deepEqual(asked, [`127.0.0.1:${second.port}`, `127.0.0.1:${third.port}`])
    assert.equal(third.received.length, 0)
    agent.enableNetConnect()
    assert.equal(await text(`${third.origin}/x`, agent), 'real /x')
  })

  it('answers matched fetches from the mock and passes the rest, with their bodies, to the server', async (t) => {
    const server = await realServer(t)
    const agent = offline(t)
    agent.enableNetConnect(`127.0.0.1:${server.port}`)
    agent.get(server.origin).intercept({ path: '/up', method: 'POST', body: 'mocked body' }).reply(200, 'from mock').persist()
    const post = async (body: BodyInit): Promise<string> => await (await fetch(`${server.origin}/up`, { dispatcher: agent, method: 'POST', body, duplex: 'half' })).text()
    assert.equal(await post('mocked body'), 'from mock')
    assert.equal(await post('bytes body'), 'real /up')
    const stream = new ReadableStream<Uint8Array>({
      start (controller) {
        controller.enqueue(new TextEncoder().encode('streamed '))
        controller.enqueue(new TextEncoder().encode('body'))
        controller.close()
      }
    })
    assert.equal(await post(stream), 'real /up')
    assert.deepEqual(server.received.map((r) => r.body), ['bytes body', 'streamed body'])
  })

  it('sends every fetch to the server while deactivated and to the mock again after activate()', async (t) => {
    const server = await realServer(t)
    const agent = offline(t)
    agent.get(server.origin).intercept({ path: '/toggle' }).reply(200, 'mocked').persist()
    agent.deactivate()
    assert.equal(agent.isMockActive, false)
    assert.equal(await text(`${server.origin}/toggle`, agent), 'real /toggle')
    agent.activate()
    assert.equal(agent.isMockActive, true)
    assert.equal(await text(`${server.origin}/toggle`, agent), 'mocked')
    assert.equal(server.received.length, 1)
  })
})

describe('MockAgent routing under fetch', () => {
  it('serves every origin a RegExp get() matches, and refuses the others', async (t) => {
    const agent = offline(t)
    const local = /^http:\/\/127\.0\.0\.1:39\d\d$/
    agent.get(local).intercept({ path: '/r' }).reply(200, 'regexp').times(2)
    assert.equal(await text('http://127.0.0.1:3901/r', agent), 'regexp')
    assert.equal(await text('http://127.0.0.1:3902/r', agent), 'regexp')
    assert.equal(agent.get(local), agent.get(local))
    agent.get(local).intercept({ path: '/r' }).reply(200, 'again')
    await assert.rejects(fetch('http://127.0.0.1:4000/r', { dispatcher: agent }), notMatched())
    assert.equal(await text('http://127.0.0.1:3903/r', agent), 'again')
    agent.assertNoPendingInterceptors()
  })

  it('asks a function get() with the normalised origin of each fetch', async (t) => {
    const agent = offline(t)
    const asked: string[] = []
    agent.get((origin: string) => { asked.push(origin); return origin.endsWith(':3997') }).intercept({ path: '/f' }).reply(200, 'function').persist()
    assert.equal(await text('http://127.0.0.1:3997/f', agent), 'function')
    assert.equal(await text('HTTP://127.0.0.1:3997/f', agent), 'function')
    await assert.rejects(fetch('http://127.0.0.1:3996/f', { dispatcher: agent }), notMatched())
    assert.deepEqual(asked, ['http://127.0.0.1:3997', 'http://127.0.0.1:3997', 'http://127.0.0.1:3996'])
  })

  it('keeps interceptors registered on an exact origin to that origin, asking them before the RegExp ones', async (t) => {
    const agent = offline(t)
    const local = /^http:\/\/127\.0\.0\.1:/
    agent.get(local).intercept({ path: '/shared' }).reply(200, 'from regexp').persist()
    assert.equal(await text('http://127.0.0.1:3901/shared', agent), 'from regexp')
    const exact = agent.get('http://127.0.0.1:3901')
    exact.intercept({ path: '/own' }).reply(200, 'only 3901').persist()
    exact.intercept({ path: '/shared' }).reply(200, 'exact first')
    assert.deepEqual(agent.pendingInterceptors().map((p) => [p.origin, p.path]), [['http://127.0.0.1:3901', '/own'], ['http://127.0.0.1:3901', '/shared']])
    assert.equal(await text('http://127.0.0.1:3901/own', agent), 'only 3901')
    await assert.rejects(fetch('http://127.0.0.1:3902/own', { dispatcher: agent }), notMatched(/1 interceptor\(s\) remaining out of 1 defined/))
    assert.equal(await text('http://127.0.0.1:3901/shared', agent), 'exact first')
    assert.equal(await text('http://127.0.0.1:3901/shared', agent), 'from regexp')
    exact.cleanMocks()
    assert.equal(await text('http://127.0.0.1:3902/shared', agent), 'from regexp')
  })

  it('fails the fetch, not the caller, when a get() predicate throws', async (t) => {
    const agent = offline(t)
    const boom = new Error('predicate failed')
    agent.get(() => { throw boom })
    await assert.rejects(fetch(`${ORIGIN}/`, { dispatcher: agent }), (err: FetchFailure) => err.name === 'TypeError' && err.cause === boom)
  })

  it('treats a trailing slash as absent with ignoreTrailingSlash on the agent, keeping the query', async (t) => {
    const agent = offline(t, { ignoreTrailingSlash: true })
    agent.get(ORIGIN).intercept({ path: '/a' }).reply(200, 'no slash').persist()
    agent.get(ORIGIN).intercept({ path: '/q/', query: { k: 'v' } }).reply(200, 'with query').persist()
    assert.equal(await text(`${ORIGIN}/a/`, agent), 'no slash')
    assert.equal(await text(`${ORIGIN}/a`, agent), 'no slash')
    assert.equal(await text(`${ORIGIN}/q?k=v`, agent), 'with query')
    await assert.rejects(fetch(`${ORIGIN}/q/?k=other`, { dispatcher: agent }), notMatched())
  })

  it('honours ignoreTrailingSlash per interceptor and matches slashes exactly without it', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/loose', ignoreTrailingSlash: true }).reply(200, 'loose').persist()
    agent.get(ORIGIN).intercept({ path: '/strict' }).reply(200, 'strict').persist()
    assert.equal(await text(`${ORIGIN}/loose/`, agent), 'loose')
    assert.equal(await text(`${ORIGIN}/strict`, agent), 'strict')
    await assert.rejects(fetch(`${ORIGIN}/strict/`, { dispatcher: agent }), notMatched(/path '\/strict\/'/))
  })

  it('matches a fetch URL without its fragment and with its query in any order', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/page', query: { b: '2', a: '1' } }).reply(200, 'found')
    assert.equal(await text(`${ORIGIN}/page?a=1&b=2#section`, agent), 'found')
  })
})

describe('MockPool and MockClient as fetch dispatchers', () => {
  it('answers fetch through a MockPool built directly, and passes unmatched fetches to the agent', async (t) => {
    const server = await realServer(t)
    const agent = new MockAgent()
    t.after(() => agent.close())
    const pool = new MockPool(server.origin, { agent })
    t.after(() => pool.close())
    pool.intercept({ path: '/mock' }).reply(200, 'pool').times(2)
    assert.equal(await text(`${server.origin}/mock`, pool), 'pool')
    assert.equal(await text(`${server.origin}/mock`, pool), 'pool')
    assert.equal(await text(`${server.origin}/mock`, pool), 'real /mock')
    agent.disableNetConnect()
    await assert.rejects(fetch(`${server.origin}/mock`, { dispatcher: pool }), notMatched(/net connect is disabled/))
    assert.equal(server.received.length, 1)
  })

  it('answers fetch through the MockClient of a single-connection agent and one built directly', async (t) => {
    const agent = offline(t, { connections: 1 })
    const client = agent.get(ORIGIN)
    assert.ok(client instanceof MockClient)
    client.intercept({ path: '/c', method: 'DELETE' }).reply(202, { deleted: true })
    const res = await fetch(`${ORIGIN}/c`, { dispatcher: client, method: 'DELETE' })
    assert.equal(res.status, 202)
    assert.deepEqual(await res.json(), { deleted: true })
    const direct = new MockClient(ORIGIN, { agent })
    t.after(() => direct.close())
    direct.intercept({ path: '/d' }).reply(200, Buffer.from('direct client'))
    assert.equal(await text(`${ORIGIN}/d`, direct), 'direct client')
    agent.assertNoPendingInterceptors()
  })

  it('rejects fetch with LIB_ERR_DESTROYED through a closed MockPool, and a fresh pool serves again', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/' }).reply(200, 'old').persist()
    await pool.close()
    await assert.rejects(fetch(`${ORIGIN}/`, { dispatcher: pool }), (err: FetchFailure) => err.cause?.code === 'LIB_ERR_DESTROYED')
    const fresh = agent.get(ORIGIN)
    assert.notEqual(fresh, pool)
    fresh.intercept({ path: '/' }).reply(200, 'new')
    assert.equal(await text(`${ORIGIN}/`, agent), 'new')
  })
})
