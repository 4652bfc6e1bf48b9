import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { DispatchController, DispatchHandler } from '../../../src/handler.js'
import type { CacheKey, CacheStore, GetResult } from '../../../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../../../stores/memory-cache-store.js'
import type { CacheInterceptorOptions } from '../../../interceptors/cache/index.js'
import { setupCache, stamp } from './cache-test-helpers.js'

/** A handler that records its hooks and settles a promise once the dispatch ended either way. */
function recordingHandler (overrides: Partial<DispatchHandler> = {}): { handler: DispatchHandler, events: string[], done: Promise<void>, body: () => string } {
  const events: string[] = []
  const chunks: Buffer[] = []
  let settle: () => void = () => {}
  const done = new Promise<void>((resolve) => { settle = resolve })
  const handler: DispatchHandler = {
    onRequestStart: () => { events.push('start') },
    onResponseStart: (_c: DispatchController, statusCode: number) => { events.push(`head ${statusCode}`) },
    onResponseData: (_c: DispatchController, chunk: Buffer) => { chunks.push(chunk) },
    onResponseEnd: () => {
      events.push('end')
      settle()
    },
    onResponseError: (_c: DispatchController, err: Error) => {
      events.push(`error ${err.message}`)
      settle()
    },
    ...overrides
  }
  return { handler, events, done, body: () => Buffer.concat(chunks).toString() }
}

/** Wraps a store so that `get` answers through a promise (as Redis does), or a bare thenable. */
function answeringLater (inner: CacheStore, kind: 'promise' | 'thenable'): CacheStore {
  return {
    get: (key: CacheKey) => {
      const result = inner.get(key) as GetResult | undefined
      if (kind === 'promise') return Promise.resolve(result)
      const thenable = { then: (resolve: (value: GetResult | undefined) => void) => { setImmediate(() => resolve(result)) } }
      return thenable as unknown as Promise<GetResult | undefined>
    },
    createWriteStream: (key, value) => inner.createWriteStream(key, value),
    delete: (key) => inner.delete(key)
  }
}

async function primed (t: Parameters<typeof setupCache>[0], store: CacheStore, memory: MemoryCacheStore, options: CacheInterceptorOptions = {}): Promise<Awaited<ReturnType<typeof setupCache>>> {
  const setup = await setupCache(t, (_req, res) => {
    stamp(res, 'max-age=600')
    res.end('stored body')
  }, { ...options, store })
  const first = await setup.send('/item')
  assert.match(String(first.headers['cache-status']), /fwd=miss; fwd-status=200; stored/)
  assert.notEqual(memory.get({ origin: setup.server.origin, method: 'GET', path: '/item', headers: {} }), undefined)
  return setup
}

