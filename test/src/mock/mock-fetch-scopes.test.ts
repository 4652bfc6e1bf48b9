import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { notMatched } from './mock-agent-helpers.js'
import type { FetchFailure } from './mock-agent-helpers.js'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import type { MockRequestOptions } from '../../../src/mock/mock-scope.js'
import { DecoratorHandler } from '../../../src/handler.js'
import type { DispatchController, IncomingHeaders } from '../../../src/handler.js'
import { fetch } from '../../../src/fetch/fetch.js'
import type { RequestInit } from '../../../src/fetch/request-state.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'

const ORIGIN = 'http://127.0.0.1:3999'


function offline (t: { after: (fn: () => unknown) => void }, opts: ConstructorParameters<typeof MockAgent>[0] = {}): MockAgent {
  const agent = new MockAgent(opts)
  agent.disableNetConnect()
  t.after(() => agent.close())
  return agent
}


async function fetchText (url: string, dispatcher: Dispatcher, init: RequestInit = {}): Promise<string> {
  const res = await fetch(url, { ...init, dispatcher })
  return await res.text()
}

describe('MockAgent scopes under fetch', () => {
  it('answers once by default and then rejects with MockNotMatchedError', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/once' }).reply(200, 'first')
    assert.equal(await fetchText(`${ORIGIN}/once`, agent), 'first')
    await assert.rejects(fetch(`${ORIGIN}/once`, { dispatcher: agent }), notMatched(/0 interceptor\(s\) remaining out of 1 defined/))
  })

  it('answers exactly n fetches with times(n), then hands over to the next interceptor', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/n' }).reply(200, 'repeated').times(3)
    pool.intercept({ path: '/n' }).reply(200, 'after')
    const bodies: string[] = []
    for (let i = 0; i < 4; i++) bodies.push(await fetchText(`${ORIGIN}/n`, agent))
    assert.deepEqual(bodies, ['repeated', 'repeated', 'repeated', 'after'])
    await assert.rejects(fetch(`${ORIGIN}/n`, { dispatcher: agent }), notMatched())
    agent.assertNoPendingInterceptors()
  })

  it('answers every fetch with persist(), with a fresh stream each time when the body is a function', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/always' }).reply(200, 'same').persist()
    pool.intercept({ path: '/stream' }).reply(200, () => Readable.from(['a', 'b', 'c'])).persist()
    for (let i = 0; i < 5; i++) assert.equal(await fetchText(`${ORIGIN}/always`, agent), 'same')
    for (let i = 0; i < 3; i++) assert.equal(await fetchText(`${ORIGIN}/stream`, agent), 'abc')
    assert.deepEqual(agent.pendingInterceptors(), [])
  })

  it('holds a delayed reply and a delayed mocked error until delay(ms) has passed on the timer', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const agent = offline(t)
    const boom = new Error('slow failure')
    agent.get(ORIGIN).intercept({ path: '/ok' }).reply(200, 'late').delay(500)
    agent.get(ORIGIN).intercept({ path: '/fail' }).replyWithError(boom).delay(500)
    const settled: string[] = []
    const ok = fetch(`${ORIGIN}/ok`, { dispatcher: agent }).then((res) => { settled.push('ok'); return res })
    const failed = fetch(`${ORIGIN}/fail`, { dispatcher: agent }).then(
      () => assert.fail('a mocked error must reject the fetch'),
      (err: FetchFailure) => { settled.push('fail'); return err }
    )
    await new Promise((resolve) => setImmediate(resolve))
    t.mock.timers.tick(499)
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(settled, [])
    t.mock.timers.tick(1)
    assert.equal(await (await ok).text(), 'late')
    const err = await failed
    assert.equal(err.name, 'TypeError')
    assert.equal(err.cause, boom)
  })

  it('answers concurrent fetches from a times(n) interceptor without over-serving', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/c' }).reply(200, 'ok').times(2)
    const results = await Promise.allSettled([1, 2, 3].map(() => fetchText(`${ORIGIN}/c`, agent)))
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'fulfilled', 'rejected'])
  })

  it('lists in pendingInterceptors() what fetch has not used up yet, with origin and counters', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/used', method: 'POST' }).reply(201, 'made')
    pool.intercept({ path: '/partly' }).reply(200, 'x').times(3)
    pool.intercept({ path: '/never' }).reply(200, 'x').persist()
    pool.intercept({ path: '/broken' }).replyWithError(new Error('down'))
    await fetchText(`${ORIGIN}/used`, agent, { method: 'POST', body: 'b' })
    await fetchText(`${ORIGIN}/partly`, agent)
    const pending = agent.pendingInterceptors()
    assert.deepEqual(pending.map((p) => [p.origin, p.method, p.path, p.timesInvoked, p.times, p.persist, p.statusCode]), [
      [ORIGIN, 'GET', '/partly', 1, 3, false, 200],
      [ORIGIN, 'GET', '/never', 0, 1, true, 200],
      [ORIGIN, 'GET', '/broken', 0, 1, false, undefined]
    ])
    assert.equal(pending[2]!.error?.message, 'down')
    assert.throws(() => agent.assertNoPendingInterceptors(), { code: 'LIB_ERR', message: /^3 interceptors are pending:[\s\S]*\/partly[\s\S]*\/never[\s\S]*\/broken/ })
  })
})

