import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ScriptedDispatcher } from '../../helpers/scripted-dispatcher.js'
import { request } from '../../../src/api/request.js'
import { BodyReadable } from '../../../src/api/body-readable.js'

const opts = { origin: 'http://x', path: '/', method: 'GET' }

describe('request()', () => {
  it('resolves with status, headers, opaque, context, and trailers filled at the end', async () => {
    const d = new ScriptedDispatcher(() => ({ statusCode: 201, headers: { 'content-type': 'text/plain' }, chunks: ['he', 'llo'], trailers: { md5: 'x' } }))
    const res = await d.request({ ...opts, opaque: 'mine' })
    assert.equal(res.statusCode, 201)
    assert.equal(res.statusMessage, 'OK')
    assert.equal(res.headers['content-type'], 'text/plain')
    assert.equal(res.opaque, 'mine')
    assert.deepEqual(res.context, { scripted: true })
    assert.equal(await res.body.text(), 'hello')
    assert.deepEqual(res.trailers, { md5: 'x' })
  })

  it('defaults the method to GET', async () => {
    const d = new ScriptedDispatcher()
    await (await d.request({ origin: 'http://x', path: '/' } as never)).body.dump()
    assert.equal(d.seen[0]!.method, 'GET')
  })

  it("gives the body an async iterator on %AsyncIteratorPrototype%, as Readable's is, so what the runtime adds there (Symbol.asyncDispose) is there", async () => {
    const d = new ScriptedDispatcher(() => ({ chunks: ['a', 'b'] }))
    const res = await d.request(opts)
    const iterator = res.body[Symbol.asyncIterator]()
    const asyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function * () {}.prototype))
    assert.ok(asyncIteratorPrototype.isPrototypeOf(iterator))
    const chunks: string[] = []
    for await (const chunk of iterator) chunks.push(String(chunk))
    assert.equal(chunks.join(''), 'ab')
  })

  it('supports the callback form', async () => {
    const d = new ScriptedDispatcher(() => ({ chunks: ['{"a":1}'] }))
    const data = await new Promise<unknown>((resolve, reject) => {
      d.request(opts, (err, res) => { err ? reject(err) : res!.body.json().then(resolve, reject) })
    })
    assert.deepEqual(data, { a: 1 })
  })

  it('rejects with the dispatch error before headers', async () => {
    const d = new ScriptedDispatcher(() => ({ error: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) }))
    await assert.rejects(d.request(opts), { code: 'ECONNREFUSED' })
  })

  it('rejects at once with the signal reason when the signal is already aborted', async () => {
    const d = new ScriptedDispatcher()
    const reason = new Error('stop')
    await assert.rejects(d.request({ ...opts, signal: AbortSignal.abort(reason) }), reason)
    assert.equal(d.seen.length, 0)
  })

  it('aborts before headers when the signal fires', async () => {
    const d = new ScriptedDispatcher()
    const ac = new AbortController()
    const pending = d.request({ ...opts, signal: ac.signal })
    ac.abort()
    await assert.rejects(pending, { name: 'AbortError' })
  })

  it('errors the body when the signal fires after headers', async () => {
    const d = new ScriptedDispatcher(() => ({ chunks: [] }))
    const ac = new AbortController()
    // Answer headers only: the scripted dispatcher ends at once, so abort while the body is unread.
    const res = await d.request({ ...opts, signal: ac.signal })
    ac.abort(new Error('late'))
    assert.equal(res.body instanceof BodyReadable, true)
    assert.equal(await res.body.text(), '')
  })

  it('keeps an abort after headers for the next body read instead of crashing', async () => {
    const d = new ScriptedDispatcher(() => ({ chunks: [] }))
    d.dispatch = (o, h) => {
      const handler = h as { onRequestStart: (...a: unknown[]) => void, onResponseStart: (...a: unknown[]) => void }
      const controller = { abort () {}, pause () {}, resume () {}, aborted: false, paused: false, reason: null }
      queueMicrotask(() => { handler.onRequestStart(controller, {}); handler.onResponseStart(controller, 200, {}, 'OK') })
      return true
    }
    const ac = new AbortController()
    const res = await d.request({ ...opts, signal: ac.signal })
    const reason = new Error('late abort')
    ac.abort(reason)
    await new Promise((resolve) => setImmediate(resolve))
    await assert.rejects(res.body.text(), reason)
  })

  it('reports dispatch-time throws through the promise', async () => {
    const d = new ScriptedDispatcher()
    d.dispatch = () => { throw new TypeError('bad opts') }
    await assert.rejects(d.request(opts), { name: 'TypeError', message: 'bad opts' })
  })

  it('rejects options that are not an object, naming the type', async () => {
    const d = new ScriptedDispatcher()
    await assert.rejects(d.request(null as never), { code: 'LIB_ERR_INVALID_ARG', message: /got null/ })
  })

  it('calls onInfo for informational responses', async () => {
    const d = new ScriptedDispatcher()
    const infos: number[] = []
    const original = d.dispatch.bind(d)
    d.dispatch = (o, h) => {
      const handler = h as { onResponseStart: (...a: unknown[]) => void }
      handler.onResponseStart({} as never, 103, { link: '</a>' })
      return original(o, h)
    }
    await (await d.request({ ...opts, onInfo: ({ statusCode }) => infos.push(statusCode) })).body.dump()
    assert.deepEqual(infos, [103])
  })

  it('pauses the dispatch when the body buffer is full', async () => {
    const big = Buffer.alloc(32 * 1024, 1)
    const d = new ScriptedDispatcher(() => ({ chunks: [big, big, big] }))
    const res = await d.request({ ...opts, highWaterMark: 1024 })
    assert.equal(d.paused > 0, true)
    const bytes = await res.body.bytes()
    assert.equal(bytes.length, 3 * big.length)
  })
})

