import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { setupCache, freezeDate, stamp } from './cache-test-helpers.js'

/** An origin that answers with `max-age=60` and an ETag, and 304 to a matching If-None-Match. */
function validating (cacheControl = 'max-age=60'): http.RequestListener {
  let n = 0
  return (req, res) => {
    stamp(res, cacheControl)
    res.setHeader('etag', '"v"')
    if (req.headers['if-none-match'] === '"v"') { res.statusCode = 304; res.end(); return }
    res.end(`body ${++n}`)
  }
}

describe('interceptors.cache(): request directives', () => {
  it('revalidates when the request says max-age=0', async (t) => {
    const { send, count, server } = await setupCache(t, validating())
    await send()
    const res = await send('/', { headers: { 'cache-control': 'max-age=0' } })
    assert.equal(res.body, 'body 1')
    assert.match(String(res.headers['cache-status']), /fwd=request; fwd-status=304/)
    assert.equal(count(), 2)
    assert.equal(server.requests[1].headers['if-none-match'], '"v"')
  })

  it('serves a response younger than the request max-age and revalidates an older one', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating())
    await send()
    t.mock.timers.tick(3000)
    await send('/', { headers: { 'cache-control': 'max-age=5' } })
    assert.equal(count(), 1)
    t.mock.timers.tick(7000)
    await send('/', { headers: { 'cache-control': 'max-age=5' } })
    assert.equal(count(), 2)
  })

  it('serves a stale response within the request max-stale, and revalidates beyond it', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating('max-age=10'))
    await send()
    t.mock.timers.tick(20_000)
    const stale = await send('/', { headers: { 'cache-control': 'max-stale=30' } })
    assert.equal(stale.body, 'body 1')
    assert.match(String(stale.headers['cache-status']), /hit; ttl=-1[01]$/)
    assert.equal(count(), 1)
    t.mock.timers.tick(30_000)
    await send('/', { headers: { 'cache-control': 'max-stale=30' } })
    assert.equal(count(), 2)
  })

  it('accepts any staleness for max-stale without a value', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating('max-age=10'))
    await send()
    t.mock.timers.tick(3_600_000)
    await send('/', { headers: { 'cache-control': 'max-stale' } })
    assert.equal(count(), 1)
  })

  it('revalidates when the response will not stay fresh for the request min-fresh', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating('max-age=60'))
    await send()
    t.mock.timers.tick(20_000)
    await send('/', { headers: { 'cache-control': 'min-fresh=30' } })
    assert.equal(count(), 1)
    t.mock.timers.tick(20_000)
    await send('/', { headers: { 'cache-control': 'min-fresh=30' } })
    assert.equal(count(), 2)
  })

  it('revalidates for a request no-cache, and for Pragma: no-cache when there is no Cache-Control', async (t) => {
    const { send, count, server } = await setupCache(t, validating())
    await send()
    await send('/', { headers: { 'cache-control': 'no-cache' } })
    await send('/', { headers: { pragma: 'no-cache' } })
    await send('/', { headers: { pragma: 'no-cache', 'cache-control': 'max-stale' } })
    assert.equal(count(), 3)
    assert.equal(server.requests[2].headers['if-none-match'], '"v"')
  })

  it('neither reads nor stores for a request no-store', async (t) => {
    const { send, count } = await setupCache(t, validating())
    const noStore = { headers: { 'cache-control': 'no-store' } }
    await send('/', noStore)
    await send('/', noStore)
    assert.equal(count(), 2)
    await send('/')
    await send('/', noStore)
    await send('/')
    assert.equal(count(), 4)
  })

  it('answers only-if-cached with a 504 on a miss, without a request, and from the cache on a hit', async (t) => {
    const { send, count } = await setupCache(t, validating())
    const onlyIfCached = { headers: { 'cache-control': 'only-if-cached' } }
    const miss = await send('/', onlyIfCached)
    assert.equal(miss.status, 504)
    assert.equal(count(), 0)
    await send('/')
    const hit = await send('/', onlyIfCached)
    assert.equal(hit.status, 200)
    assert.equal(hit.body, 'body 1')
    assert.equal(count(), 1)
  })

  it('answers only-if-cached with a 504 when the stored response is stale', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating('max-age=10'))
    await send()
    t.mock.timers.tick(20_000)
    assert.equal((await send('/', { headers: { 'cache-control': 'only-if-cached' } })).status, 504)
    assert.equal((await send('/', { headers: { 'cache-control': 'only-if-cached, max-stale=60' } })).status, 200)
    assert.equal(count(), 1)
  })
})

describe('interceptors.cache(): the cacheMode dispatch option (Fetch cache modes)', () => {
  it("'no-store' neither reads nor stores", async (t) => {
    const { send, count } = await setupCache(t, validating())
    await send('/')
    await send('/', { cacheMode: 'no-store' })
    assert.equal(count(), 2)
  })

  it("'reload' skips the stored response but stores the new one", async (t) => {
    const { send, count, server } = await setupCache(t, validating())
    await send('/')
    const reloaded = await send('/', { cacheMode: 'reload' })
    assert.equal(reloaded.body, 'body 2')
    assert.equal(server.requests[1].headers['if-none-match'], undefined)
    assert.equal((await send('/')).body, 'body 2')
    assert.equal(count(), 2)
  })

  it("'no-cache' revalidates even a fresh immutable response", async (t) => {
    const { send, count, server } = await setupCache(t, validating('max-age=600, immutable'))
    await send('/')
    assert.equal((await send('/', { cacheMode: 'no-cache' })).body, 'body 1')
    assert.equal(count(), 2)
    assert.equal(server.requests[1].headers['if-none-match'], '"v"')
  })

  it("'force-cache' serves a stale response without contacting the origin, and fetches on a miss", async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating('max-age=10, must-revalidate'))
    await send('/other', { cacheMode: 'force-cache' })
    assert.equal(count(), 1)
    await send('/')
    t.mock.timers.tick(3_600_000)
    assert.equal((await send('/', { cacheMode: 'force-cache' })).body, 'body 2')
    assert.equal(count(), 2)
  })

  it("'only-if-cached' serves a stale response and answers a miss with 504", async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, validating('max-age=10'))
    assert.equal((await send('/', { cacheMode: 'only-if-cached' })).status, 504)
    await send('/')
    t.mock.timers.tick(60_000)
    assert.equal((await send('/', { cacheMode: 'only-if-cached' })).status, 200)
    assert.equal(count(), 1)
  })

  it("'default' behaves as if no mode were given", async (t) => {
    const { send, count } = await setupCache(t, validating())
    await send('/', { cacheMode: 'default' })
    await send('/', { cacheMode: 'default' })
    assert.equal(count(), 1)
  })
})
