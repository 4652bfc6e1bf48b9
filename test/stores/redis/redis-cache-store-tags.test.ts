import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import { MAX_VARIANTS_PER_URL } from '../../../stores/redis/scripts.js'
import { BODY_FIELD, META_FIELD, keyLayout, variantKey } from '../../../stores/redis/key-layout.js'
import type { RedisCacheStoreOptions } from '../../../stores/redis-cache-store.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, cacheKey, cacheValue, uniquePrefix, useTestRedis } from './redis-cache-store-fixtures.js'

const shared = useTestRedis()

function newStore (t: { after: (fn: () => Promise<void>) => void }, options: RedisCacheStoreOptions = {}): { store: RedisCacheStore, prefix: string } {
  const prefix = uniquePrefix()
  const store = new RedisCacheStore({ clientOptions: shared.redis.url, keyPrefix: prefix, timeoutMs: HEALTHY_TIMEOUT_MS, ...options })
  t.after(() => store.close())
  return { store, prefix }
}

const tagged = (tags: string | string[], extra: Record<string, string> = {}): ReturnType<typeof cacheValue> =>
  cacheValue({ headers: { 'cache-tags': tags, ...extra } })

describe('RedisCacheStore tags', () => {
  it('deleteTags removes every response carrying any of the tags and leaves the others', async (t) => {
    const { store } = newStore(t)
    await writeEntry(store, cacheKey('/a'), tagged('red, blue'), ['a'])
    await writeEntry(store, cacheKey('/b'), tagged(['green', 'blue']), ['b'])
    await writeEntry(store, cacheKey('/c'), tagged('green'), ['c'])
    await writeEntry(store, cacheKey('/d'), cacheValue(), ['d'])
    assert.equal(await store.deleteTags(['blue']), true)
    assert.equal(await store.get(cacheKey('/a')), undefined)
    assert.equal(await store.get(cacheKey('/b')), undefined)
    assert.ok(await store.get(cacheKey('/c')))
    assert.ok(await store.get(cacheKey('/d')))
    assert.equal(await store.deleteTags(['green', 'red']), true)
    assert.equal(await store.get(cacheKey('/c')), undefined)
    assert.ok(await store.get(cacheKey('/d')))
  })

  it('removes only the tagged variant of a URL, not its other variants', async (t) => {
    const { store } = newStore(t)
    const en = cacheKey('/variants', { 'accept-language': 'en' })
    const fr = cacheKey('/variants', { 'accept-language': 'fr' })
    await writeEntry(store, en, cacheValue({ vary: { 'accept-language': 'en' }, headers: { 'cache-tags': 'english' } }), ['en'])
    await writeEntry(store, fr, cacheValue({ vary: { 'accept-language': 'fr' } }), ['fr'])
    await store.deleteTags(['english'])
    assert.equal(await store.get(en), undefined)
    assert.equal(String((await store.get(fr))?.body), 'fr')
  })

  it('keeps a rewrite that no longer carries the tag', async (t) => {
    const { store } = newStore(t)
    const key = cacheKey('/retagged')
    await writeEntry(store, key, tagged('old'), ['v1'])
    await writeEntry(store, key, tagged('new'), ['v2'])
    await store.deleteTags(['old'])
    assert.equal(String((await store.get(key))?.body), 'v2')
    await store.deleteTags(['new'])
    assert.equal(await store.get(key), undefined)
  })

  it('reads tags from the configured header, case-insensitively, and ignores them when tagging is off', async (t) => {
    const { store } = newStore(t, { tagsHeader: 'Surrogate-Key' })
    await writeEntry(store, cacheKey('/s'), cacheValue({ headers: { 'surrogate-key': 'x' } }), ['s'])
    await writeEntry(store, cacheKey('/c'), tagged('x'), ['c'])
    await store.deleteTags(['x'])
    assert.equal(await store.get(cacheKey('/s')), undefined)
    assert.ok(await store.get(cacheKey('/c')))

    const { store: untagged, prefix } = newStore(t, { tagsHeader: null })
    await writeEntry(untagged, cacheKey('/u'), tagged('x'), ['u'])
    assert.deepEqual(await shared.admin.keys(`${prefix}t:*`), [])
  })

  it('deleteTags of unknown tags, or of none, succeeds and removes nothing', async (t) => {
    const { store } = newStore(t)
    await writeEntry(store, cacheKey('/kept'), tagged('a'), ['k'])
    assert.equal(await store.deleteTags([]), true)
    assert.equal(await store.deleteTags(['never-used']), true)
    assert.ok(await store.get(cacheKey('/kept')))
  })

  it('gives tag sets a lifetime, so the index does not outlive its entries', async (t) => {
    const { store, prefix } = newStore(t)
    const now = Date.now()
    await writeEntry(store, cacheKey('/ttl'), cacheValue({ headers: { 'cache-tags': 'short' }, deleteAt: now + 30_000 }), ['x'])
    const ttl = await shared.admin.pttl(`${prefix}t:short`)
    assert.ok(ttl > 0 && ttl <= 30_000, `tag set ttl ${ttl}`)
  })
})

