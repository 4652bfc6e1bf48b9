import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Writable } from 'node:stream'
import { Agent, interceptors } from '../../../src/index.js'
import type { CacheMode, DispatchController, DispatchHandler } from '../../../src/index.js'
import type { CacheStore } from '../../../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../../../stores/memory-cache-store.js'
import { SqliteCacheStore } from '../../../stores/sqlite-cache-store.js'
import { AsyncTestStore } from '../../stores/async-test-store.js'
import { setupCache, freezeDate } from './cache-test-helpers.js'
import type { CacheSetup } from './cache-test-helpers.js'

describe('interceptors.cache(): options', () => {
  it('rejects a store without get/createWriteStream/delete, naming the missing method', () => {
    assert.throws(() => interceptors.cache({ store: { get () {}, delete () {} } as never }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.match(err.message, /store must have a createWriteStream\(\) method/)
      return true
    })
  })

  it('rejects unsafe or unknown methods, a bad type, cacheByDefault and cacheStatus', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ methods: ['POST'] }, /methods may only contain safe methods .*got "POST"/],
      [{ methods: 'GET' }, /methods must be an array of method names, got "GET"/],
      [{ type: 'public' }, /type must be 'shared' or 'private', got "public"/],
      [{ cacheByDefault: -1 }, /cacheByDefault must be a non-negative integer \(seconds\), got -1/],
      [{ cacheStatus: 'yes' }, /cacheStatus must be a boolean, got "yes"/]
    ]
    for (const [options, message] of cases) {
      assert.throws(() => interceptors.cache(options as never), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
        assert.match(err.message, message)
        return true
      })
    }
  })

  it('throws synchronously from dispatch when cacheMode is not a Fetch cache mode', async (t) => {
    const { dispatcher, server } = await setupCache(t, (_req, res) => res.end())
    assert.throws(() => dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET', cacheMode: 'sometimes' as unknown as CacheMode }, {}), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.match(err.message, /cacheMode must be one of default, no-store, reload, no-cache, force-cache, only-if-cached, got "sometimes"/)
      return true
    })
  })
})

describe('interceptors.cache(): hits and misses', () => {
  it('serves a fresh response from the cache without a second request to the origin', async (t) => {
    let n = 0
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end(`response ${++n}`)
    })
    const first = await send()
    const second = await send()
    assert.equal(first.body, 'response 1')
    assert.equal(second.body, 'response 1')
    assert.equal(second.status, 200)
    assert.equal(count(), 1)
  })

  it('marks a miss and a hit in cache-status (RFC 9211) with the remaining ttl', async (t) => {
    const { send } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('x')
    })
    assert.equal((await send()).headers['cache-status'], 'conduit; fwd=miss; fwd-status=200; stored')
    assert.match(String((await send()).headers['cache-status']), /^conduit; hit; ttl=(59|60)$/)
  })

  it('appends its cache-status entry after one from a cache nearer the origin', async (t) => {
    const { send } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.setHeader('cache-status', 'edge; hit')
      res.end('x')
    })
    await send()
    assert.match(String((await send()).headers['cache-status']), /^edge; hit, conduit; hit; ttl=\d+$/)
  })

  it('adds no cache-status header when cacheStatus is false', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('x')
    }, { cacheStatus: false })
    assert.equal((await send()).headers['cache-status'], undefined)
    assert.equal((await send()).headers['cache-status'], undefined)
    assert.equal(count(), 1)
  })

  it('sets Age on a served response to the time it has spent in the cache plus its age on arrival', async (t) => {
    const now = freezeDate(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('date', new Date(now).toUTCString())
      res.setHeader('age', '10')
      res.setHeader('cache-control', 'max-age=100')
      res.end('x')
    })
    await send()
    t.mock.timers.tick(25_000)
    const hit = await send()
    assert.equal(hit.headers.age, '35')
    assert.match(String(hit.headers['cache-status']), /ttl=65$/)
    assert.equal(count(), 1)
  })

  it('keeps different paths, query strings and origins apart', async (t) => {
    const { send, count } = await setupCache(t, (req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end(req.url)
    })
    assert.equal((await send('/a?x=1')).body, '/a?x=1')
    assert.equal((await send('/a?x=2')).body, '/a?x=2')
    assert.equal((await send('/a', { query: { x: 3 } })).body, '/a?x=3')
    assert.equal((await send('/a?x=1')).body, '/a?x=1')
    assert.equal((await send('/a', { query: { x: 3 } })).body, '/a?x=3')
    assert.equal(count(), 3)
  })

  it('caches only the configured methods: HEAD passes through unless listed', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('x')
    })
    await send('/', { method: 'HEAD' })
    await send('/', { method: 'HEAD' })
    assert.equal(count(), 2)
  })

  it('caches HEAD separately from GET when methods lists it', async (t) => {
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('body')
    }, { methods: ['GET', 'HEAD'] })
    assert.equal((await send('/', { method: 'HEAD' })).body, '')
    assert.equal((await send('/', { method: 'HEAD' })).body, '')
    assert.equal((await send('/')).body, 'body')
    assert.equal((await send('/')).body, 'body')
    assert.equal(count(), 2)
  })

  it('answers a HEAD from a stored GET response, without its body, when both methods are cached', async (t) => {
    const { send, count } = await setupCache(t, (req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.setHeader('x-method', req.method ?? '')
      res.end('body')
    }, { methods: ['GET', 'HEAD'] })
    await send('/')
    const head = await send('/', { method: 'HEAD' })
    assert.equal(head.status, 200)
    assert.equal(head.body, '')
    assert.equal(head.headers['x-method'], 'GET')
    assert.match(String(head.headers['cache-status']), /^conduit; hit/)
    assert.equal(count(), 1)
  })

  it('serves a hit with a large body intact', async (t) => {
    const big = Buffer.alloc(300_000, 'abcdefghij').toString()
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end(big)
    })
    assert.equal((await send()).body, big)
    assert.equal((await send()).body, big)
    assert.equal(count(), 1)
  })
})