describe('BodyReadable', () => {
  async function body (chunks: string[], contentType = ''): Promise<BodyReadable> {
    const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {}
    const d = new ScriptedDispatcher(() => ({ chunks, headers }))
    return (await request(d, opts)).body
  }

  it('reads as bytes, arrayBuffer and blob', async () => {
    assert.deepEqual(Buffer.from(await (await body(['ab', 'c'])).bytes()), Buffer.from('abc'))
    assert.equal(Buffer.from(await (await body(['xyz'])).arrayBuffer()).toString(), 'xyz')
    const blob = await (await body(['<p/>'], 'text/html')).blob()
    assert.equal(blob.type, 'text/html')
    assert.equal(await blob.text(), '<p/>')
  })

  it('throws a TypeError on a second consumption', async () => {
    const b = await body(['x'])
    assert.equal(await b.text(), 'x')
    assert.equal(b.bodyUsed, true)
    await assert.rejects(b.text(), { name: 'TypeError', message: /already been read/ })
  })

  it('rejects json() on invalid JSON with a SyntaxError', async () => {
    await assert.rejects((await body(['{nope'])).json(), { name: 'SyntaxError' })
  })

  it('dumps the rest of the body and resolves', async () => {
    const b = await body(['a', 'b'])
    await b.dump()
    assert.equal(b.bodyUsed, true)
    await b.dump()
  })

  it('destroys the body when dump passes its limit', async () => {
    const b = await body(['aaaa', 'bbbb'])
    await b.dump({ limit: 2 })
    assert.equal(b.destroyed, true)
  })

  it('rejects a negative dump limit with an error naming it', async () => {
    const b = await body(['a'])
    await assert.rejects(b.dump({ limit: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /got -1/ })
    await b.dump()
  })

  it('rejects dump with the reason of an already aborted signal', async () => {
    const b = await body(['a'])
    const reason = new Error('no')
    await assert.rejects(b.dump({ signal: AbortSignal.abort(reason) }), reason)
  })

  it('aborts the dispatch when the body is destroyed early', async () => {
    const d = new ScriptedDispatcher(() => ({ chunks: [] }))
    const res = await d.request(opts)
    res.body.destroy()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(res.body.destroyed, true)
  })
})