describe('interceptors.cache(): hits from a synchronous store', () => {
  it('starts a hit from the memory store within dispatch() and delivers its body and end after it returned, as undici does', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server, count } = await primed(t, store, store)
    const seen = recordingHandler()
    const accepted = dispatcher.dispatch({ origin: server.origin, path: '/item', method: 'GET' }, seen.handler)
    assert.equal(accepted, true)
    assert.deepEqual(seen.events, ['start', 'head 200'])
    assert.equal(seen.body(), '')
    await seen.done
    assert.deepEqual(seen.events, ['start', 'head 200', 'end'])
    assert.equal(seen.body(), 'stored body')
    assert.equal(count(), 1)
  })

  it('answers a HEAD from the stored GET response without a body, its head within dispatch()', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server, count } = await primed(t, store, store, { methods: ['GET', 'HEAD'] })
    const seen = recordingHandler()
    dispatcher.dispatch({ origin: server.origin, path: '/item', method: 'HEAD' }, seen.handler)
    assert.deepEqual(seen.events, ['start', 'head 200'])
    await seen.done
    assert.deepEqual(seen.events, ['start', 'head 200', 'end'])
    assert.equal(seen.body(), '')
    assert.equal(count(), 1)
  })

  it('turns a handler that throws during a synchronous hit into onResponseError, not a throw from dispatch()', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server } = await primed(t, store, store)
    const seen = recordingHandler({ onResponseStart: () => { throw new Error('handler broke') } })
    assert.doesNotThrow(() => dispatcher.dispatch({ origin: server.origin, path: '/item', method: 'GET' }, seen.handler))
    assert.deepEqual(seen.events, ['start', 'error handler broke'])
  })

  it('lets dispatch() return normally when the handler throws in onResponseEnd of a hit', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server } = await primed(t, store, store)
    const seen = recordingHandler({
      onResponseEnd: () => {
        seen.events.push('end')
        throw new Error('end hook broke')
      }
    })
    assert.equal(dispatcher.dispatch({ origin: server.origin, path: '/item', method: 'GET' }, seen.handler), true)
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(seen.events, ['start', 'head 200', 'end'])
  })

  it('treats an entry whose fields throw when read as a miss, within dispatch()', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server, count } = await primed(t, {
      get: (key: CacheKey) => {
        const entry = store.get(key)
        if (entry === undefined) return undefined
        return new Proxy(entry, { get: (target, name) => { if (name === 'headers') throw new Error('unreadable'); return Reflect.get(target, name) } })
      },
      createWriteStream: (key, value) => store.createWriteStream(key, value),
      delete: (key) => store.delete(key)
    }, store)
    const res = await dispatcher.request({ origin: server.origin, path: '/item', method: 'GET' })
    assert.equal(await res.body.text(), 'stored body')
    assert.match(String(res.headers['cache-status']), /fwd=miss/)
    assert.equal(count(), 2)
  })

  it('fails the request with the error when using a stored entry throws, instead of throwing from dispatch()', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server } = await primed(t, {
      get: (key: CacheKey) => {
        const entry = store.get(key)
        if (entry === undefined) return undefined
        const directives = { get 'no-cache' (): never { throw new Error('directives unreadable') } }
        return { ...entry, cacheControlDirectives: directives as unknown as GetResult['cacheControlDirectives'] }
      },
      createWriteStream: (key, value) => store.createWriteStream(key, value),
      delete: (key) => store.delete(key)
    }, store)
    const seen = recordingHandler()
    assert.doesNotThrow(() => dispatcher.dispatch({ origin: server.origin, path: '/item', method: 'GET' }, seen.handler))
    assert.deepEqual(seen.events, ['error directives unreadable'])
  })

  it('gives each hit its own copy of the stored headers', async (t) => {
    const store = new MemoryCacheStore()
    const { dispatcher, server } = await primed(t, store, store)
    const first = await dispatcher.request({ origin: server.origin, path: '/item', method: 'GET' })
    await first.body.text()
    first.headers['x-changed-by-caller'] = 'yes'
    const second = await dispatcher.request({ origin: server.origin, path: '/item', method: 'GET' })
    await second.body.text()
    assert.equal(second.headers['x-changed-by-caller'], undefined)
    assert.match(String(second.headers['cache-status']), /; hit; ttl=\d+/)
    assert.equal(second.headers.age, '0')
  })
})

describe('interceptors.cache(): hits from an asynchronous store', () => {
  for (const kind of ['promise', 'thenable'] as const) {
    it(`serves a hit from a store whose get answers with a ${kind}, after dispatch() returned`, async (t) => {
      const memory = new MemoryCacheStore()
      const { dispatcher, server, count } = await primed(t, answeringLater(memory, kind), memory)
      const seen = recordingHandler()
      dispatcher.dispatch({ origin: server.origin, path: '/item', method: 'GET' }, seen.handler)
      assert.deepEqual(seen.events, [])
      await seen.done
      assert.deepEqual(seen.events, ['start', 'head 200', 'end'])
      assert.equal(seen.body(), 'stored body')
      assert.equal(count(), 1)
    })
  }

  it('sends the request to the origin when a synchronous get throws, and when an asynchronous one rejects', async (t) => {
    for (const failing of [
      () => { throw new Error('store down') },
      () => Promise.reject(new Error('store down'))
    ]) {
      const store: CacheStore = { get: failing, createWriteStream: () => undefined, delete: () => {} }
      const { dispatcher, server, count } = await setupCache(t, (_req, res) => {
        stamp(res, 'max-age=600')
        res.end('from origin')
      }, { store })
      const res = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET' })
      assert.equal(await res.body.text(), 'from origin')
      assert.equal(count(), 1)
    }
  })
})
