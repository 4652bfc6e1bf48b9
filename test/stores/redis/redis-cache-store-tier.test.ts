import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import type { RedisCacheStoreOptions } from '../../../stores/redis-cache-store.js'
import type { CacheKey, GetResult } from '../../../src/contracts/cache-store.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, STALL_TIMEOUT_MS, cacheKey, cacheValue, eventually, uniquePrefix, useTestRedis } from './redis-cache-store-fixtures.js'

const shared = useTestRedis()

/** Two stores on one prefix: two hosts sharing a cache, each with its own memory tier. */
async function twoHosts (t: { after: (fn: () => Promise<void>) => void }, options: RedisCacheStoreOptions = {}): Promise<[RedisCacheStore, RedisCacheStore]> {
  const keyPrefix = uniquePrefix()
  const a = new RedisCacheStore({ clientOptions: shared.redis.url, keyPrefix, timeoutMs: HEALTHY_TIMEOUT_MS, ...options })
  const b = new RedisCacheStore({ clientOptions: shared.redis.url, keyPrefix, timeoutMs: HEALTHY_TIMEOUT_MS, ...options })
  t.after(async () => {
    await a.close()
    await b.close()
  })
  await eventually('both memory tiers are active', () => a.memoryTierActive && b.memoryTierActive)
  return [a, b]
}

function isPromise (value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === 'function'
}

/** True once `get` answers synchronously, i.e. from the memory tier. */
function servedFromMemory (store: RedisCacheStore, key: CacheKey): boolean {
  const result = store.get(key)
  if (isPromise(result)) result.catch(() => {})
  return !isPromise(result)
}

/**
 * Waits until `key` is served from memory. Right after this process's own write, Redis's echo of
 * that write may still be on its way and evict the first copy read back, so this polls.
 */
function inMemory (store: RedisCacheStore, key: CacheKey): Promise<void> {
  return eventually(`${key.path} is served from memory`, () => servedFromMemory(store, key))
}

async function bodyOf (result: GetResult | undefined | Promise<GetResult | undefined>): Promise<string | undefined> {
  const resolved = await result
  return resolved === undefined ? undefined : String(resolved.body)
}