describe('MockAgent reply callbacks under fetch', () => {
  it('gives the data callback the fetch request: method, path with query, lower-case headers and body text', async (t) => {
    const agent = offline(t)
    let seen: MockRequestOptions | undefined
    agent.get(ORIGIN).intercept({ path: '/echo?b=2&a=1', method: 'PUT' }).reply(200, (opts: MockRequestOptions) => {
      seen = opts
      return { got: opts.body }
    })
    const res = await fetch(`${ORIGIN}/echo?a=1&b=2`, {
      dispatcher: agent,
      method: 'PUT',
      headers: { 'X-Trace': 'abc', 'Content-Type': 'application/json' },
      body: JSON.stringify({ n: 1 })
    })
    assert.deepEqual(await res.json(), { got: '{"n":1}' })
    assert.equal(seen!.method, 'PUT')
    assert.equal(seen!.origin, ORIGIN)
    assert.equal(seen!.path, '/echo?a=1&b=2')
    assert.equal(seen!.headers['x-trace'], 'abc')
    assert.equal(seen!.headers['content-type'], 'application/json')
    assert.equal(seen!.headers['user-agent'], 'conduit')
  })

  it('waits for a data callback that returns a promise', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/later' }).reply(200, async () => await Promise.resolve(Buffer.from('resolved')))
    assert.equal(await fetchText(`${ORIGIN}/later`, agent), 'resolved')
  })

  it('builds status, body and headers from the options callback, per request', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/made', method: 'POST' }).reply((opts) => ({
      statusCode: opts.body === 'create' ? 201 : 400,
      data: { body: opts.body },
      responseOptions: { headers: { 'X-Made': 'yes', Location: '/made/1' } }
    })).times(2)
    const created = await fetch(`${ORIGIN}/made`, { dispatcher: agent, method: 'POST', body: 'create' })
    assert.equal(created.status, 201)
    assert.equal(created.statusText, 'Created')
    assert.equal(created.headers.get('x-made'), 'yes')
    assert.equal(created.headers.get('location'), '/made/1')
    assert.deepEqual(await created.json(), { body: 'create' })
    const refused = await fetch(`${ORIGIN}/made`, { dispatcher: agent, method: 'POST', body: 'other' })
    assert.equal(refused.status, 400)
    assert.equal(refused.ok, false)
  })

  it('answers an options callback without data with an empty body', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/empty' }).reply(() => ({ statusCode: 204 }))
    const res = await fetch(`${ORIGIN}/empty`, { dispatcher: agent })
    assert.equal(res.status, 204)
    assert.equal(res.body, null)
  })

  it('rejects fetch, caused by the callback error, when a reply callback throws', async (t) => {
    const agent = offline(t)
    const boom = new Error('callback failed')
    agent.get(ORIGIN).intercept({ path: '/opts' }).reply(() => { throw boom })
    agent.get(ORIGIN).intercept({ path: '/data' }).reply(200, () => { throw boom })
    agent.get(ORIGIN).intercept({ path: '/async' }).reply(200, async () => { throw boom })
    for (const path of ['/opts', '/data', '/async']) {
      await assert.rejects(fetch(`${ORIGIN}${path}`, { dispatcher: agent }), (err: FetchFailure) => err.name === 'TypeError' && err.cause === boom)
    }
  })

  it('rejects fetch with an InvalidArgumentError cause when the options callback returns a bad reply', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/null' }).reply(() => null as never)
    agent.get(ORIGIN).intercept({ path: '/status' }).reply(() => ({ statusCode: 42 }))
    agent.get(ORIGIN).intercept({ path: '/options' }).reply(() => ({ statusCode: 200, responseOptions: 'x' as never }))
    const expected: Array<[string, RegExp]> = [['/null', /got null/], ['/status', /statusCode .* got 42/], ['/options', /responseOptions must be an object, got "/]]
    for (const [path, message] of expected) {
      await assert.rejects(fetch(`${ORIGIN}${path}`, { dispatcher: agent }), (err: FetchFailure) => {
        assert.equal(err.cause?.code, 'LIB_ERR_INVALID_ARG')
        assert.match(err.cause.message, message)
        return true
      })
    }
  })
})

