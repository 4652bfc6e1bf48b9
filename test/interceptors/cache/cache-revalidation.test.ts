import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { AsyncTestStore } from '../../stores/async-test-store.js'
import { setupCache, freezeDate, stamp, until } from './cache-test-helpers.js'

describe('interceptors.cache(): revalidation', () => {
  it('updates the stored headers from a 304 and serves the stored body with them', async (t) => {
    freezeDate(t)
    let revision = 1
    const { send, count, server } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=10')
      res.setHeader('etag', '"same"')
      res.setHeader('x-revision', String(revision++))
      if (req.headers['if-none-match'] === '"same"') {
        res.setHeader('cache-control', 'max-age=100')
        res.statusCode = 304
        res.end()
        return
      }
      res.setHeader('content-type', 'text/plain')
      res.end('original body')
    })
    await send()
    t.mock.timers.tick(11_000)
    const revalidated = await send()
    assert.equal(revalidated.status, 200)
    assert.equal(revalidated.body, 'original body')
    assert.equal(revalidated.headers['x-revision'], '2')
    assert.equal(revalidated.headers['content-type'], 'text/plain')
    assert.match(String(revalidated.headers['cache-status']), /^conduit; fwd=stale; fwd-status=304; ttl=(99|100); stored$/)
    assert.equal(server.requests[1].headers['if-none-match'], '"same"')
    // The 304 made the response fresh for 100s more.
    t.mock.timers.tick(50_000)
    const hit = await send()
    assert.equal(hit.headers['x-revision'], '2')
    assert.equal(hit.body, 'original body')
    assert.equal(count(), 2)
  })

  // §4.3.4: a 304 naming another validator updates nothing; one that forbids reuse withdraws
  // the stored response. Either way the origin is asked again without validators.
  for (const [what, fields] of [
    ['names a different ETag than the stored one', { etag: '"other"' }],
    ['says no-store', { etag: '"e"', 'cache-control': 'no-store' }],
    ['says private (shared cache)', { etag: '"e"', 'cache-control': 'private' }],
    ['says Vary: *', { etag: '"e"', vary: '*' }],
    ['sets a cookie (shared cache)', { etag: '"e"', 'set-cookie': 'a=1' }]
  ] as const) {
    it(`does not answer from the stored body when the 304 ${what}, and asks again without validators`, async (t) => {
      freezeDate(t)
      let version = 1
      const { send, count, server } = await setupCache(t, (req, res) => {
        stamp(res, 'max-age=10')
        if (req.headers['if-none-match'] !== undefined) {
          res.writeHead(304, fields)
          res.end()
          return
        }
        res.setHeader('etag', '"e"')
        res.end(`version ${version}`)
      }, { type: 'shared' })
      await send()
      version = 2
      t.mock.timers.tick(11_000)
      const answer = await send()
      assert.equal(answer.body, 'version 2')
      assert.equal(count(), 3)
      assert.equal(server.requests[1].headers['if-none-match'], '"e"')
      assert.equal(server.requests[2].headers['if-none-match'], undefined)
      assert.equal((await send()).body, 'version 2')
      assert.equal(count(), 3)
    })
  }

  it('sends If-Modified-Since from the stored Last-Modified', async (t) => {
    freezeDate(t)
    const lastModified = new Date(Date.now() - 60_000).toUTCString()
    const { send, count, server } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=10')
      res.setHeader('last-modified', lastModified)
      if (req.headers['if-modified-since'] === lastModified) { res.statusCode = 304; res.end(); return }
      res.end('dated')
    })
    await send()
    t.mock.timers.tick(11_000)
    assert.equal((await send()).body, 'dated')
    assert.equal(server.requests[1].headers['if-modified-since'], lastModified)
    assert.equal(count(), 2)
  })

  it('replaces the stored response when the revalidation answers 200', async (t) => {
    freezeDate(t)
    let version = 1
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10')
      res.setHeader('etag', `"${version}"`)
      res.end(`version ${version++}`)
    })
    await send()
    t.mock.timers.tick(11_000)
    const replaced = await send()
    assert.equal(replaced.body, 'version 2')
    assert.match(String(replaced.headers['cache-status']), /fwd=stale; fwd-status=200; stored/)
    assert.equal((await send()).body, 'version 2')
    assert.equal(count(), 2)
  })

  it('serves a stale response on an origin 5xx within stale-if-error, and passes the error on after it', async (t) => {
    freezeDate(t)
    let failing = false
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, stale-if-error=60')
      if (failing) { res.statusCode = 503; res.end('down'); return }
      res.end('good')
    })
    await send()
    failing = true
    t.mock.timers.tick(30_000)
    const rescued = await send()
    assert.equal(rescued.status, 200)
    assert.equal(rescued.body, 'good')
    assert.match(String(rescued.headers['cache-status']), /fwd=stale; fwd-status=503; ttl=-2\d; detail=stale-if-error/)
    t.mock.timers.tick(60_000)
    const failed = await send()
    assert.equal(failed.status, 503)
    assert.equal(count(), 3)
  })

  it('serves a stale response within stale-if-error when the origin cannot be reached', async (t) => {
    freezeDate(t)
    const { send, count, server } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, stale-if-error=60')
      res.end('good')
    })
    await send()
    await server.close()
    t.mock.timers.tick(20_000)
    const rescued = await send()
    assert.equal(rescued.body, 'good')
    assert.match(String(rescued.headers['cache-status']), /detail=stale-if-error/)
    assert.equal(count(), 1)
  })

  it('honours a request stale-if-error', async (t) => {
    freezeDate(t)
    let failing = false
    const { send } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10')
      res.setHeader('etag', '"e"')
      if (failing) { res.statusCode = 500; res.end(); return }
      res.end('good')
    })
    await send()
    failing = true
    t.mock.timers.tick(20_000)
    assert.equal((await send('/', { headers: { 'cache-control': 'stale-if-error=30' } })).body, 'good')
    assert.equal((await send('/')).status, 500)
  })

  it('serves stale within stale-while-revalidate and refreshes the entry in the background', async (t) => {
    freezeDate(t)
    let version = 1
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, stale-while-revalidate=60')
      res.end(`version ${version++}`)
    })
    await send()
    t.mock.timers.tick(15_000)
    const stale = await send()
    assert.equal(stale.body, 'version 1')
    assert.match(String(stale.headers['cache-status']), /^conduit; hit; ttl=-\d; detail=stale-while-revalidate$/)
    await until(() => count() === 2)
    await until(async () => (await send('/', { headers: { 'cache-control': 'only-if-cached' } })).body === 'version 2')
    assert.equal((await send()).body, 'version 2')
    assert.equal(count(), 2)
  })

  it('runs stale-while-revalidate with an asynchronous store, one background request at a time', async (t) => {
    freezeDate(t)
    const store = new AsyncTestStore()
    let version = 1
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, stale-while-revalidate=60')
      res.setHeader('etag', `"${version}"`)
      res.end(`version ${version++}`)
    }, { store })
    await send()
    t.mock.timers.tick(15_000)
    const [a, b] = await Promise.all([send(), send()])
    assert.equal(a.body, 'version 1')
    assert.equal(b.body, 'version 1')
    await until(() => count() === 2)
    await until(async () => (await send('/', { headers: { 'cache-control': 'only-if-cached' } })).body === 'version 2')
    assert.equal(count(), 2)
    assert.ok(store.calls.get >= 3)
  })

  it('revalidates beyond the stale-while-revalidate window', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, stale-while-revalidate=5')
      res.setHeader('etag', '"x"')
      res.end('x')
    })
    await send()
    t.mock.timers.tick(30_000)
    assert.match(String((await send()).headers['cache-status']), /fwd=stale/)
    assert.equal(count(), 2)
  })

  it('passes a request with its own validators to the origin when the stored response is stale, and hands the 304 to the caller', async (t) => {
    freezeDate(t)
    const { send, count } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=60')
      res.setHeader('etag', '"c"')
      if (req.headers['if-none-match'] === '"c"') { res.statusCode = 304; res.end(); return }
      res.end('x')
    })
    await send()
    t.mock.timers.tick(61_000)
    const conditional = await send('/', { headers: { 'if-none-match': '"c"' } })
    assert.equal(conditional.status, 304)
    assert.equal(count(), 2)
  })

  it('revalidates a stale response without validators with If-Modified-Since from its Date', async (t) => {
    freezeDate(t)
    const stored = new Date().toUTCString()
    const { send, count, server } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=10, stale-if-error=5')
      if (req.headers['if-modified-since'] !== undefined) { res.statusCode = 304; res.end(); return }
      res.end('x')
    })
    await send()
    t.mock.timers.tick(20_000)
    const revalidated = await send()
    assert.equal(revalidated.status, 200)
    assert.equal(revalidated.body, 'x')
    assert.equal(count(), 2)
    assert.equal(server.requests[1].headers['if-none-match'], undefined)
    assert.equal(server.requests[1].headers['if-modified-since'], stored)
  })

  it('revalidates with the time it stored the response when that response has neither validator nor a valid Date', async (t) => {
    freezeDate(t)
    const storedAt = new Date().toUTCString()
    const { send, count, server } = await setupCache(t, (req, res) => {
      res.setHeader('cache-control', 'max-age=10')
      res.sendDate = false
      res.setHeader('date', 'yesterday')
      res.setHeader('last-modified', 'not a date')
      if (req.headers['if-modified-since'] !== undefined) { res.statusCode = 304; res.end(); return }
      res.end('undated')
    })
    await send()
    t.mock.timers.tick(20_000)
    assert.equal((await send()).body, 'undated')
    assert.equal(count(), 2)
    assert.equal(server.requests[1].headers['if-modified-since'], storedAt)
  })
})

