import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { MemoryCacheStore } from '../../stores/memory-cache-store.js'
import type { MaxSizeExceededInfo } from '../../stores/memory-cache-store.js'
import type { CacheKey, CacheValue } from '../../src/contracts/cache-store.js'
import { runCacheStoreContract, writeEntry, readCachedBody } from '../../src/testing/cache-store-contract.js'

runCacheStoreContract('MemoryCacheStore (cache store contract)', () => ({ store: new MemoryCacheStore(), cleanup: async () => {} }))

function key (path: string): CacheKey {
  return { origin: 'http://127.0.0.1:3000', method: 'GET', path, headers: {} }
}

function value (): CacheValue {
  const now = Date.now()
  return { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now + 60_000, deleteAt: now + 120_000 }
}

describe('MemoryCacheStore', () => {
  it('rejects a maxCount, maxSize or maxEntrySize that is not a non-negative integer with a TypeError naming it', () => {
    for (const [name, bad] of [['maxCount', -1], ['maxSize', 1.5], ['maxEntrySize', '10'], ['maxCount', Number.NaN], ['maxSize', Infinity]] as const) {
      assert.throws(() => new MemoryCacheStore({ [name]: bad }), (err: Error) => {
        assert.ok(err instanceof TypeError)
        assert.match(err.message, new RegExp(`${name} must be a non-negative integer`))
        return true
      })
    }
  })

  it('rejects an errorCallback that is not a function', () => {
    assert.throws(() => new MemoryCacheStore({ errorCallback: 'log' as never }), TypeError)
  })

  it('throws a TypeError from get, createWriteStream and delete when the key is not an object', () => {
    const store = new MemoryCacheStore()
    assert.throws(() => store.get('http://x/' as never), /get\(\): key must be an object, got "http:\/\/x\/"/)
    assert.throws(() => store.createWriteStream(null as never, value()), TypeError)
    assert.throws(() => store.delete(42 as never), /delete\(\): key must be an object, got 42/)
  })

  it('reports the total body size in bytes and counts it down on delete', async () => {
    const store = new MemoryCacheStore()
    assert.equal(store.size, 0)
    await writeEntry(store, key('/a'), value(), ['12345'])
    await writeEntry(store, key('/b'), value(), ['123'])
    assert.equal(store.size, 8)
    store.delete(key('/a'))
    assert.equal(store.size, 3)
    await writeEntry(store, key('/b'), value(), ['1'])
    assert.equal(store.size, 1)
  })

  it('does not store a body larger than maxEntrySize and destroys the stream', async () => {
    const store = new MemoryCacheStore({ maxEntrySize: 10 })
    const stream = store.createWriteStream(key('/big'), value())
    await new Promise<void>((resolve) => {
      stream.once('close', () => resolve())
      stream.write('123456')
      stream.write('789012')
      stream.end()
    })
    assert.equal(stream.destroyed, true)
    assert.equal(store.get(key('/big')), undefined)
    assert.equal(store.size, 0)
  })

  it('stores a body of exactly maxEntrySize bytes', async () => {
    const store = new MemoryCacheStore({ maxEntrySize: 10 })
    await writeEntry(store, key('/edge'), value(), ['1234567890'])
    const result = store.get(key('/edge'))
    assert.ok(result)
    assert.equal((await readCachedBody(result.body)).toString(), '1234567890')
  })

  it('isFull() becomes true once maxCount responses are stored', async () => {
    const store = new MemoryCacheStore({ maxCount: 2 })
    assert.equal(store.isFull(), false)
    await writeEntry(store, key('/1'), value(), ['x'])
    assert.equal(store.isFull(), false)
    await writeEntry(store, key('/2'), value(), ['x'])
    assert.equal(store.isFull(), true)
  })

  it('isFull() becomes true once maxSize bytes are stored', async () => {
    const store = new MemoryCacheStore({ maxSize: 10 })
    await writeEntry(store, key('/1'), value(), ['12345'])
    assert.equal(store.isFull(), false)
    await writeEntry(store, key('/2'), value(), ['12345'])
    assert.equal(store.isFull(), true)
  })

  it('emits maxSizeExceeded with the sizes and limits, then evicts about half, least recently used first', async () => {
    const store = new MemoryCacheStore({ maxCount: 10 })
    const events: MaxSizeExceededInfo[] = []
    store.on('maxSizeExceeded', (info: MaxSizeExceededInfo) => events.push(info))
    for (let i = 0; i < 10; i++) await writeEntry(store, key(`/${i}`), value(), ['ab'])
    // Reading /0 and /1 makes them the most recently used, so they survive the eviction.
    assert.ok(store.get(key('/0')))
    assert.ok(store.get(key('/1')))
    assert.equal(events.length, 0)
    await writeEntry(store, key('/10'), value(), ['ab'])
    assert.deepEqual(events, [{ size: 22, maxSize: 104_857_600, count: 11, maxCount: 10 }])
    const survivors = Array.from({ length: 11 }, (_, i) => `/${i}`).filter((path) => store.get(key(path)) !== undefined)
    // 11 responses: 6 evicted (/2 to /7, the least recently used), 5 kept.
    assert.deepEqual(survivors, ['/0', '/1', '/8', '/9', '/10'])
    assert.equal(store.size, 10)
  })

  it('emits maxSizeExceeded when the byte limit is exceeded and evicts until below it', async () => {
    const store = new MemoryCacheStore({ maxSize: 100 })
    const events: MaxSizeExceededInfo[] = []
    store.on('maxSizeExceeded', (info: MaxSizeExceededInfo) => events.push(info))
    for (let i = 0; i < 5; i++) await writeEntry(store, key(`/${i}`), value(), [Buffer.alloc(20)])
    assert.equal(events.length, 0)
    await writeEntry(store, key('/5'), value(), [Buffer.alloc(30)])
    assert.equal(events.length, 1)
    assert.deepEqual(events[0], { size: 130, maxSize: 100, count: 6, maxCount: 1024 })
    assert.ok(store.size <= 100)
    assert.ok(store.get(key('/5')), 'the newest response was evicted')
  })

  it('emits maxSizeExceeded once per overflow, and again for a later overflow', async () => {
    const store = new MemoryCacheStore({ maxCount: 4 })
    let events = 0
    store.on('maxSizeExceeded', () => { events++ })
    for (let i = 0; i < 5; i++) await writeEntry(store, key(`/${i}`), value(), ['x'])
    assert.equal(events, 1)
    assert.ok(store.isFull() === false)
    for (let i = 5; i < 8; i++) await writeEntry(store, key(`/${i}`), value(), ['x'])
    assert.equal(events, 2)
  })

  it('hands an error thrown by a maxSizeExceeded listener to errorCallback and still evicts', async () => {
    const errors: Error[] = []
    const store = new MemoryCacheStore({ maxCount: 1, errorCallback: (err) => errors.push(err) })
    store.on('maxSizeExceeded', () => { throw new Error('listener failed') })
    await writeEntry(store, key('/a'), value(), ['x'])
    await writeEntry(store, key('/b'), value(), ['y'])
    assert.equal(errors.length, 1)
    assert.equal(errors[0].message, 'listener failed')
    assert.equal(store.get(key('/a')), undefined)
  })

  it('frees the bytes of expired responses when they are looked up', async (t) => {
    const start = Date.now()
    t.mock.timers.enable({ apis: ['Date'], now: start })
    const store = new MemoryCacheStore()
    await writeEntry(store, key('/exp'), { ...value(), deleteAt: start + 1000 }, ['12345'])
    assert.equal(store.size, 5)
    t.mock.timers.tick(1001)
    assert.equal(store.get(key('/exp')), undefined)
    assert.equal(store.size, 0)
  })

  it('keeps size and count exact and within the limits after any sequence of writes and deletes', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), path: fc.integer({ min: 0, max: 15 }), bytes: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('delete' as const), path: fc.integer({ min: 0, max: 15 }), bytes: fc.constant(0) })
    )
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 40, max: 200 }), async (ops, maxCount, maxSize) => {
      const store = new MemoryCacheStore({ maxCount, maxSize, maxEntrySize: 40 })
      for (const { kind, path, bytes } of ops) {
        if (kind === 'write') await writeEntry(store, key(`/${path}`), value(), [Buffer.alloc(bytes)])
        else store.delete(key(`/${path}`))
        let size = 0
        let count = 0
        for (let i = 0; i < 16; i++) {
          const result = store.get(key(`/${i}`))
          if (result !== undefined) { count++; size += (result.body as Buffer).length }
        }
        assert.equal(store.size, size)
        assert.ok(count <= maxCount, `count ${count} above maxCount ${maxCount}`)
        assert.ok(size <= maxSize, `size ${size} above maxSize ${maxSize}`)
      }
    }), { numRuns: 60 })
  })

  it('with maxCount 0 stores nothing lasting and reports itself full', async () => {
    const store = new MemoryCacheStore({ maxCount: 0 })
    assert.equal(store.isFull(), true)
    await writeEntry(store, key('/a'), value(), ['x'])
    assert.equal(store.get(key('/a')), undefined)
    assert.equal(store.size, 0)
  })
})