describe('MockAgent reply headers and trailers under fetch', () => {
  it('sends defaultReplyHeaders with every reply, letting the reply override them', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/h' })
      .defaultReplyHeaders({ 'Content-Type': 'application/json', 'X-Default': 'd', 'set-cookie': ['a=1', 'b=2'] })
      .reply(200, { ok: true }, { headers: { 'x-default': 'overridden', 'x-own': 1 } })
    const res = await fetch(`${ORIGIN}/h`, { dispatcher: agent })
    assert.equal(res.headers.get('content-type'), 'application/json')
    assert.equal(res.headers.get('x-default'), 'overridden')
    assert.equal(res.headers.get('x-own'), '1')
    assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2'])
    assert.deepEqual(await res.json(), { ok: true })
  })

  it('applies defaultReplyHeaders to an options-callback reply too', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/cb' })
      .defaultReplyHeaders({ 'x-default': 'd', 'x-both': 'default' })
      .reply(() => ({ statusCode: 200, data: 'cb', responseOptions: { headers: { 'x-both': 'callback' } } }))
    const res = await fetch(`${ORIGIN}/cb`, { dispatcher: agent })
    assert.equal(res.headers.get('x-default'), 'd')
    assert.equal(res.headers.get('x-both'), 'callback')
    assert.equal(await res.text(), 'cb')
  })

  it('delivers defaultReplyTrailers and reply trailers at the end of a fetch that completes normally', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/t' })
      .defaultReplyTrailers({ 'x-checksum': 'default', 'x-kept': 'k' })
      .reply(200, 'with trailers', { trailers: { 'X-Checksum': 'abc' } })
    const trailers: IncomingHeaders[] = []
    class Observer extends DecoratorHandler {
      override onResponseEnd (controller: DispatchController, t: IncomingHeaders): void {
        trailers.push(t)
        super.onResponseEnd(controller, t)
      }
    }
    const observed = agent.compose((dispatch) => (opts, handler) => dispatch(opts, new Observer(handler)))
    const res = await fetch(`${ORIGIN}/t`, { dispatcher: observed })
    assert.equal(await res.text(), 'with trailers')
    assert.deepEqual(trailers, [{ 'x-checksum': 'abc', 'x-kept': 'k' }])
  })

  it('adds a content-length matching the body bytes with replyContentLength', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/text' }).replyContentLength().reply(200, 'héllo')
    pool.intercept({ path: '/json' }).replyContentLength().reply(200, { a: 'é' })
    pool.intercept({ path: '/empty' }).replyContentLength().reply(200)
    pool.intercept({ path: '/own' }).replyContentLength().reply(200, 'abc', { headers: { 'content-length': '3' } })
    pool.intercept({ path: '/none' }).reply(200, 'abc')
    const lengths: Array<string | null> = []
    for (const path of ['/text', '/json', '/empty', '/own', '/none']) {
      const res = await fetch(`${ORIGIN}${path}`, { dispatcher: agent })
      const bytes = new Uint8Array(await res.arrayBuffer())
      const length = res.headers.get('content-length')
      if (length !== null) assert.equal(Number(length), bytes.length)
      lengths.push(length)
    }
    assert.deepEqual(lengths, ['6', '10', '0', '3', null])
  })

  it('decodes a mocked gzip body whose content-length counts the compressed bytes', async (t) => {
    const agent = offline(t)
    const zipped = gzipSync('compressed text')
    agent.get(ORIGIN).intercept({ path: '/gz' }).replyContentLength().reply(200, zipped, { headers: { 'content-encoding': 'gzip' } })
    const res = await fetch(`${ORIGIN}/gz`, { dispatcher: agent })
    assert.equal(res.headers.get('content-length'), String(zipped.length))
    assert.equal(await res.text(), 'compressed text')
  })

  it('follows a mocked redirect from the location reply header to another mocked origin', async (t) => {
    const agent = offline(t)
    const other = 'http://127.0.0.1:3998'
    agent.get(ORIGIN).intercept({ path: '/old' }).reply(302, '', { headers: { location: `${other}/new` } })
    agent.get(other).intercept({ path: '/new' }).reply(200, 'moved here')
    const res = await fetch(`${ORIGIN}/old`, { dispatcher: agent })
    assert.equal(res.redirected, true)
    assert.equal(res.url, `${other}/new`)
    assert.equal(await res.text(), 'moved here')
  })
})