describe('interceptors.cache(): handler contract during revalidation', () => {
  it('ends with exactly one onResponseError when the caller aborts a revalidation in flight, serving nothing stale', async (t) => {
    freezeDate(t)
    let hold: (() => void) | undefined
    const { send, dispatcher, server } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=10, stale-if-error=600')
      res.setHeader('etag', '"h"')
      if (req.headers['if-none-match'] !== undefined) { hold = () => { res.statusCode = 304; res.end() }; return }
      res.end('x')
    })
    await send()
    t.mock.timers.tick(20_000)
    const events: string[] = []
    await new Promise<void>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onRequestStart: (controller) => {
          events.push('start')
          setImmediate(() => controller.abort(new Error('caller gave up')))
        },
        onResponseStart: () => { events.push('headers') },
        onResponseEnd: () => { events.push('end'); resolve() },
        onResponseError: (_c, err) => { events.push(`error:${err.message}`); setImmediate(resolve) }
      })
    })
    hold?.()
    assert.deepEqual(events, ['start', 'error:caller gave up'])
  })

  it('lets the caller pause and resume a stored body served after a 304', async (t) => {
    freezeDate(t)
    const { send, dispatcher, server, count } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=10')
      res.setHeader('etag', '"p"')
      if (req.headers['if-none-match'] === '"p"') { res.statusCode = 304; res.end(); return }
      res.end('paused body')
    })
    await send()
    t.mock.timers.tick(20_000)
    const events: string[] = []
    await new Promise<void>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onResponseStart: (controller, status) => {
          events.push(`headers:${status}`)
          controller.pause()
          setImmediate(() => { events.push('resume'); controller.resume() })
        },
        onResponseData: (_c, chunk) => { events.push(`data:${chunk.toString()}`) },
        onResponseEnd: () => { events.push('end'); resolve() },
        onResponseError: (_c, err) => { events.push(`error:${err.message}`); resolve() }
      })
    })
    assert.deepEqual(events, ['headers:200', 'resume', 'data:paused body', 'end'])
    assert.equal(count(), 2)
  })

  it('keeps serving when a background revalidation fails, without an unhandled error', async (t) => {
    freezeDate(t)
    let fail = false
    const { send, count } = await setupCache(t, (req, res) => {
      if (fail) { req.socket.destroy(); return }
      stamp(res, 'max-age=10, stale-while-revalidate=600')
      res.end('still here')
    })
    await send()
    fail = true
    t.mock.timers.tick(20_000)
    assert.equal((await send()).body, 'still here')
    await until(() => count() === 2)
    assert.equal((await send()).body, 'still here')
    await until(() => count() === 3)
  })
})