describe('interceptors.cache(): stores', () => {
  const stores: Array<[string, () => CacheStore & { close?: () => void }]> = [
    ['MemoryCacheStore', () => new MemoryCacheStore()],
    ['SqliteCacheStore', () => new SqliteCacheStore()],
    ['an asynchronous custom store', () => new AsyncTestStore()]
  ]
  for (const [name, make] of stores) {
    it(`stores, serves, revalidates and invalidates through ${name}`, async (t) => {
      const store = make()
      t.after(() => store.close?.())
      const now = freezeDate(t)
      let version = 1
      const { send, count, dispatcher, server } = await setupCache(t, (req, res) => {
        if (req.method === 'POST') { version++; res.end('ok'); return }
        // The server's own Date cache runs on real time; Date itself is frozen here.
        res.setHeader('date', new Date().toUTCString())
        res.setHeader('cache-control', 'max-age=10')
        res.setHeader('etag', `"v${version}"`)
        if (req.headers['if-none-match'] === `"v${version}"`) { res.statusCode = 304; res.end(); return }
        res.end(`version ${version}`)
      }, { store })
      assert.equal((await send()).body, 'version 1')
      assert.equal((await send()).body, 'version 1')
      assert.equal(count(), 1)
      t.mock.timers.tick(11_000)
      const revalidated = await send()
      assert.equal(revalidated.body, 'version 1')
      assert.match(String(revalidated.headers['cache-status']), /fwd=stale; fwd-status=304/)
      assert.equal(count(), 2)
      assert.equal(server.requests[1].headers['if-none-match'], '"v1"')
      assert.equal((await send()).body, 'version 1')
      assert.equal(count(), 2)
      const post = await dispatcher.request({ origin: server.origin, path: '/', method: 'POST', body: 'change' })
      await post.body.dump()
      assert.equal((await send()).body, 'version 2')
      assert.equal(count(), 4)
      assert.ok(Date.now() >= now)
    })
  }

  it('bypasses the cache and still answers when the store throws or rejects', async (t) => {
    const failing: CacheStore = {
      get () { throw new Error('get exploded') },
      createWriteStream () { throw new Error('write exploded') },
      delete () { return Promise.reject(new Error('delete exploded')) }
    }
    const { send, count, dispatcher, server } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('origin')
    }, { store: failing })
    assert.equal((await send()).body, 'origin')
    assert.equal((await send()).body, 'origin')
    const del = await dispatcher.request({ origin: server.origin, path: '/', method: 'DELETE' })
    assert.equal(await del.body.text(), 'origin')
    assert.equal(count(), 3)
  })

  it('bypasses the cache when the store rejects asynchronously', async (t) => {
    const failing: CacheStore = {
      get: async () => { throw new Error('get rejected') },
      createWriteStream: () => new Writable({ write (_c, _e, cb) { cb(new Error('disk full')) } }),
      delete: async () => {}
    }
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('origin')
    }, { store: failing })
    assert.equal((await send()).body, 'origin')
    assert.equal((await send()).body, 'origin')
    assert.equal(count(), 2)
  })

  it('works with a custom store that declines to store (createWriteStream returns undefined)', async (t) => {
    const declining: CacheStore = { get: () => undefined, createWriteStream: () => undefined, delete: () => {} }
    const { send, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('origin')
    }, { store: declining })
    const first = await send()
    assert.equal(first.headers['cache-status'], 'conduit; fwd=miss; fwd-status=200')
    await send()
    assert.equal(count(), 2)
  })
})

