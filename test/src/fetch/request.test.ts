import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Request } from '../../../src/fetch/request.js'
import { FormData } from '../../../src/fetch/form-data.js'

const URL_A = 'http://127.0.0.1:3999/a'

describe('Request', () => {
  it('defaults every field as the Fetch Standard does', () => {
    const request = new Request(URL_A)
    assert.equal(request.method, 'GET')
    assert.equal(request.url, URL_A)
    assert.equal(request.mode, 'cors')
    assert.equal(request.credentials, 'same-origin')
    assert.equal(request.cache, 'default')
    assert.equal(request.redirect, 'follow')
    assert.equal(request.referrer, 'about:client')
    assert.equal(request.referrerPolicy, '')
    assert.equal(request.integrity, '')
    assert.equal(request.keepalive, false)
    assert.equal(request.destination, '')
    assert.equal(request.duplex, 'half')
    assert.equal(request.isReloadNavigation, false)
    assert.equal(request.isHistoryNavigation, false)
    assert.equal(request.body, null)
    assert.equal(request.signal.aborted, false)
  })

  it('upper-cases the methods the standard lists and keeps others, PATCH included, as given', () => {
    assert.equal(new Request(URL_A, { method: 'post' }).method, 'POST')
    assert.equal(new Request(URL_A, { method: 'patch' }).method, 'patch')
    assert.equal(new Request(URL_A, { method: 'Purge' }).method, 'Purge')
  })

  it('throws a TypeError naming a bad enum value of any RequestInit field', () => {
    const cases: Array<[string, object]> = [
      ['cache', { cache: 'sometimes' }],
      ['credentials', { credentials: 'all' }],
      ['mode', { mode: 'open' }],
      ['redirect', { redirect: 'maybe' }],
      ['referrerPolicy', { referrerPolicy: 'never' }],
      ['duplex', { duplex: 'full' }]
    ]
    for (const [field, init] of cases) {
      assert.throws(() => new Request(URL_A, init as never), (err: Error) =>
        err instanceof TypeError && err.message.includes(field) && err.message.includes(String(Object.values(init)[0])))
    }
  })

  it('refuses forbidden and malformed methods, navigate mode, a window and a bad signal', () => {
    assert.throws(() => new Request(URL_A, { method: 'CONNECT' }), (err: Error) => err instanceof TypeError && err.message.includes('CONNECT'))
    assert.throws(() => new Request(URL_A, { method: 'bad method' }), TypeError)
    assert.throws(() => new Request(URL_A, { mode: 'navigate' }), TypeError)
    assert.throws(() => new Request(URL_A, { window: {} as unknown as null }), TypeError)
    assert.throws(() => new Request(URL_A, { signal: {} as AbortSignal }), TypeError)
    assert.throws(() => new Request(URL_A, { mode: 'no-cors', method: 'PUT' }), TypeError)
    assert.throws(() => new Request(URL_A, { cache: 'only-if-cached' }), (err: Error) => err instanceof TypeError && err.message.includes('same-origin'))
  })

  it('reads each RequestInit member once, as a WebIDL dictionary is read', async () => {
    const reads = new Map<string, number>()
    const values: Record<string, unknown> = {
      body: 'payload', cache: 'no-store', credentials: 'omit', duplex: 'half', headers: { 'x-a': '1' }, integrity: '',
      keepalive: false, method: 'POST', mode: 'cors', redirect: 'manual', referrer: '', referrerPolicy: 'no-referrer',
      signal: new AbortController().signal, window: null
    }
    const init = {}
    for (const [name, value] of Object.entries(values)) {
      Object.defineProperty(init, name, { enumerable: true, get: () => { reads.set(name, (reads.get(name) ?? 0) + 1); return value } })
    }
    const request = new Request(URL_A, init)
    assert.deepEqual([...reads.entries()].filter(([, count]) => count !== 1), [])
    assert.equal(reads.size, Object.keys(values).length)
    assert.equal(request.method, 'POST')
    assert.equal(request.redirect, 'manual')
    assert.equal(await request.text(), 'payload')
  })

  it('refuses relative URLs and URLs with credentials', () => {
    assert.throws(() => new Request('/relative'), (err: Error) => err instanceof TypeError && err.message.includes('/relative'))
    assert.throws(() => new Request('http://user:pw@127.0.0.1/'), TypeError)
  })

  it('refuses a body on GET and HEAD', () => {
    assert.throws(() => new Request(URL_A, { body: 'x' }), (err: Error) => err instanceof TypeError && err.message.includes('GET'))
    assert.throws(() => new Request(URL_A, { method: 'HEAD', body: 'x' }), TypeError)
  })

  it("requires duplex: 'half' for a stream body", () => {
    const stream = new ReadableStream({ start (c) { c.close() } })
    assert.throws(() => new Request(URL_A, { method: 'POST', body: stream }), (err: Error) => err instanceof TypeError && err.message.includes('duplex'))
    assert.doesNotThrow(() => new Request(URL_A, { method: 'POST', body: new ReadableStream(), duplex: 'half' }))
  })

  it('sets Content-Type from the body kind unless the caller set one', async () => {
    assert.equal(new Request(URL_A, { method: 'POST', body: 'x' }).headers.get('content-type'), 'text/plain;charset=UTF-8')
    assert.equal(new Request(URL_A, { method: 'POST', body: new URLSearchParams('a=1') }).headers.get('content-type'), 'application/x-www-form-urlencoded;charset=UTF-8')
    assert.equal(new Request(URL_A, { method: 'POST', body: 'x', headers: { 'content-type': 'a/b' } }).headers.get('content-type'), 'a/b')
    const form = new FormData()
    form.append('a', '1')
    const request = new Request(URL_A, { method: 'POST', body: form })
    assert.match(request.headers.get('content-type')!, /^multipart\/form-data; boundary=/)
    const parsed = await request.formData()
    assert.equal(parsed.get('a'), '1')
  })

  it('copies a Request given as input and lets init override it, moving the body out of the input', async () => {
    const original = new Request(URL_A, { method: 'POST', body: 'payload', headers: { x: '1' } })
    const copy = new Request(original, { headers: { y: '2' } })
    assert.equal(copy.method, 'POST')
    assert.equal(copy.headers.get('y'), '2')
    assert.equal(copy.headers.has('x'), false)
    assert.equal(original.bodyUsed, true)
    assert.equal(await copy.text(), 'payload')
  })

  it("accepts the runtime's own Request as input", async () => {
    const runtime = new globalThis.Request(URL_A, { method: 'PUT', body: 'from runtime', headers: { z: '3' }, redirect: 'manual' })
    const request = new Request(runtime)
    assert.equal(request.method, 'PUT')
    assert.equal(request.redirect, 'manual')
    assert.equal(request.headers.get('z'), '3')
    assert.equal(await request.text(), 'from runtime')
  })

  it('clones with an independent body, and refuses to clone a used body', async () => {
    const request = new Request(URL_A, { method: 'POST', body: 'abc' })
    const clone = request.clone()
    assert.equal(await clone.text(), 'abc')
    assert.equal(await request.text(), 'abc')
    assert.throws(() => request.clone(), (err: Error) => err instanceof TypeError && err.message.includes('consumed'))
  })

  it('clones a streamed body by tee so both copies read every byte', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start (c) { c.enqueue(Buffer.from('one ')); c.enqueue(Buffer.from('two')); c.close() }
    })
    const request = new Request(URL_A, { method: 'POST', body: stream, duplex: 'half' })
    const clone = request.clone()
    assert.deepEqual(await Promise.all([request.text(), clone.text()]), ['one two', 'one two'])
  })

  it('follows the init signal', () => {
    const controller = new AbortController()
    const request = new Request(URL_A, { signal: controller.signal })
    controller.abort(new Error('stop'))
    assert.equal(request.signal.aborted, true)
    assert.equal((request.signal.reason as Error).message, 'stop')
  })

  it('reports referrer values as given', () => {
    assert.equal(new Request(URL_A, { referrer: '' }).referrer, '')
    assert.equal(new Request(URL_A, { referrer: 'http://127.0.0.1:2/page' }).referrer, 'http://127.0.0.1:2/page')
    assert.throws(() => new Request(URL_A, { referrer: 'not a url' }), TypeError)
  })
})
