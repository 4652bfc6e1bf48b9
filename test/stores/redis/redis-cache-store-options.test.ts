import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Redis } from 'ioredis'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import { cacheStores } from '../../../src/index.js'
import { loadIoredis } from '../../../stores/redis/load-ioredis.js'
import { startRedisServer } from '../../helpers/redis-server.js'
import type { TestRedis } from '../../helpers/redis-server.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, cacheKey, cacheValue, eventually, uniquePrefix } from './redis-cache-store-fixtures.js'

let redis: TestRedis

before(async () => {
  redis = await startRedisServer()
})

after(async () => {
  await redis?.close()
})

function throwsTypeError (fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: Error) => {
    assert.ok(err instanceof TypeError, `expected a TypeError, got ${err.name}`)
    assert.match(err.message, message)
    return true
  })
}

describe('RedisCacheStore options', () => {
  it('is exported in the cacheStores namespace', () => {
    assert.equal(cacheStores.RedisCacheStore, RedisCacheStore)
  })

  it('rejects bad options with a TypeError naming the option and the value', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['redis://x', /options must be an object, got "redis:\/\/x"/],
      [{ maxEntrySize: -1 }, /maxEntrySize must be a non-negative integer, got -1/],
      [{ maxEntrySize: 1.5 }, /maxEntrySize must be a non-negative integer, got 1.5/],
      [{ maxEntrySize: 600 * 1024 * 1024 }, /maxEntrySize must be at most 536870912, got 629145600/],
      [{ keyPrefix: '' }, /keyPrefix must be a non-empty string, got ""/],
      [{ keyPrefix: 7 }, /keyPrefix must be a non-empty string, got 7/],
      [{ errorCallback: 'log' }, /errorCallback must be a function, got "log"/],
      [{ tagsHeader: 'bad header' }, /tagsHeader must be a header name or null, got "bad header"/],
      [{ memoryTier: true }, /memoryTier must be an object or false, got true/],
      [{ memoryTier: { maxCount: 0 } }, /memoryTier.maxCount must be a positive integer, got 0/],
      [{ memoryTier: { maxSize: -5 } }, /memoryTier.maxSize must be a positive integer, got -5/],
      [{ timeoutMs: 0 }, /timeoutMs must be a positive integer, got 0/],
      [{ pauseAfterTimeoutMs: Number.NaN }, /pauseAfterTimeoutMs must be a non-negative integer, got NaN/],
      [{ now: 5 }, /now must be a function, got 5/],
      [{ client: {} }, /client must be an ioredis client, got \[object Object\]/],
      [{ client: { isCluster: true, duplicate () {}, call () {} }, keyPrefix: 'app{1}:' }, /keyPrefix must not contain "\{" or "\}" with a cluster client \(got "app\{1\}:"\)/],
      [{ client: { isCluster: true, duplicate () {}, call () {} }, memoryTier: {} }, /memoryTier is not available with a cluster client/],
      [{ client: { isCluster: true, duplicate () {}, call () {}, options: { redisOptions: { keyPrefix: 'app:' } } } }, /client must not have an ioredis keyPrefix \(got "app:"\)/],
      [{ coalesce: 'cluster' }, /coalesce must be a boolean or an object, got "cluster"/],
      [{ coalesce: { waitMs: 0 } }, /coalesce.waitMs must be a positive integer, got 0/],
      [{ coalesce: { leaseMs: -1 } }, /coalesce.leaseMs must be a positive integer, got -1/],
      [{ clientOptions: 6379 }, /clientOptions must be an object or a redis:\/\/ URL, got 6379/],
      [{ clientOptions: { keyPrefix: 'app:' } }, /clientOptions.keyPrefix is not supported \(got "app:"\)/]
    ]
    for (const [options, message] of cases) throwsTypeError(() => new RedisCacheStore(options as never), message)
  })

  it('rejects a borrowed client that has an ioredis keyPrefix, or both client and clientOptions', async (t) => {
    const prefixed = new Redis({ port: redis.port, lazyConnect: true, keyPrefix: 'app:' })
    const plain = new Redis({ port: redis.port, lazyConnect: true })
    t.after(() => {
      prefixed.disconnect()
      plain.disconnect()
    })
    throwsTypeError(() => new RedisCacheStore({ client: prefixed }), /client must not have an ioredis keyPrefix \(got "app:"\)/)
    throwsTypeError(() => new RedisCacheStore({ client: plain, clientOptions: { port: 1 } }), /either client or clientOptions, not both/)
  })

  it('rejects bad keys and values synchronously with a TypeError naming the value', async (t) => {
    const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
    t.after(() => store.close())
    throwsTypeError(() => store.get(null as never), /RedisCacheStore.get: key must be an object, got null/)
    throwsTypeError(() => store.get({ origin: 'http://a', method: 'GET' } as never), /key must have string origin, method and path/)
    throwsTypeError(() => store.createWriteStream(cacheKey('/x'), 'v' as never), /value must be an object, got "v"/)
    throwsTypeError(() => store.createWriteStream(cacheKey('/x'), { ...cacheValue(), deleteAt: 'soon' } as never), /value.deleteAt must be a finite number, got "soon"/)
    throwsTypeError(() => store.createWriteStream(cacheKey('/x'), { ...cacheValue(), headers: null } as never), /value.headers must be an object, got null/)
    throwsTypeError(() => store.delete(7 as never), /RedisCacheStore.delete: key must be an object, got 7/)
    throwsTypeError(() => store.deleteTags('a' as never), /tags must be an array of non-empty strings, got "a"/)
    throwsTypeError(() => store.deleteTags([' ']), /tags must be an array of non-empty strings, got " " at index 0$/)
  })

  it('fails construction with LIB_ERR_NOT_SUPPORTED naming the package when ioredis cannot be loaded', () => {
    assert.throws(() => loadIoredis('ioredis-missing-for-test'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_NOT_SUPPORTED')
      assert.match(err.message, /optional dependency "ioredis-missing-for-test"/)
      return true
    })
    assert.equal(typeof loadIoredis(), 'function')
  })

  it('uses a borrowed client without closing it, and leaves it unchanged', async (t) => {
    const client = new Redis({ port: redis.port })
    t.after(() => client.quit())
    const store = new RedisCacheStore({ client, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
    const key = cacheKey('/borrowed')
    await writeEntry(store, key, cacheValue(), ['via borrowed'])
    assert.equal(String((await store.get(key))?.body), 'via borrowed')
    await store.close()
    assert.equal(client.status, 'ready')
    assert.equal(await client.ping(), 'PONG')
    assert.equal(await client.call('CLIENT', 'TRACKINGINFO').then((info) => String((info as unknown[])[1])), 'off')
  })

  it('connects a lazy borrowed client, and ignores lazyConnect in clientOptions', async (t) => {
    const client = new Redis({ port: redis.port, lazyConnect: true })
    t.after(() => client.quit())
    const borrowed = new RedisCacheStore({ client, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
    const own = new RedisCacheStore({ clientOptions: { port: redis.port, lazyConnect: true }, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
    t.after(async () => {
      await borrowed.close()
      await own.close()
    })
    for (const store of [borrowed, own]) {
      await writeEntry(store, cacheKey('/lazy'), cacheValue(), ['lazy'])
      assert.equal(String((await store.get(cacheKey('/lazy')))?.body), 'lazy')
    }
  })

  it('does not store a body larger than maxEntrySize and destroys the stream', async (t) => {
    const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), maxEntrySize: 10, timeoutMs: HEALTHY_TIMEOUT_MS })
    t.after(() => store.close())
    const key = cacheKey('/too-large')
    const stream = store.createWriteStream(key, cacheValue())
    assert.ok(stream)
    await new Promise<void>((resolve) => {
      stream.once('close', () => resolve())
      stream.write('12345')
      stream.write('678901')
    })
    assert.equal(stream.destroyed, true)
    assert.equal(await store.get(key), undefined)
    await writeEntry(store, key, cacheValue(), ['1234567890'])
    assert.equal(String((await store.get(key))?.body), '1234567890')
  })

  it('leaves no socket or timer behind once closed, with or without its memory tier', async () => {
    const count = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'Timeout').length
    const before = count()
    for (const memoryTier of [undefined, false] as const) {
      const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), memoryTier, timeoutMs: HEALTHY_TIMEOUT_MS })
      await writeEntry(store, cacheKey('/leak'), cacheValue(), ['x'])
      await store.get(cacheKey('/leak'))
      await store.close()
    }
    await eventually('sockets and timers are released', () => count() <= before)
  })

  it('accepts a redis:// URL as clientOptions', async (t) => {
    const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
    t.after(() => store.close())
    const key = cacheKey('/url')
    await writeEntry(store, key, cacheValue(), ['ok'])
    assert.equal(String((await store.get(key))?.body), 'ok')
  })
})
