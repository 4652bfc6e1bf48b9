import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import type { RedisCacheStoreOptions } from '../../../stores/redis-cache-store.js'
import { keyLayout, urlKey, variantKey, variantSuffix } from '../../../stores/redis/key-layout.js'
import type { CacheKey, CacheValue } from '../../../src/contracts/cache-store.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, cacheKey, cacheValue, eventually, uniquePrefix, useTestRedis } from './redis-cache-store-fixtures.js'

const shared = useTestRedis()

interface Harness {
  store: RedisCacheStore
  prefix: string
  /** The url index key of `key`. */
  index: (key: CacheKey) => string
  /** The key holding the variant of `key` selected by `vary`. */
  variant: (key: CacheKey, vary?: Record<string, string>) => string
}

function newStore (t: { after: (fn: () => Promise<void>) => void }, options: RedisCacheStoreOptions = {}): Harness {
  const prefix = uniquePrefix()
  const layout = keyLayout(prefix)
  const store = new RedisCacheStore({ clientOptions: shared.redis.url, keyPrefix: prefix, timeoutMs: HEALTHY_TIMEOUT_MS, ...options })
  t.after(() => store.close())
  return {
    store,
    prefix,
    index: (key) => urlKey(layout, key.origin, key.path),
    variant: (key, vary) => variantKey(layout, key.origin, key.path, variantSuffix(key.method, vary))
  }
}

/** A value living `lifeMs` from now, selected by header `a` when `a` is given. */
function living (lifeMs: number, a?: string): CacheValue {
  const now = Date.now()
  return cacheValue({ staleAt: now + lifeMs, deleteAt: now + lifeMs, ...(a === undefined ? {} : { vary: { a } }) })
}

const withA = (key: CacheKey, a: string): CacheKey => ({ ...key, headers: { a } })

/** Keys under `prefix`, sorted; the store's test prefixes hold no glob characters. */
async function keysUnder (prefix: string): Promise<string[]> {
  return (await shared.admin.keys(`${prefix}*`)).sort()
}

