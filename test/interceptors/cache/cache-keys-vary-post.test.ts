import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { interceptors } from '../../../src/index.js'
import { InvalidArgumentError } from '../../../src/errors.js'
import type { CacheKey } from '../../../src/contracts/cache-store.js'
import { setupCache, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'

/** GETs answer with their URL and a counter; POSTs answer as `postHeaders` says. */
function origin (postHeaders: Record<string, string> = {}): http.RequestListener {
  let n = 0
  return (req, res) => {
    n++
    if (req.method === 'POST') {
      for (const [name, value] of Object.entries(postHeaders)) res.setHeader(name, value)
      res.end(`posted #${n}`)
      return
    }
    stamp(res, 'max-age=600')
    res.setHeader('vary', 'Accept-Encoding, Accept-Language')
    res.end(`got ${req.url} #${n}`)
  }
}

describeWithEachStore('interceptors.cache(): Vary normalization, POST responses and the cacheKey hook', (makeStore) => {
  for (const type of ['shared', 'private'] as const) {
    it(`selects a stored variant whatever the whitespace, case and order of negotiation list values (${type})`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, origin(), { store, type })
      await send('/', { headers: { 'accept-encoding': 'gzip, br', 'accept-language': 'en-US,fr;q=0.5' } })
      await store.settled()
      const hit = await send('/', { headers: { 'accept-encoding': 'BR,gzip', 'accept-language': 'fr ; q=0.5 , en-us' } })
      assert.match(String(hit.headers['cache-status']), /hit/)
      const other = await send('/', { headers: { 'accept-encoding': 'gzip', 'accept-language': 'en-US,fr;q=0.5' } })
      assert.match(String(other.headers['cache-status']), /fwd=miss/)
      assert.equal(count(), 2)
    })
  }

  for (const type of ['shared', 'private'] as const) {
    it(`stores a POST response with explicit freshness and Content-Location equal to the target for later GETs (${type})`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, origin({ 'cache-control': 'max-age=600', 'content-location': '/orders/7?x=1' }), { store, type, cachePostResponses: true })
      await send('/orders/7?x=1')
      await store.settled()
      const posted = await send('/orders/7?x=1', { method: 'POST', body: 'update' })
      assert.equal(posted.body, 'posted #2')
      await store.settled()
      const get = await send('/orders/7?x=1')
      assert.equal(get.body, 'posted #2')
      assert.match(String(get.headers['cache-status']), /hit/)
      // A POST is never answered from the cache.
      assert.equal((await send('/orders/7?x=1', { method: 'POST', body: 'again' })).body, 'posted #3')
      assert.equal(count(), 3)
    })
  }

  for (const [label, headers] of [
    ['without Content-Location', { 'cache-control': 'max-age=600' }],
    ['whose Content-Location names another URL', { 'cache-control': 'max-age=600', 'content-location': '/orders/8' }],
    ['without explicit freshness', { 'content-location': '/orders/7', 'last-modified': 'Mon, 02 Jan 2023 10:00:00 GMT' }]
  ] as const) {
    it(`does not store a POST response ${label}, and invalidates the target`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, origin(headers), { store, cachePostResponses: true })
      await send('/orders/7')
      await store.settled()
      await send('/orders/7', { method: 'POST', body: 'x' })
      const get = await send('/orders/7')
      assert.equal(get.body, 'got /orders/7 #3')
      assert.equal(count(), 3)
    })
  }

  it('does not store POST responses unless cachePostResponses is set', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, origin({ 'cache-control': 'max-age=600', 'content-location': '/p' }), { store })
    await send('/p', { method: 'POST', body: 'x' })
    await store.settled()
    assert.equal((await send('/p')).body, 'got /p #2')
    assert.equal(count(), 2)
  })

  it('stores and looks up under the key the cacheKey hook returns', async (t) => {
    const store = makeStore(t)
    const seen: CacheKey[] = []
    const cacheKey = (key: CacheKey): CacheKey => {
      seen.push(key)
      return { ...key, path: key.path.replace(/[?&]utm_[a-z]+=[^&]*/g, '') }
    }
    const { send, count } = await setupCache(t, origin(), { store, cacheKey })
    await send('/article?utm_source=mail')
    await store.settled()
    const hit = await send('/article?utm_source=feed&utm_medium=rss')
    assert.equal(hit.body, 'got /article?utm_source=mail #1')
    assert.equal(count(), 1)
    assert.equal(seen[0].path, '/article?utm_source=mail')
    assert.equal(seen[0].method, 'GET')
  })
})

describe('interceptors.cache(): bad cacheKey and cachePostResponses values', () => {
  it('refuses a cacheKey that is not a function and a cachePostResponses that is not a boolean, naming the value', () => {
    assert.throws(() => interceptors.cache({ cacheKey: 'path' as never }), (err: Error & { code?: string }) => {
      assert.ok(err instanceof InvalidArgumentError)
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.match(err.message, /cacheKey must be a function, got "path"/)
      return true
    })
    assert.throws(() => interceptors.cache({ cachePostResponses: 'yes' as never }), /cachePostResponses must be a boolean, got "yes"/)
  })

  it('fails the dispatch with an InvalidArgumentError naming what a cacheKey hook returned when it is not a key', async (t) => {
    const { dispatcher, server, count } = await setupCache(t, origin(), { cacheKey: () => ({ origin: 'x', path: 5 }) as never })
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/', method: 'GET' }), (err: Error & { code?: string }) => {
      assert.ok(err instanceof InvalidArgumentError)
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.match(err.message, /cacheKey must return an object with string origin, method and path, got/)
      return true
    })
    assert.equal(count(), 0)
  })
})