describe('interceptors.cache(): Vary', () => {
  const varying: http.RequestListener = (req, res) => {
    stamp(res, 'max-age=60')
    res.setHeader('vary', 'Accept-Language')
    res.end(`lang=${req.headers['accept-language'] ?? 'none'}`)
  }

  it('keeps one response per value of the headers named in Vary, absence included', async (t) => {
    const { send, count } = await setupCache(t, varying)
    const en = { headers: { 'accept-language': 'en' } }
    const fr = { headers: { 'Accept-Language': 'fr' } }
    assert.equal((await send('/', en)).body, 'lang=en')
    assert.equal((await send('/', fr)).body, 'lang=fr')
    assert.equal((await send('/')).body, 'lang=none')
    assert.equal((await send('/', en)).body, 'lang=en')
    assert.equal((await send('/', fr)).body, 'lang=fr')
    assert.equal((await send('/')).body, 'lang=none')
    assert.equal(count(), 3)
  })

  it('never stores a response with Vary: *', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => { stamp(res, 'max-age=60'); res.setHeader('vary', '*'); res.end('x') })
    await send()
    await send()
    assert.equal(count(), 2)
  })
})

describe('interceptors.cache(): invalidation and ranges', () => {
  const origin: http.RequestListener = (req, res) => {
    if (req.method === 'GET') { stamp(res, 'max-age=600'); res.end(`GET ${req.url}`); return }
    if (req.url === '/fail') { res.statusCode = 500; res.end(); return }
    if (req.url === '/moved') res.setHeader('location', '/target?a=1')
    if (req.url === '/described') res.setHeader('content-location', '/content')
    if (req.url === '/elsewhere') res.setHeader('location', 'http://127.0.0.2:1/target?a=1')
    res.end('done')
  }

  async function unsafe (setup: Awaited<ReturnType<typeof setupCache>>, method: string, path: string): Promise<void> {
    const res = await setup.dispatcher.request({ origin: setup.server.origin, path, method })
    await res.body.dump()
  }

  it('invalidates the target URI after a successful POST, PUT, PATCH or DELETE', async (t) => {
    const setup = await setupCache(t, origin)
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      await setup.send('/item')
      await setup.send('/item')
      await unsafe(setup, method, '/item')
    }
    // Each round: one GET to fill, one hit, one unsafe request.
    assert.equal(setup.count(), 8)
  })

  it('keeps the stored response when the unsafe request fails', async (t) => {
    const setup = await setupCache(t, origin)
    await setup.send('/fail')
    await unsafe(setup, 'POST', '/fail')
    await setup.send('/fail')
    assert.equal(setup.count(), 2)
  })

  it('invalidates same-origin Location and Content-Location URIs, and ignores other origins', async (t) => {
    const setup = await setupCache(t, origin)
    await setup.send('/target?a=1')
    await setup.send('/content')
    await unsafe(setup, 'POST', '/elsewhere')
    await setup.send('/target?a=1')
    assert.equal(setup.count(), 3)
    await unsafe(setup, 'POST', '/moved')
    await unsafe(setup, 'PUT', '/described')
    await setup.send('/target?a=1')
    await setup.send('/content')
    assert.equal(setup.count(), 7)
  })

  it('invalidates before the unsafe response ends, with an asynchronous store', async (t) => {
    const setup = await setupCache(t, origin, { store: new AsyncTestStore() })
    await setup.send('/item')
    await unsafe(setup, 'DELETE', '/item')
    await setup.send('/item')
    assert.equal(setup.count(), 3)
  })

  it('stores the 200 an origin sends for a ranged request and answers later ranges from it', async (t) => {
    const setup = await setupCache(t, origin)
    assert.equal((await setup.send('/file', { headers: { range: 'bytes=0-3' } })).status, 200)
    const part = await setup.send('/file', { headers: { range: 'bytes=0-2' } })
    assert.equal(part.status, 206)
    assert.equal(part.body, 'GET')
    assert.equal((await setup.send('/file')).body, 'GET /file')
    assert.equal(setup.count(), 1)
  })
})