describe('MockAgent reply bodies under fetch', () => {
  const payload = [0, 1, 127, 128, 255]

  it('reads text, Buffer, Uint8Array views and ArrayBuffer replies byte for byte', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    const backing = new Uint8Array([9, ...payload, 9])
    pool.intercept({ path: '/string' }).reply(200, 'plain ✓')
    pool.intercept({ path: '/buffer' }).reply(200, Buffer.from(payload))
    pool.intercept({ path: '/view' }).reply(200, backing.subarray(1, 1 + payload.length))
    pool.intercept({ path: '/arraybuffer' }).reply(200, new Uint8Array(payload).buffer)
    assert.equal(await fetchText(`${ORIGIN}/string`, agent), 'plain ✓')
    for (const path of ['/buffer', '/view', '/arraybuffer']) {
      const res = await fetch(`${ORIGIN}${path}`, { dispatcher: agent })
      assert.deepEqual([...new Uint8Array(await res.arrayBuffer())], payload, path)
    }
  })

  it('sends objects, arrays and numbers as JSON that json() parses', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/object' }).reply(200, { nested: { list: [1, 'two', null] } })
    pool.intercept({ path: '/array' }).reply(200, [{ id: 1 }, { id: 2 }])
    pool.intercept({ path: '/number' }).reply(200, 42)
    assert.deepEqual(await (await fetch(`${ORIGIN}/object`, { dispatcher: agent })).json(), { nested: { list: [1, 'two', null] } })
    assert.deepEqual(await (await fetch(`${ORIGIN}/array`, { dispatcher: agent })).json(), [{ id: 1 }, { id: 2 }])
    assert.equal(await (await fetch(`${ORIGIN}/number`, { dispatcher: agent })).json(), 42)
  })

  it('reads one reply through text(), json(), bytes(), arrayBuffer() and blob() alike', async (t) => {
    const agent = offline(t)
    agent.get(ORIGIN).intercept({ path: '/same' }).reply(200, { k: 'v' }, { headers: { 'content-type': 'application/json' } }).persist()
    const get = async () => await fetch(`${ORIGIN}/same`, { dispatcher: agent })
    const expected = [...Buffer.from('{"k":"v"}')]
    assert.equal(await (await get()).text(), '{"k":"v"}')
    assert.deepEqual(await (await get()).json(), { k: 'v' })
    assert.deepEqual([...await (await get()).bytes()], expected)
    assert.deepEqual([...new Uint8Array(await (await get()).arrayBuffer())], expected)
    const blob = await (await get()).blob()
    assert.equal(blob.type, 'application/json')
    assert.deepEqual([...new Uint8Array(await blob.arrayBuffer())], expected)
  })

  it('streams Readable, async generator and web stream replies chunk by chunk into the body', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/readable' }).reply(200, Readable.from([Buffer.from('re'), 'ad', new Uint8Array([33])]))
    pool.intercept({ path: '/generator' }).reply(200, (async function * () { yield 'gen'; yield Buffer.from('erated') })())
    pool.intercept({ path: '/web' }).reply(200, new ReadableStream<Uint8Array>({
      start (controller) {
        controller.enqueue(new TextEncoder().encode('web '))
        controller.enqueue(new TextEncoder().encode('stream'))
        controller.close()
      }
    }))
    assert.equal(await fetchText(`${ORIGIN}/readable`, agent), 'read!')
    assert.equal(await fetchText(`${ORIGIN}/generator`, agent), 'generated')
    const reader = (await fetch(`${ORIGIN}/web`, { dispatcher: agent })).body!.getReader()
    let text = ''
    for (let r = await reader.read(); r.done !== true; r = await reader.read()) text += new TextDecoder().decode(r.value)
    assert.equal(text, 'web stream')
  })

  it('answers an empty string, undefined or null body with an empty but present body', async (t) => {
    const agent = offline(t)
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/string' }).reply(200, '')
    pool.intercept({ path: '/undefined' }).reply(200)
    pool.intercept({ path: '/null' }).reply(200, null)
    for (const path of ['/string', '/undefined', '/null']) {
      const res = await fetch(`${ORIGIN}${path}`, { dispatcher: agent })
      assert.equal(res.status, 200)
      assert.equal((await res.bytes()).length, 0, path)
    }
  })

  it('rejects the body read, not the fetch, when a streamed reply fails mid-body', async (t) => {
    const agent = offline(t)
    const boom = new Error('stream broke')
    agent.get(ORIGIN).intercept({ path: '/broken' }).reply(200, (async function * () { yield 'partial'; throw boom })())
    const res = await fetch(`${ORIGIN}/broken`, { dispatcher: agent })
    assert.equal(res.status, 200)
    await assert.rejects(res.text(), (err: FetchFailure) => err.name === 'TypeError' && err.cause === boom)
  })
})
