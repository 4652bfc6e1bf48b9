import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import type { RedisCacheStoreOptions } from '../../../stores/redis-cache-store.js'
import { startRedisServer } from '../../helpers/redis-server.js'
import type { TestRedis } from '../../helpers/redis-server.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, STALL_TIMEOUT_MS, cacheKey, cacheValue, eventually, uniquePrefix } from './redis-cache-store-fixtures.js'

let redis: TestRedis

before(async () => {
  redis = await startRedisServer()
})

after(async () => {
  await redis?.close()
})

function storeWithErrors (t: { after: (fn: () => Promise<void>) => void }, options: RedisCacheStoreOptions = {}): { store: RedisCacheStore, errors: Error[] } {
  const errors: Error[] = []
  const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS, errorCallback: (err) => errors.push(err), ...options })
  t.after(() => store.close())
  return { store, errors }
}

function unusedPort (): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

describe('RedisCacheStore failing open', () => {
  it('answers miss and drops writes while Redis is down, reports it, and serves hits again once Redis is back', async (t) => {
    const { store, errors } = storeWithErrors(t)
    const key = cacheKey('/down')
    await writeEntry(store, key, cacheValue(), ['before'])
    assert.equal(String((await store.get(key))?.body), 'before')

    await redis.stop()
    t.after(() => redis.start())
    await eventually('get answers miss', async () => (await store.get(key)) === undefined)
    await eventually('createWriteStream declines', () => store.createWriteStream(key, cacheValue()) === undefined)
    assert.equal(await store.get(key), undefined)
    await store.delete(key)
    assert.equal(await store.deleteTags(['any']), false)
    await eventually('the outage reached errorCallback', () => errors.length > 0)
    assert.ok(errors.every((err) => err instanceof Error))

    await redis.start()
    await eventually('the store accepts writes again', () => {
      const stream = store.createWriteStream(key, cacheValue())
      stream?.destroy()
      return stream !== undefined
    })
    await writeEntry(store, key, cacheValue(), ['after'])
    assert.equal(String((await store.get(key))?.body), 'after')
  })

  it('reports a connection outage once, not once per reconnect attempt or per request', async (t) => {
    const { store, errors } = storeWithErrors(t, { memoryTier: false })
    const key = cacheKey('/outage-once')
    await writeEntry(store, key, cacheValue(), ['x'])
    await redis.stop()
    t.after(() => redis.start())
    await eventually('the outage reached errorCallback', () => errors.length > 0)
    for (let i = 0; i < 20; i++) assert.equal(await store.get(key), undefined)
    assert.equal(errors.length, 1)
  })

  it('a stalled Redis costs one timeout, then answers miss at once until the pause is over', async (t) => {
    let now = Date.now()
    const { store, errors } = storeWithErrors(t, { memoryTier: false, timeoutMs: STALL_TIMEOUT_MS, pauseAfterTimeoutMs: 5000, now: () => now })
    const key = cacheKey('/stalled')
    await writeEntry(store, key, cacheValue(), ['kept'])
    const before = errors.length
    redis.pause()
    t.after(() => redis.resume())

    assert.equal(await store.get(key), undefined)
    const timeouts = errors.slice(before)
    assert.equal(timeouts.length, 1)
    assert.equal((timeouts[0] as Error & { code?: string }).code, 'LIB_ERR_STORE_TIMEOUT')
    assert.match((timeouts[0] as Error).message, new RegExp(`get got no answer within ${STALL_TIMEOUT_MS} ms`))

    assert.equal(await store.get(key), undefined)
    assert.equal(store.createWriteStream(key, cacheValue()), undefined)
    assert.equal(errors.length, before + 1, 'Redis was asked again during the pause')

    redis.resume()
    await eventually('hits resume once the pause is over', async () => {
      now += 5000
      return String((await store.get(key))?.body) === 'kept'
    })
  })

  it('drops a write that times out; the stream still finishes without an error', async (t) => {
    const { store, errors } = storeWithErrors(t, { memoryTier: false, timeoutMs: STALL_TIMEOUT_MS })
    const key = cacheKey('/stalled-write')
    redis.pause()
    t.after(() => redis.resume())
    await writeEntry(store, key, cacheValue(), ['lost'])
    assert.ok(errors.some((err) => (err as Error & { code?: string }).code === 'LIB_ERR_STORE_TIMEOUT'))
    redis.resume()
  })

  it('answers miss within its time bound when no Redis ever answers, and closes cleanly', async (t) => {
    const port = await unusedPort()
    const errors: Error[] = []
    const store = new RedisCacheStore({ clientOptions: { port }, timeoutMs: STALL_TIMEOUT_MS, errorCallback: (err) => errors.push(err) })
    t.after(() => store.close())
    assert.equal(await store.get(cacheKey('/nowhere')), undefined)
    const stream = store.createWriteStream(cacheKey('/nowhere'), cacheValue())
    if (stream !== undefined) await writeEntry(store, cacheKey('/nowhere'), cacheValue(), ['x'])
    await eventually('errors reached errorCallback', () => errors.length > 0)
    assert.ok(errors.some((err) => (err as Error & { code?: string }).code === 'ECONNREFUSED' || (err as Error & { code?: string }).code === 'LIB_ERR_STORE_TIMEOUT'))
    await store.close()
    assert.equal(await store.get(cacheKey('/nowhere')), undefined)
  })

  it('keeps working when errorCallback throws', async (t) => {
    let calls = 0
    const store = new RedisCacheStore({
      clientOptions: redis.url,
      keyPrefix: uniquePrefix(),
      memoryTier: false,
      timeoutMs: STALL_TIMEOUT_MS,
      pauseAfterTimeoutMs: 0,
      errorCallback: () => {
        calls++
        throw new Error('callback bug')
      }
    })
    t.after(() => store.close())
    const key = cacheKey('/throwing-callback')
    await writeEntry(store, key, cacheValue(), ['ok'])
    redis.pause()
    t.after(() => redis.resume())
    assert.equal(await store.get(key), undefined)
    redis.resume()
    assert.ok(calls >= 1)
    await eventually('hits resume', async () => String((await store.get(key))?.body) === 'ok')
  })

  it('closes within its time bound while Redis is stalled', async (t) => {
    const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), timeoutMs: STALL_TIMEOUT_MS })
    await writeEntry(store, cacheKey('/close-stalled'), cacheValue(), ['x'])
    redis.pause()
    t.after(() => redis.resume())
    await store.close()
    redis.resume()
  })

  it('answers miss and declines writes after close', async () => {
    const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
    const key = cacheKey('/closed')
    await writeEntry(store, key, cacheValue(), ['x'])
    await store.close()
    await store.close()
    assert.equal(await store.get(key), undefined)
    assert.equal(store.createWriteStream(key, cacheValue()), undefined)
    await store.delete(key)
    assert.equal(await store.deleteTags(['t']), false)
  })
})
