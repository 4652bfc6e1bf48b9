import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { DispatchHandler, DispatchOptions } from '../../../src/handler.js'
import { ORIGIN, offline, req } from './mock-agent-helpers.js'

/** Dispatches through `agent` with a handler that records the hooks it sees, including the older onBodySent. */
function dispatchRecorded (agent: ReturnType<typeof offline>, opts: { path: string, method: string, body?: DispatchOptions['body'] }): Promise<{ events: string[], sent: Array<string | Uint8Array> }> {
  return new Promise((resolve, reject) => {
    const events: string[] = []
    const sent: Array<string | Uint8Array> = []
    const handler: DispatchHandler & { onBodySent (chunk: string | Uint8Array): void, onRequestSent (): void } = {
      onRequestStart: () => { events.push('start') },
      onBodySent: (chunk) => { events.push('bodySent'); sent.push(chunk) },
      onRequestSent: () => { events.push('requestSent') },
      onResponseStart: () => { events.push('response') },
      onResponseData: () => { events.push('data') },
      onResponseEnd: () => { events.push('end'); resolve({ events, sent }) },
      onResponseError: (_controller, err) => reject(err)
    }
    agent.dispatch({ origin: ORIGIN, ...opts }, handler)
  })
}

describe('MockAgent replies', () => {
  it('waits for an async reply callback and uses what it resolves to', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/a', method: 'POST' }).reply(async (opts) => {
      await new Promise((resolve) => setImmediate(resolve))
      return { statusCode: 201, data: `got ${String(opts.body)}`, responseOptions: { headers: { 'x-async': 'yes' } } }
    })
    const res = await req(agent, { origin: ORIGIN, path: '/a', method: 'POST', body: 'hi' })
    assert.equal(res.statusCode, 201)
    assert.equal(res.headers['x-async'], 'yes')
    assert.equal(await res.body.text(), 'got hi')
  })

  it('fails the request when an async reply callback rejects or resolves to no object', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/rejects' }).reply(async () => { throw new Error('callback broke') })
    pool.intercept({ path: '/nothing' }).reply(async () => 42 as never)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/rejects' }), { message: 'callback broke' })
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/nothing' }), { code: 'LIB_ERR_INVALID_ARG', message: /got 42$/ })
  })

  it('sends the bytes of a DataView or any typed array reply, not their JSON', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const bytes = new Uint8Array([0, 104, 105, 0])
    agent.get(ORIGIN).intercept({ path: '/view' }).reply(200, new DataView(bytes.buffer, 1, 2))
    agent.get(ORIGIN).intercept({ path: '/u16' }).reply(200, new Uint16Array([0x6968]))
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/view' })).body.text(), 'hi')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/u16' })).body.text(), 'hi')
  })

  it('reports each request body chunk through onBodySent and then onRequestSent once, as undici 8 mocks do', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/up', method: 'POST' }).reply(200, 'ok').times(3)
    agent.get(ORIGIN).intercept({ path: '/none' }).reply(200, 'ok')
    const withText = await dispatchRecorded(agent, { path: '/up', method: 'POST', body: 'payload' })
    assert.deepEqual(withText.events, ['start', 'bodySent', 'requestSent', 'response', 'data', 'end'])
    assert.deepEqual(withText.sent, ['payload'])
    const withBytes = await dispatchRecorded(agent, { path: '/up', method: 'POST', body: Buffer.from('raw') })
    assert.equal(Buffer.from(withBytes.sent[0] as Uint8Array).toString(), 'raw')
    const streamed = await dispatchRecorded(agent, { path: '/up', method: 'POST', body: (async function * () { yield 'a'; yield 'b' })() })
    assert.deepEqual(streamed.events, ['start', 'bodySent', 'bodySent', 'requestSent', 'response', 'data', 'end'])
    assert.deepEqual(streamed.sent.map((chunk) => Buffer.from(chunk).toString()), ['a', 'b'])
    const without = await dispatchRecorded(agent, { path: '/none', method: 'GET' })
    assert.deepEqual(without.events, ['start', 'requestSent', 'response', 'data', 'end'])
  })

  it('accepts any path value at intercept() and fails only the requests it is asked to match', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    assert.doesNotThrow(() => agent.get(ORIGIN).intercept({ path: {} as never }).reply(200, 'never'))
    assert.doesNotThrow(() => agent.get(ORIGIN).intercept({ path: 42 as never }).reply(200, 'never'))
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/x' }), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED', message: /path '\/x'/ })
  })

  it('treats an absolute URL given as the path as its path and query', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: `${ORIGIN}/abs?b=2&a=1#frag` }).reply(200, 'absolute')
    const res = await req(agent, { origin: ORIGIN, path: '/abs?a=1&b=2' })
    assert.equal(await res.body.text(), 'absolute')
  })

  it("matches '' and '/' either way with ignoreTrailingSlash, and not without it", async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '', ignoreTrailingSlash: true }).reply(200, 'empty')
    pool.intercept({ path: '/', ignoreTrailingSlash: true }).reply(200, 'slash')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/' })).body.text(), 'empty')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '' })).body.text(), 'slash')
    pool.intercept({ path: '' }).reply(200, 'strict')
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/' }), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED' })
  })

  it('lists pending interceptors with the reply as data and a consumed flag', (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/static', method: 'POST', body: 'b' }).reply(200, 'x', { headers: { 'x-h': '1' }, trailers: { 't': '2' } }).times(2)
    const callback = (): { statusCode: number } => ({ statusCode: 204 })
    pool.intercept({ path: '/callback' }).reply(callback)
    const failure = new Error('down')
    pool.intercept({ path: '/error' }).replyWithError(failure)
    const [fixed, dynamic, failing] = agent.pendingInterceptors()
    assert.deepEqual(fixed!.data, { error: null, statusCode: 200, data: 'x', headers: { 'x-h': '1' }, trailers: { t: '2' } })
    assert.equal(fixed!.consumed, false)
    assert.equal(fixed!.ignoreTrailingSlash, false)
    assert.equal(dynamic!.data.error, null)
    assert.equal(typeof dynamic!.data.callback, 'function')
    assert.equal(failing!.data.error, failure)
  })
})