/** A cache over a server whose one response may be stored for a minute, with that response stored already. */
async function setupStoredHit (t: TestContext): Promise<CacheSetup> {
  const setup = await setupCache(t, (_req, res) => {
    res.setHeader('cache-control', 'max-age=60')
    res.end('stored body')
  })
  await setup.send()
  return setup
}

describe('interceptors.cache(): handler contract on cache hits', () => {
  it('honours pause and resume while playing a stored body and ends exactly once', async (t) => {
    const { dispatcher, server } = await setupStoredHit(t)
    const events: string[] = []
    await new Promise<void>((resolve) => {
      const handler: DispatchHandler = {
        onRequestStart: () => events.push('start'),
        onResponseStart: (controller: DispatchController) => {
          events.push('headers')
          controller.pause()
          setImmediate(() => { events.push('resume'); controller.resume() })
        },
        onResponseData: (_c, chunk) => { events.push(`data:${chunk.toString()}`) },
        onResponseEnd: () => { events.push('end'); resolve() },
        onResponseError: () => { events.push('error'); resolve() }
      }
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, handler)
    })
    assert.deepEqual(events, ['start', 'headers', 'resume', 'data:stored body', 'end'])
  })

  it('ends a hit with onResponseError when the handler aborts, and with nothing after it', async (t) => {
    const { dispatcher, server } = await setupStoredHit(t)
    const events: string[] = []
    await new Promise<void>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onResponseStart: (controller) => { events.push('headers'); controller.abort(new Error('not wanted')) },
        onResponseData: () => { events.push('data') },
        onResponseEnd: () => { events.push('end'); resolve() },
        onResponseError: (_c, err) => { events.push(`error:${err.message}`); setImmediate(resolve) }
      })
    })
    assert.deepEqual(events, ['headers', 'error:not wanted'])
  })

  it('rejects a cached request whose signal is already aborted', async (t) => {
    const { send, dispatcher, server } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('x')
    })
    await send()
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/', method: 'GET', signal: controller.signal }), { name: 'AbortError' })
  })

  it('turns an exception thrown by the handler into onResponseError', async (t) => {
    const { send, dispatcher, server } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('x')
    })
    await send()
    const err = await new Promise<Error>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onResponseStart: () => { throw new Error('handler bug') },
        onResponseEnd: () => resolve(new Error('ended instead')),
        onResponseError: (_c, error) => resolve(error)
      })
    })
    assert.equal(err.message, 'handler bug')
  })

  it('works over a composed chain below it and through a second Agent', async (t) => {
    const { server, count } = await setupCache(t, (_req, res) => {
      res.setHeader('cache-control', 'max-age=60')
      res.end('chained')
    })
    const agent = new Agent()
    t.after(() => agent.destroy())
    const chained = agent.compose(interceptors.cache(), (dispatch) => (opts, handler) => dispatch({ ...opts, headers: { 'x-through': 'chain' } }, handler))
    for (let i = 0; i < 3; i++) {
      const res = await chained.request({ origin: server.origin, path: '/', method: 'GET' })
      assert.equal(await res.body.text(), 'chained')
    }
    assert.equal(count(), 1)
  })
})

describe('interceptors.cache(): debug log', () => {
  it('explains each decision under NODE_DEBUG=conduit:cache', () => {
    const script = fileURLToPath(new URL('./cache-debug-child.js', import.meta.url))
    const result = spawnSync(process.execPath, [script], { env: { ...process.env, NODE_DEBUG: 'conduit:cache' }, encoding: 'utf8', timeout: 20_000 })
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stderr, /CONDUIT:CACHE \d+: miss for GET http:\/\/127\.0\.0\.1:\d+\/logged/)
    assert.match(result.stderr, /storing GET .*\/logged \(status 200\): fresh for (59|60)s \(max-age\)/)
    assert.match(result.stderr, /hit for GET .*\/logged: fresh for \d+s/)
    assert.match(result.stderr, /not storing GET .*\/private \(status 200\): the response is private and this cache is shared/)
  })
})
