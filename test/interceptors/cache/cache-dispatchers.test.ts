import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Client, fetch, interceptors, MockAgent } from '../../../src/index.js'
import type { DispatchHandler } from '../../../src/index.js'
import { setupCache, stamp } from './cache-test-helpers.js'

describe('interceptors.cache() over other dispatchers and APIs', () => {
  it('maps every fetch init.cache mode onto the cache', async (t) => {
    let n = 0
    const { dispatcher, server, count } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=60')
      res.setHeader('etag', '"f"')
      if (req.headers['if-none-match'] === '"f"') { res.statusCode = 304; res.end(); return }
      res.end(`fetch ${++n}`)
    })
    const get = async (cache?: RequestCache, path = '/'): Promise<[number, string]> => {
      const res = await fetch(`${server.origin}${path}`, { dispatcher, cache, mode: 'same-origin' })
      return [res.status, await res.text()]
    }
    assert.deepEqual(await get(), [200, 'fetch 1'])
    assert.deepEqual(await get('default'), [200, 'fetch 1'])
    assert.equal(count(), 1)
    assert.deepEqual(await get('no-store'), [200, 'fetch 2'])
    assert.equal(count(), 2)
    assert.deepEqual(await get('reload'), [200, 'fetch 3'])
    assert.deepEqual(await get('force-cache'), [200, 'fetch 3'])
    assert.equal(count(), 3)
    assert.deepEqual(await get('no-cache'), [200, 'fetch 3'])
    assert.equal(count(), 4)
    assert.equal((await get('only-if-cached', '/never-fetched'))[0], 504)
    assert.deepEqual(await get('only-if-cached'), [200, 'fetch 3'])
    assert.equal(count(), 4)
  })

  it('caches over a Client under its own origin, whether requests name it or not', async (t) => {
    const { server, count } = await setupCache(t, (_req, res) => { stamp(res, 'max-age=60'); res.end('client') })
    const client = new Client(server.origin)
    t.after(() => client.destroy())
    const cached = client.compose(interceptors.cache())
    for (const origin of [server.origin, server.origin, undefined, undefined]) {
      const res = await cached.request({ origin, path: '/', method: 'GET' })
      assert.equal(await res.body.text(), 'client')
    }
    assert.equal(count(), 1)
  })

  it('caches responses produced by a MockAgent', async (t) => {
    const mock = new MockAgent()
    t.after(() => mock.close())
    mock.disableNetConnect()
    mock.get('http://mock.test').intercept({ path: '/m' }).reply(200, 'mocked', { headers: { 'cache-control': 'max-age=60' } })
    const cached = mock.compose(interceptors.cache())
    for (let i = 0; i < 3; i++) {
      const res = await cached.request({ origin: 'http://mock.test', path: '/m', method: 'GET' })
      assert.equal(await res.body.text(), 'mocked')
    }
    // The interceptor was registered once: a second origin request would have failed as unmatched.
    mock.assertNoPendingInterceptors()
  })

  it('ends a hit dispatched with an aborted signal with onResponseError and no response', async (t) => {
    const { send, dispatcher, server } = await setupCache(t, (_req, res) => { stamp(res, 'max-age=60'); res.end('x') })
    await send()
    const controller = new AbortController()
    controller.abort(new Error('gave up'))
    const events: string[] = []
    await new Promise<void>((resolve) => {
      const handler: DispatchHandler = {
        onRequestStart: () => { events.push('start') },
        onResponseStart: () => { events.push('headers') },
        onResponseEnd: () => { events.push('end'); resolve() },
        onResponseError: (_c, err) => { events.push(`error:${err.message}`); resolve() }
      }
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET', signal: controller.signal }, handler)
    })
    assert.deepEqual(events, ['start', 'error:gave up'])
  })

  it('stops playing a paused hit when the signal aborts', async (t) => {
    const { send, dispatcher, server } = await setupCache(t, (_req, res) => { stamp(res, 'max-age=60'); res.end('x') })
    await send()
    const controller = new AbortController()
    const events: string[] = []
    await new Promise<void>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET', signal: controller.signal }, {
        onResponseStart: (c) => { events.push('headers'); c.pause(); setImmediate(() => controller.abort(new Error('stop'))) },
        onResponseData: () => { events.push('data') },
        onResponseEnd: () => { events.push('end'); resolve() },
        onResponseError: (_c, err) => { events.push(`error:${err.message}`); resolve() }
      })
    })
    assert.deepEqual(events, ['headers', 'error:stop'])
  })

  it('rejects request() on a cached response when the body is aborted mid-way, leaving the entry intact', async (t) => {
    const { send, dispatcher, server, count } = await setupCache(t, (_req, res) => { stamp(res, 'max-age=60'); res.end('y'.repeat(100_000)) })
    await send()
    const controller = new AbortController()
    const res = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET', signal: controller.signal })
    const text = res.body.text()
    controller.abort()
    await assert.rejects(text, { name: 'AbortError' })
    assert.equal((await send()).body.length, 100_000)
    assert.equal(count(), 1)
  })
})
