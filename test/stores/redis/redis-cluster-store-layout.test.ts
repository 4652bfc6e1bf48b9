import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Cluster } from 'ioredis'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import type { RedisCacheStoreOptions } from '../../../stores/redis-cache-store.js'
import { keyLayout, leaseKey, urlKey, variantKey, variantSuffix } from '../../../stores/redis/key-layout.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { FAIL_FAST_CLUSTER_OPTIONS, startRedisCluster } from '../../helpers/redis-cluster.js'
import type { TestRedisCluster } from '../../helpers/redis-cluster.js'
import { HEALTHY_TIMEOUT_MS, cacheKey, cacheValue, uniquePrefix } from './redis-cache-store-fixtures.js'

let cluster: TestRedisCluster
let admin: Cluster

before(async () => {
  cluster = await startRedisCluster()
  admin = new Cluster(cluster.startupNodes)
})

after(async () => {
  admin?.disconnect()
  await cluster?.close()
})

function newStore (t: { after: (fn: () => Promise<void>) => void }, options: RedisCacheStoreOptions = {}): { store: RedisCacheStore, prefix: string } {
  const prefix = uniquePrefix()
  const client = new Cluster(cluster.startupNodes, FAIL_FAST_CLUSTER_OPTIONS)
  const store = new RedisCacheStore({ client, keyPrefix: prefix, timeoutMs: HEALTHY_TIMEOUT_MS, ...options })
  t.after(async () => {
    await store.close()
    client.disconnect()
  })
  return { store, prefix }
}

const slotOf = async (key: string): Promise<number> => Number(await admin.call('CLUSTER', 'KEYSLOT', key))
const tagged = (tags: string): ReturnType<typeof cacheValue> => cacheValue({ headers: { 'cache-tags': tags } })

describe('RedisCacheStore on a Redis Cluster: key layout', () => {
  it('puts the index, every variant and the lease of a URL in one slot, whatever braces the URL holds', async () => {
    const layout = keyLayout('conduit:cache:', true)
    for (const path of ['/', '/a?b={c}', '/}{', '/{x}/{y}']) {
      const slots = new Set([
        await slotOf(urlKey(layout, 'http://h', path)),
        await slotOf(variantKey(layout, 'http://h', path, variantSuffix('GET', undefined))),
        await slotOf(variantKey(layout, 'http://h', path, variantSuffix('GET', { accept: 'x' }))),
        await slotOf(leaseKey(layout, 'GET', 'http://h', path))
      ])
      assert.equal(slots.size, 1, `keys of ${path} span slots ${[...slots].join(', ')}`)
    }
  })

  it('spreads different URLs over the slots (and so over the primaries)', async () => {
    const layout = keyLayout('conduit:cache:', true)
    const slots = new Set<number>()
    for (let i = 0; i < 50; i++) slots.add(await slotOf(urlKey(layout, 'http://h', `/${i}`)))
    assert.ok(slots.size > 40, `50 URLs fell in ${slots.size} slots`)
  })

  it('stores and reads back URLs with braces in them', async (t) => {
    const { store } = newStore(t)
    for (const path of ['/a?b={c}', '/}{', '/{x}']) {
      await writeEntry(store, cacheKey(path), cacheValue(), [path])
      assert.equal(String((await store.get(cacheKey(path)))?.body), path)
    }
  })
})

describe('RedisCacheStore on a Redis Cluster: tags across slots', () => {
  it('deleteTags removes every tagged response on every slot and leaves the others', async (t) => {
    const { store } = newStore(t)
    // More than one sweep batch, so the sweep takes several rounds.
    const paths = Array.from({ length: 300 }, (_, i) => `/tagged/${i}`)
    await Promise.all(paths.map(async (path, i) => await writeEntry(store, cacheKey(path), tagged(i % 2 === 0 ? 'even, all' : 'odd, all'), [path])))
    await writeEntry(store, cacheKey('/untagged'), cacheValue(), ['u'])
    assert.equal(await store.deleteTags(['even']), true)
    for (const [i, path] of paths.entries()) {
      const found = await store.get(cacheKey(path))
      if (i % 2 === 0) assert.equal(found, undefined, `${path} survived`)
      else assert.equal(String(found?.body), path)
    }
    assert.equal(await store.deleteTags(['all']), true)
    for (const path of paths) assert.equal(await store.get(cacheKey(path)), undefined, `${path} survived`)
    assert.equal(String((await store.get(cacheKey('/untagged')))?.body), 'u')
  })

  it('removes only the tagged variant of a URL, and keeps a rewrite that no longer carries the tag', async (t) => {
    const { store } = newStore(t)
    const en = cacheKey('/variants', { 'accept-language': 'en' })
    const fr = cacheKey('/variants', { 'accept-language': 'fr' })
    await writeEntry(store, en, cacheValue({ vary: { 'accept-language': 'en' }, headers: { 'cache-tags': 'english' } }), ['en'])
    await writeEntry(store, fr, cacheValue({ vary: { 'accept-language': 'fr' } }), ['fr'])
    await writeEntry(store, cacheKey('/retagged'), tagged('old'), ['v1'])
    await writeEntry(store, cacheKey('/retagged'), tagged('new'), ['v2'])
    assert.equal(await store.deleteTags(['english', 'old']), true)
    assert.equal(await store.get(en), undefined)
    assert.equal(String((await store.get(fr))?.body), 'fr')
    assert.equal(String((await store.get(cacheKey('/retagged')))?.body), 'v2')
  })

  it('leaves no tag set behind once a tag was invalidated', async (t) => {
    const { store, prefix } = newStore(t)
    await writeEntry(store, cacheKey('/x'), tagged('gone'), ['x'])
    assert.equal(await admin.exists(`${prefix}t:gone`), 1)
    await store.deleteTags(['gone'])
    assert.equal(await admin.exists(`${prefix}t:gone`), 0)
  })
})

describe('RedisCacheStore on a Redis Cluster: bad input', () => {
  it('drops an entry larger than maxEntrySize without storing anything of it', async (t) => {
    const errors: Error[] = []
    const { store } = newStore(t, { maxEntrySize: 1024, errorCallback: (err) => errors.push(err) })
    const key = cacheKey('/big')
    const stream = store.createWriteStream(key, cacheValue())
    assert.ok(stream)
    const closed = new Promise((resolve) => stream.once('close', resolve))
    stream.write(Buffer.alloc(600))
    stream.write(Buffer.alloc(600))
    await closed
    assert.equal(stream.destroyed, true)
    assert.equal(await store.get(key), undefined)
    assert.deepEqual(errors, [])
  })

  it('refuses a keyPrefix with braces and a client with its own keyPrefix, naming the value', () => {
    const client = new Cluster(cluster.startupNodes, { lazyConnect: true })
    const prefixed = new Cluster(cluster.startupNodes, { lazyConnect: true, keyPrefix: 'app:' })
    try {
      assert.throws(() => new RedisCacheStore({ client, keyPrefix: 'cache:{tenant}:' }),
        (err: Error) => err instanceof TypeError && err.message.includes('"cache:{tenant}:"') && err.message.includes('hash slots'))
      assert.throws(() => new RedisCacheStore({ client: prefixed }),
        (err: Error) => err instanceof TypeError && err.message.includes('ioredis keyPrefix (got "app:")'))
    } finally {
      client.disconnect()
      prefixed.disconnect()
    }
  })
})
