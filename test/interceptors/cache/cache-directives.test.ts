import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setupCache, freezeDate, stamp } from './cache-test-helpers.js'

describe('interceptors.cache(): response directives', () => {
  it('does not store a response with no-store', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => { stamp(res, 'no-store, max-age=60'); res.end('x') })
    assert.match(String((await send()).headers['cache-status']), /fwd=miss; fwd-status=200$/)
    await send()
    assert.equal(count(), 2)
  })

  it('stores a no-cache response but revalidates it on every use', async (t) => {
    const { send, count, server } = await setupCache(t, (req, res) => {
      stamp(res, 'no-cache')
      res.setHeader('etag', '"e1"')
      if (req.headers['if-none-match'] === '"e1"') { res.statusCode = 304; res.end(); return }
      res.end('kept')
    })
    await send()
    const second = await send()
    const third = await send()
    assert.equal(second.body, 'kept')
    assert.equal(third.body, 'kept')
    assert.equal(count(), 3)
    assert.equal(server.requests[1].headers['if-none-match'], '"e1"')
    assert.equal(server.requests[2].headers['if-none-match'], '"e1"')
  })

  it('serves a no-cache="field" response from the cache without that field', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=60, no-cache="x-secret"')
      res.setHeader('x-secret', 's3cr3t')
      res.setHeader('x-public', 'p')
      res.end('x')
    })
    assert.equal((await send()).headers['x-secret'], 's3cr3t')
    const hit = await send()
    assert.equal(hit.headers['x-secret'], undefined)
    assert.equal(hit.headers['x-public'], 'p')
    assert.equal(count(), 1)
  })

  it('does not store private responses in a shared cache', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => { stamp(res, 'private, max-age=60'); res.end('x') })
    await send()
    await send()
    assert.equal(count(), 2)
  })

  it('stores private responses in a private cache', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => { stamp(res, 'private, max-age=60'); res.end('x') }, { type: 'private' })
    await send()
    await send()
    assert.equal(count(), 1)
  })

  it('stores a private="field" response in a shared cache without that field', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=60, private="x-user"')
      res.setHeader('x-user', 'alice')
      res.end('x')
    })
    await send()
    assert.equal((await send()).headers['x-user'], undefined)
    assert.equal(count(), 1)
  })

  it('does not store a response to a request with Authorization in a shared cache unless public, s-maxage or must-revalidate allow it', async (t) => {
    const { send, count } = await setupCache(t, (req, res) => {
      stamp(res, req.url === '/plain' ? 'max-age=60' : req.url === '/public' ? 'public, max-age=60' : req.url === '/s-maxage' ? 's-maxage=60' : 'must-revalidate, max-age=60')
      res.end(req.url)
    })
    const auth = { headers: { authorization: 'Bearer token' } }
    for (const path of ['/plain', '/public', '/s-maxage', '/must-revalidate']) {
      await send(path, auth)
      await send(path, auth)
    }
    // /plain twice, the other three once each.
    assert.equal(count(), 5)
  })

  it('stores a response to a request with Authorization in a private cache', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => { stamp(res, 'max-age=60'); res.end('x') }, { type: 'private' })
    await send('/', { headers: { authorization: 'Bearer token' } })
    await send('/', { headers: { authorization: 'Bearer token' } })
    assert.equal(count(), 1)
  })

  it('does not store a response that sets a cookie in a shared cache, but does in a private one', async (t) => {
    const handler = (_req: unknown, res: import('node:http').ServerResponse): void => { stamp(res, 'max-age=60'); res.setHeader('set-cookie', 'a=1'); res.end('x') }
    const shared = await setupCache(t, handler)
    await shared.send()
    await shared.send()
    assert.equal(shared.count(), 2)
    const own = await setupCache(t, handler, { type: 'private' })
    await own.send()
    await own.send()
    assert.equal(own.count(), 1)
  })

  it('revalidates a stale must-revalidate response even when the request accepts stale ones', async (t) => {
    freezeDate(t)
    const { send, count, server } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=10, must-revalidate')
      res.setHeader('etag', '"m"')
      if (req.headers['if-none-match'] === '"m"') { res.statusCode = 304; res.end(); return }
      res.end('x')
    })
    await send()
    t.mock.timers.tick(20_000)
    assert.equal((await send('/', { headers: { 'cache-control': 'max-stale=3600' } })).body, 'x')
    assert.equal(count(), 2)
    assert.equal(server.requests[1].headers['if-none-match'], '"m"')
  })

  it('applies proxy-revalidate in a shared cache only', async (t) => {
    freezeDate(t)
    const handler = (_req: unknown, res: import('node:http').ServerResponse): void => { stamp(res, 'max-age=10, proxy-revalidate'); res.setHeader('etag', '"p"'); res.end('x') }
    const shared = await setupCache(t, handler)
    const own = await setupCache(t, handler, { type: 'private' })
    await shared.send()
    await own.send()
    t.mock.timers.tick(20_000)
    const maxStale = { headers: { 'cache-control': 'max-stale=3600' } }
    await shared.send('/', maxStale)
    await own.send('/', maxStale)
    assert.equal(shared.count(), 2)
    assert.equal(own.count(), 1)
  })

  it('uses s-maxage over max-age in a shared cache and ignores it in a private one', async (t) => {
    freezeDate(t)
    const handler = (_req: unknown, res: import('node:http').ServerResponse): void => { stamp(res, 'max-age=10, s-maxage=100'); res.end('x') }
    const shared = await setupCache(t, handler)
    const own = await setupCache(t, handler, { type: 'private' })
    await shared.send()
    await own.send()
    t.mock.timers.tick(50_000)
    assert.match(String((await shared.send()).headers['cache-status']), /hit; ttl=(49|50)$/)
    await own.send()
    assert.equal(shared.count(), 1)
    assert.equal(own.count(), 2)
  })

  it('serves a fresh immutable response even when the request says no-cache or max-age=0', async (t) => {
    const { send, count } = await setupCache(t, (req, res) => {
      stamp(res, req.url === '/immutable' ? 'max-age=600, immutable' : 'max-age=600')
      res.setHeader('etag', '"i"')
      res.end('x')
    })
    for (const path of ['/immutable', '/mutable']) {
      await send(path)
      await send(path, { headers: { 'cache-control': 'no-cache' } })
      await send(path, { headers: { 'cache-control': 'max-age=0' } })
    }
    // /immutable: 1 request; /mutable: 1 + 2 revalidations.
    assert.equal(count(), 4)
  })

  it('computes freshness from Expires relative to Date', async (t) => {
    const now = freezeDate(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res)
      res.setHeader('expires', new Date(Date.now() + 30_000).toUTCString())
      res.end('x')
    })
    await send()
    t.mock.timers.tick(20_000)
    await send()
    assert.equal(count(), 1)
    t.mock.timers.tick(11_000)
    await send()
    assert.equal(count(), 2)
    assert.ok(Date.now() > now)
  })

  it('treats an invalid Expires as already expired', async (t) => {
    const { send, count, server } = await setupCache(t, (_req, res) => {
      stamp(res)
      res.setHeader('expires', '0')
      res.setHeader('etag', '"x"')
      res.end('x')
    })
    await send()
    await send()
    assert.equal(count(), 2)
    assert.equal(server.requests[1].headers['if-none-match'], '"x"')
  })

  it('prefers max-age over Expires', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=100')
      res.setHeader('expires', new Date(Date.now() - 1000).toUTCString())
      res.end('x')
    })
    await send()
    t.mock.timers.tick(50_000)
    await send()
    assert.equal(count(), 1)
  })

  it('gives a response with only Last-Modified a heuristic lifetime of a tenth of its age', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res)
      res.setHeader('last-modified', new Date(Date.now() - 1_000_000).toUTCString())
      res.end('x')
    })
    const first = await send()
    assert.match(String(first.headers['cache-status']), /stored/)
    t.mock.timers.tick(90_000)
    await send()
    assert.equal(count(), 1)
    t.mock.timers.tick(20_000)
    await send()
    assert.equal(count(), 2)
  })

  it('does not apply heuristic freshness to a status that is not cacheable by default', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res)
      res.statusCode = 500
      res.setHeader('last-modified', new Date(Date.now() - 1_000_000).toUTCString())
      res.end('x')
    })
    await send()
    await send()
    assert.equal(count(), 2)
  })

  it('stores an explicitly fresh 404, but never a 206', async (t) => {
    const { send, count } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=60')
      if (req.url === '/partial') { res.statusCode = 206; res.setHeader('content-range', 'bytes 0-0/10') } else res.statusCode = 404
      res.end('x')
    })
    assert.equal((await send('/missing')).status, 404)
    assert.equal((await send('/missing')).status, 404)
    await send('/partial')
    await send('/partial')
    assert.equal(count(), 3)
  })

  it('uses cacheByDefault as the lifetime of responses without explicit or heuristic freshness', async (t) => {
    const handler = (_req: unknown, res: import('node:http').ServerResponse): void => { stamp(res); res.end('x') }
    const withDefault = await setupCache(t, handler, { cacheByDefault: 60 })
    await withDefault.send()
    await withDefault.send()
    assert.equal(withDefault.count(), 1)
    const without = await setupCache(t, handler)
    await without.send()
    await without.send()
    assert.equal(without.count(), 2)
  })
})