describe('RedisCacheStore memory tier', () => {
  it('serves a repeated hit synchronously from memory once Redis answered it', async (t) => {
    const [a] = await twoHosts(t)
    const key = cacheKey('/tier/hit')
    await writeEntry(a, key, cacheValue(), ['cached'])
    assert.equal(await bodyOf(a.get(key)), 'cached')
    await inMemory(a, key)
    const again = a.get(key)
    assert.ok(!isPromise(again), 'get went to Redis again')
    assert.equal(String(again?.body), 'cached')
  })

  it('remembers a miss, and forgets it when another host stores the URL', async (t) => {
    const [a, b] = await twoHosts(t)
    const key = cacheKey('/tier/miss-then-hit')
    assert.equal(await a.get(key), undefined)
    await inMemory(a, key)
    assert.equal(a.get(key), undefined)
    await writeEntry(b, key, cacheValue(), ['from b'])
    await eventually('host A sees the entry host B stored', async () => (await bodyOf(a.get(key))) === 'from b')
  })

  it('sees an overwrite made by another host', async (t) => {
    const [a, b] = await twoHosts(t)
    const key = cacheKey('/tier/overwrite')
    await writeEntry(a, key, cacheValue({ etag: '"1"' }), ['one'])
    assert.equal(await bodyOf(a.get(key)), 'one')
    await inMemory(a, key)
    await writeEntry(b, key, cacheValue({ etag: '"2"' }), ['two'])
    await eventually('host A serves the new body', async () => (await bodyOf(a.get(key))) === 'two')
  })

  it('sees a delete made by another host', async (t) => {
    const [a, b] = await twoHosts(t)
    const key = cacheKey('/tier/delete')
    await writeEntry(a, key, cacheValue(), ['doomed'])
    assert.equal(await bodyOf(a.get(key)), 'doomed')
    await inMemory(a, key)
    await b.delete(key)
    await eventually('host A no longer serves the deleted entry', async () => (await a.get(key)) === undefined)
  })

  it('sees a tag invalidation made by another host', async (t) => {
    const [a, b] = await twoHosts(t)
    const key = cacheKey('/tier/tagged')
    await writeEntry(a, key, cacheValue({ headers: { 'cache-tags': 'product-1' } }), ['tagged'])
    assert.equal(await bodyOf(a.get(key)), 'tagged')
    await inMemory(a, key)
    assert.equal(await b.deleteTags(['product-1']), true)
    await eventually('host A drops the entry tagged product-1', async () => (await a.get(key)) === undefined)
  })

  it('never serves its own deleted or rewritten entry from memory, not even once', async (t) => {
    const [a] = await twoHosts(t)
    const key = cacheKey('/tier/own-changes')
    await writeEntry(a, key, cacheValue({ headers: { 'cache-tags': 't' } }), ['v1'])
    assert.equal(await bodyOf(a.get(key)), 'v1')
    await writeEntry(a, key, cacheValue({ headers: { 'cache-tags': 't' } }), ['v2'])
    assert.equal(await bodyOf(a.get(key)), 'v2')
    assert.equal(await bodyOf(a.get(key)), 'v2')
    await a.deleteTags(['t'])
    assert.equal(await a.get(key), undefined)
    await writeEntry(a, key, cacheValue(), ['v3'])
    assert.equal(await bodyOf(a.get(key)), 'v3')
    await a.delete(key)
    assert.equal(await a.get(key), undefined)
  })

  it('empties itself when the Redis database is flushed', async (t) => {
    const [a] = await twoHosts(t)
    const key = cacheKey('/tier/flush')
    await writeEntry(a, key, cacheValue(), ['flushed'])
    assert.equal(await bodyOf(a.get(key)), 'flushed')
    await inMemory(a, key)
    await shared.admin.flushdb()
    await eventually('the flushed entry is gone from memory', async () => (await a.get(key)) === undefined)
  })

  it('selects among several variants of one URL and keeps each body once read', async (t) => {
    const [a] = await twoHosts(t)
    const gzip = cacheKey('/tier/variants', { 'accept-encoding': 'gzip' })
    const br = cacheKey('/tier/variants', { 'accept-encoding': 'br' })
    await writeEntry(a, gzip, cacheValue({ vary: { 'accept-encoding': 'gzip' } }), ['gzip'])
    await writeEntry(a, br, cacheValue({ vary: { 'accept-encoding': 'br' } }), ['br'])
    assert.equal(await bodyOf(a.get(gzip)), 'gzip')
    assert.equal(await bodyOf(a.get(br)), 'br')
    await inMemory(a, gzip)
    await inMemory(a, br)
    assert.equal(await bodyOf(a.get(gzip)), 'gzip')
    assert.equal(await bodyOf(a.get(br)), 'br')
    assert.equal(a.get(cacheKey('/tier/variants', { 'accept-encoding': 'zstd' })), undefined)
  })

  it('stops serving an entry from memory once its deleteAt passes', async (t) => {
    let now = Date.now()
    const [a] = await twoHosts(t, { now: () => now })
    const key = cacheKey('/tier/expiry')
    await writeEntry(a, key, cacheValue({ cachedAt: now, staleAt: now + 1000, deleteAt: now + 2000 }), ['short'])
    assert.equal(await bodyOf(a.get(key)), 'short')
    await inMemory(a, key)
    now += 2000
    assert.equal(a.get(key), undefined)
  })

  it('hands out copies: changing a returned result does not change the next hit', async (t) => {
    const [a] = await twoHosts(t)
    const key = cacheKey('/tier/copies')
    await writeEntry(a, key, cacheValue({ headers: { 'content-type': 'text/plain' } }), ['x'])
    const first = await a.get(key)
    assert.ok(first)
    first.headers['content-type'] = 'changed'
    first.statusCode = 500
    const second = await a.get(key)
    assert.equal(second?.headers['content-type'], 'text/plain')
    assert.equal(second?.statusCode, 200)
  })

  it('can be turned off: every get then asks Redis', async (t) => {
    const store = new RedisCacheStore({ clientOptions: shared.redis.url, keyPrefix: uniquePrefix(), memoryTier: false, timeoutMs: HEALTHY_TIMEOUT_MS })
    t.after(() => store.close())
    const key = cacheKey('/tier/off')
    await writeEntry(store, key, cacheValue(), ['x'])
    assert.equal(await bodyOf(store.get(key)), 'x')
    assert.ok(!servedFromMemory(store, key))
    assert.equal(store.memoryTierActive, false)
  })

  it('turns itself off when its invalidation connection stops answering, and back on when Redis answers again', async (t) => {
    const errors: Error[] = []
    const [a] = await twoHosts(t, { timeoutMs: STALL_TIMEOUT_MS, memoryTier: { heartbeatMs: 10 }, errorCallback: (err) => errors.push(err) })
    shared.redis.pause()
    t.after(() => shared.redis.resume())
    await eventually('the tier turns off', () => !a.memoryTierActive)
    assert.ok(errors.some((err) => (err as Error & { code?: string }).code === 'LIB_ERR_STORE_TIMEOUT' && /did not answer PING/.test(err.message)))
    shared.redis.resume()
    await eventually('the tier turns back on', () => a.memoryTierActive)
  })

  it('is bypassed while tracking is lost and comes back after the subscriber reconnects', async (t) => {
    const [a] = await twoHosts(t)
    const key = cacheKey('/tier/reconnect')
    await writeEntry(a, key, cacheValue(), ['x'])
    assert.equal(await bodyOf(a.get(key)), 'x')
    await shared.admin.client('KILL', 'TYPE', 'pubsub')
    await eventually('the tier turns off when its subscriber is gone', () => !a.memoryTierActive)
    assert.ok(!servedFromMemory(a, key), 'served from memory while invalidations could be lost')
    await eventually('the tier turns back on after the subscriber reconnects', () => a.memoryTierActive)
    assert.equal(await bodyOf(a.get(key)), 'x')
    await inMemory(a, key)
  })
})
