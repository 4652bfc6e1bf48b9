import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { setupCache, freezeDate, stamp } from './cache-test-helpers.js'
import type { CacheSetup } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'
import { headConfirms } from '../../../interceptors/cache/head-freshening-handler.js'
import type { GetResult } from '../../../src/contracts/cache-store.js'

describeWithEachStore('interceptors.cache(): freshening with HEAD', (makeStore) => {
  /** A server whose answers the test changes between requests; GET bodies are 'payload'. */
  function origin (state: { etag: string, maxAge: number, revision: number, status?: number, length?: string }): http.RequestListener {
    return (req, res) => {
      stamp(res, `max-age=${state.maxAge}`)
      res.setHeader('etag', state.etag)
      res.setHeader('x-revision', String(state.revision))
      res.statusCode = state.status ?? 200
      if (req.method === 'HEAD') {
        res.setHeader('content-length', state.length ?? '7')
        res.end()
        return
      }
      res.end('payload')
    }
  }

  /** A cache in front of `origin(state)` holding the GET response of `/`. */
  async function withStoredGet (t: TestContext, state: Parameters<typeof origin>[0]): Promise<CacheSetup> {
    const store = makeStore(t)
    const setup = await setupCache(t, origin(state), { store })
    await setup.send()
    await store.settled()
    return setup
  }

  for (const type of ['shared', 'private'] as const) {
    it(`updates the stored GET response's fields and freshness from a HEAD with the same validator (${type})`, async (t) => {
      freezeDate(t)
      const state = { etag: '"a"', maxAge: 10, revision: 1 }
      const store = makeStore(t)
      const { send, count } = await setupCache(t, origin(state), { store, type })
      await send()
      await store.settled()
      t.mock.timers.tick(20_000)
      state.maxAge = 600
      state.revision = 2
      const head = await send('/', { method: 'HEAD' })
      assert.equal(head.status, 200)
      assert.equal(head.headers['x-revision'], '2')
      const get = await send()
      assert.equal(get.body, 'payload')
      assert.equal(get.headers['x-revision'], '2')
      assert.match(String(get.headers['cache-status']), /^conduit; hit; ttl=\d+$/)
      assert.equal(count(), 2)
    })
  }

  it('invalidates the stored GET response when the HEAD response carries another ETag', async (t) => {
    const state = { etag: '"a"', maxAge: 600, revision: 1 }
    const { send, count } = await withStoredGet(t, state)
    state.etag = '"b"'
    await send('/', { method: 'HEAD' })
    const get = await send()
    assert.match(String(get.headers['cache-status']), /fwd=miss/)
    assert.equal(count(), 3)
  })

  it('invalidates the stored GET response when the HEAD response gives another Content-Length', async (t) => {
    const state = { etag: '"a"', maxAge: 600, revision: 1, length: '99' }
    const { send, count } = await withStoredGet(t, state)
    await send('/', { method: 'HEAD' })
    await send()
    assert.equal(count(), 3)
  })

  it('invalidates the stored GET response when the HEAD answers with another status', async (t) => {
    const state = { etag: '"a"', maxAge: 600, revision: 1, status: 200 }
    const { send, count } = await withStoredGet(t, state)
    state.status = 404
    await send('/', { method: 'HEAD' })
    state.status = 200
    await send()
    assert.equal(count(), 3)
  })

  it('leaves the stored GET response alone when the HEAD request says no-store', async (t) => {
    const state = { etag: '"a"', maxAge: 600, revision: 1 }
    const { send, count } = await withStoredGet(t, state)
    state.etag = '"b"'
    await send('/', { method: 'HEAD', headers: { 'cache-control': 'no-store' } })
    assert.match(String((await send()).headers['cache-status']), /hit/)
    assert.equal(count(), 2)
  })

  it('leaves the stored GET response alone when the HEAD fails with a 5xx', async (t) => {
    const state = { etag: '"a"', maxAge: 600, revision: 1, status: 200 }
    const { send, count } = await withStoredGet(t, state)
    state.status = 503
    assert.equal((await send('/', { method: 'HEAD' })).status, 503)
    assert.equal((await send()).body, 'payload')
    assert.equal(count(), 2)
  })

  it('freshens through a HEAD that the cache itself stores when methods lists HEAD too', async (t) => {
    freezeDate(t)
    const state = { etag: '"a"', maxAge: 10, revision: 1 }
    const store = makeStore(t)
    const { send, count } = await setupCache(t, origin(state), { store, methods: ['GET', 'HEAD'] })
    await send()
    await store.settled()
    t.mock.timers.tick(20_000)
    state.maxAge = 600
    state.revision = 3
    await send('/', { method: 'HEAD' })
    await store.settled()
    const get = await send()
    assert.equal(get.headers['x-revision'], '3')
    assert.equal(count(), 2)
  })
})

describe('headConfirms()', () => {
  const stored: GetResult = {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'last-modified': 'Mon, 02 Jan 2023 10:00:00 GMT' },
    etag: '"a"',
    cachedAt: 0,
    staleAt: 1,
    deleteAt: 2
  }
  const body = Buffer.from('four')

  it('confirms a HEAD with the same validators and length', () => {
    assert.equal(headConfirms(stored, body, 200, { etag: '"a"', 'last-modified': 'Mon, 02 Jan 2023 10:00:00 GMT', 'content-length': '4' }), true)
    assert.equal(headConfirms(stored, body, 200, { etag: '"a"' }), true)
  })

  it('refuses a HEAD without validators when the stored response has some, or with another Last-Modified', () => {
    assert.equal(headConfirms(stored, body, 200, {}), false)
    assert.equal(headConfirms(stored, body, 200, { 'last-modified': 'Tue, 03 Jan 2023 10:00:00 GMT' }), false)
  })

  it('confirms a HEAD without validators for a stored response without any, by length alone', () => {
    const plain = { ...stored, etag: undefined, headers: {} }
    assert.equal(headConfirms(plain, body, 200, { 'content-length': '4' }), true)
    assert.equal(headConfirms(plain, body, 200, { 'content-length': '5' }), false)
  })
})