describe('RedisCacheStore expiry in Redis', () => {
  it('shortens the life of the URL and its variant when a rewrite brings an earlier deleteAt', async (t) => {
    const h = newStore(t)
    const key = cacheKey('/shorter')
    await writeEntry(h.store, key, living(600_000), ['long'])
    assert.ok(await shared.admin.pttl(h.index(key)) > 590_000)
    await writeEntry(h.store, key, living(2000), ['short'])
    const indexTtl = await shared.admin.pttl(h.index(key))
    const variantTtl = await shared.admin.pttl(h.variant(key))
    assert.ok(indexTtl > 0 && indexTtl <= 2000, `index ttl ${indexTtl}`)
    assert.ok(variantTtl > 0 && variantTtl <= 2000, `variant ttl ${variantTtl}`)
    assert.equal(String((await h.store.get(key))?.body), 'short')
  })

  it('lets Redis remove a rewritten entry, body included, at its new earlier deleteAt', async (t) => {
    const h = newStore(t)
    const key = cacheKey('/gone-early')
    await writeEntry(h.store, key, living(600_000), ['long'])
    await writeEntry(h.store, key, living(150), ['short'])
    await eventually('Redis dropped every key of the URL', async () => (await keysUnder(h.prefix)).length === 0)
    assert.equal(await h.store.get(key), undefined)
  })

  it('lets Redis remove a short-lived variant at its time while a long-lived one of the same URL stays', async (t) => {
    const h = newStore(t, { memoryTier: false })
    const key = cacheKey('/two-lives')
    await writeEntry(h.store, withA(key, 'long'), living(600_000, 'long'), ['long body'])
    await writeEntry(h.store, withA(key, 'short'), living(150, 'short'), ['short body'])
    assert.ok(await shared.admin.pttl(h.index(key)) > 590_000)
    const shortKey = h.variant(key, { a: 'short' })
    assert.equal(await shared.admin.exists(shortKey), 1)
    await eventually('Redis dropped the short-lived variant', async () => await shared.admin.exists(shortKey) === 0)
    assert.equal(await shared.admin.exists(h.variant(key, { a: 'long' })), 1)
    assert.equal(await h.store.get(withA(key, 'short')), undefined)
    assert.equal(String((await h.store.get(withA(key, 'long')))?.body), 'long body')
  })

  it('prunes index fields of variants Redis already dropped on the next write to the URL', async (t) => {
    const h = newStore(t, { memoryTier: false })
    const key = cacheKey('/prune')
    await writeEntry(h.store, withA(key, 'short'), living(100, 'short'), ['short body'])
    await writeEntry(h.store, withA(key, 'long'), living(600_000, 'long'), ['long body'])
    const shortKey = h.variant(key, { a: 'short' })
    await eventually('Redis dropped the short-lived variant', async () => await shared.admin.exists(shortKey) === 0)
    assert.equal(await shared.admin.hlen(h.index(key)), 2)
    await writeEntry(h.store, withA(key, 'other'), living(60_000, 'other'), ['other body'])
    assert.deepEqual((await shared.admin.hkeys(h.index(key))).sort(), [
      variantSuffix('GET', { a: 'long' }), variantSuffix('GET', { a: 'other' })
    ].sort())
  })

  it('keeps the URL index alive as long as its longest-lived variant and no longer', async (t) => {
    const h = newStore(t, { memoryTier: false })
    const key = cacheKey('/longest')
    await writeEntry(h.store, withA(key, '1'), living(600_000, '1'), ['one'])
    await writeEntry(h.store, withA(key, '2'), living(30_000, '2'), ['two'])
    // Rewriting the longest-lived variant with a short life leaves the other as the longest.
    await writeEntry(h.store, withA(key, '1'), living(5000, '1'), ['one again'])
    const ttl = await shared.admin.pttl(h.index(key))
    assert.ok(ttl > 5000 && ttl <= 30_000, `index ttl ${ttl}`)
  })

  it('delete() removes the index and every variant key of the URL', async (t) => {
    const h = newStore(t)
    const key = cacheKey('/delete-all')
    await writeEntry(h.store, withA(key, '1'), living(60_000, '1'), ['one'])
    await writeEntry(h.store, withA(key, '2'), living(60_000, '2'), ['two'])
    await writeEntry(h.store, { ...key, method: 'HEAD' }, living(60_000), [])
    assert.equal((await keysUnder(h.prefix)).length, 4)
    await h.store.delete(key)
    assert.deepEqual(await keysUnder(h.prefix), [])
    assert.equal(await h.store.get(withA(key, '1')), undefined)
  })

  it('deleteTags() removes the tagged variant key and lowers the index life to what remains', async (t) => {
    const h = newStore(t, { memoryTier: false })
    const key = cacheKey('/tag-retime')
    const tagged = { ...living(600_000, 'tagged'), headers: { 'cache-tags': 'x' } }
    await writeEntry(h.store, withA(key, 'tagged'), tagged, ['tagged body'])
    await writeEntry(h.store, withA(key, 'plain'), living(10_000, 'plain'), ['plain body'])
    assert.equal(await h.store.deleteTags(['x']), true)
    assert.equal(await shared.admin.exists(h.variant(key, { a: 'tagged' })), 0)
    const ttl = await shared.admin.pttl(h.index(key))
    assert.ok(ttl > 0 && ttl <= 10_000, `index ttl ${ttl}`)
    assert.equal(String((await h.store.get(withA(key, 'plain')))?.body), 'plain body')
  })

  it('removes the whole URL from Redis when deleteTags() takes its last variant', async (t) => {
    const h = newStore(t, { memoryTier: false })
    const key = cacheKey('/tag-last')
    await writeEntry(h.store, key, { ...living(60_000), headers: { 'cache-tags': 'only' } }, ['body'])
    assert.equal(await h.store.deleteTags(['only']), true)
    assert.deepEqual(await keysUnder(h.prefix), [])
  })

  it('stops serving a short-lived variant from the memory tier once Redis dropped it', async (t) => {
    const h = newStore(t)
    const key = cacheKey('/tier-expiry')
    await eventually('the memory tier is on', () => h.store.memoryTierActive)
    await writeEntry(h.store, withA(key, 'long'), living(600_000, 'long'), ['long body'])
    await writeEntry(h.store, withA(key, 'short'), living(150, 'short'), ['short body'])
    assert.equal(String((await h.store.get(withA(key, 'short')))?.body), 'short body')
    assert.equal(String((await h.store.get(withA(key, 'long')))?.body), 'long body')
    const shortKey = h.variant(key, { a: 'short' })
    await eventually('Redis dropped the short-lived variant', async () => await shared.admin.exists(shortKey) === 0)
    assert.equal(await h.store.get(withA(key, 'short')), undefined)
    assert.equal(String((await h.store.get(withA(key, 'long')))?.body), 'long body')
  })

  it('finds, expires and prunes variants of methods and paths with non-ASCII characters', async (t) => {
    const h = newStore(t, { memoryTier: false })
    const key: CacheKey = { ...cacheKey('/caf\u00e9/\u{1F600}'), method: 'G\u00c9T' }
    await writeEntry(h.store, withA(key, 'short'), living(100, 'short'), ['short body'])
    await writeEntry(h.store, withA(key, 'long'), living(600_000, 'long'), ['long body'])
    assert.equal(await shared.admin.exists(h.variant(key, { a: 'long' })), 1)
    assert.equal(await shared.admin.hlen(h.index(key)), 2)
    const shortKey = h.variant(key, { a: 'short' })
    await eventually('Redis dropped the short-lived variant', async () => await shared.admin.exists(shortKey) === 0)
    await writeEntry(h.store, withA(key, 'long'), living(600_000, 'long'), ['long again'])
    assert.deepEqual(await shared.admin.hkeys(h.index(key)), [variantSuffix(key.method, { a: 'long' })])
    assert.equal(String((await h.store.get(withA(key, 'long')))?.body), 'long again')
  })
})