describe('RedisCacheStore data in Redis', () => {
  it('lets Redis expire a URL when its last variant reaches deleteAt', async (t) => {
    const { store, prefix } = newStore(t)
    const now = Date.now()
    const key = cacheKey('/expiry')
    await writeEntry(store, { ...key, headers: { a: '1' } }, cacheValue({ vary: { a: '1' }, deleteAt: now + 10_000 }), ['short'])
    await writeEntry(store, { ...key, headers: { a: '2' } }, cacheValue({ vary: { a: '2' }, deleteAt: now + 50_000 }), ['long'])
    const ttl = await shared.admin.pttl(`${prefix}u:${key.origin}${key.path}`)
    assert.ok(ttl > 10_000 && ttl <= 50_000, `url key ttl ${ttl}`)
  })

  it('keeps at most MAX_VARIANTS_PER_URL variants of one URL, dropping the shortest-lived first', async (t) => {
    const { store, prefix } = newStore(t, { memoryTier: false })
    const now = Date.now()
    const total = MAX_VARIANTS_PER_URL + 5
    for (let i = 0; i < total; i++) {
      const ua = `agent-${i}`
      await writeEntry(store, cacheKey('/many', { 'user-agent': ua }), cacheValue({ vary: { 'user-agent': ua }, deleteAt: now + 60_000 + i * 1000 }), [ua])
    }
    assert.equal(await shared.admin.hlen(`${prefix}u:http://127.0.0.1:3000/many`), MAX_VARIANTS_PER_URL)
    assert.equal((await shared.admin.keys(`${prefix}v:*`)).length, MAX_VARIANTS_PER_URL)
    assert.equal(await store.get(cacheKey('/many', { 'user-agent': 'agent-0' })), undefined)
    assert.equal(String((await store.get(cacheKey('/many', { 'user-agent': `agent-${total - 1}` })))?.body), `agent-${total - 1}`)
  })

  it('reports damaged metadata to errorCallback and answers miss', async (t) => {
    const errors: Error[] = []
    const { store, prefix } = newStore(t, { memoryTier: false, errorCallback: (err) => errors.push(err) })
    const key = cacheKey('/damaged')
    await shared.admin.hset(`${prefix}u:${key.origin}${key.path}`, 'GET:-', 'id')
    await shared.admin.hset(variantKey(keyLayout(prefix), key.origin, key.path, 'GET:-'), META_FIELD, 'not metadata', BODY_FIELD, 'body')
    assert.equal(await store.get(key), undefined)
    assert.equal(errors.length, 1)
    assert.ok(errors[0] instanceof TypeError)
    assert.match((errors[0] as Error).message, /damaged metadata of variant GET:-/)
  })

  it('reloads its scripts by itself after the server forgot them', async (t) => {
    const { store } = newStore(t, { memoryTier: false })
    const key = cacheKey('/script-flush')
    await writeEntry(store, key, cacheValue(), ['before'])
    await shared.admin.script('FLUSH')
    await writeEntry(store, key, cacheValue(), ['after'])
    assert.equal(String((await store.get(key))?.body), 'after')
  })
})
