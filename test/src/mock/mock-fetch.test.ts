import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { fetch } from '../../../src/fetch/fetch.js'

const ORIGIN = 'http://127.0.0.1:3999'

function offline (t: { after: (fn: () => unknown) => void }): MockAgent {
  const agent = new MockAgent({ enableCallHistory: true })
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
})
