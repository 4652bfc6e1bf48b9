import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Cluster } from 'ioredis'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import { keyLayout, urlKey } from '../../../stores/redis/key-layout.js'
import { writeEntry } from '../../../src/testing/cache-store-contract.js'
import { FAIL_FAST_CLUSTER_OPTIONS, startRedisCluster } from '../../helpers/redis-cluster.js'
import type { TestRedisCluster } from '../../helpers/redis-cluster.js'
import { cacheKey, cacheValue, eventually, uniquePrefix } from './redis-cache-store-fixtures.js'

// Outages are the point here: a short bound, yet far above a healthy answer on a loaded machine.
const TIMEOUT_MS = 1000

let cluster: TestRedisCluster

before(async () => {
  cluster = await startRedisCluster(1000)
})

after(async () => {
  await cluster?.close()
})

async function primaryOfSlot (slot: number): Promise<number> {
  const ports = await cluster.primaryPorts()
  for (const port of ports) {
    const nodes = (await cluster.cli(port, 'CLUSTER', 'NODES')).split('\n').find((line) => line.includes('myself'))
    for (const range of (nodes ?? '').split(' ').slice(8)) {
      const [low, high = low] = range.split('-').map(Number) as [number, number?]
      if (slot >= low && slot <= (high as number)) return port
    }
  }
  throw new Error(`no primary serves slot ${slot}`)
}

describe('RedisCacheStore on a Redis Cluster: outages', () => {
  it('answers "miss" and logs it while a slot is uncovered, and hits again once it is covered', async (t) => {
    const prefix = uniquePrefix()
    const errors: Error[] = []
    const client = new Cluster(cluster.startupNodes, FAIL_FAST_CLUSTER_OPTIONS)
    const store = new RedisCacheStore({ client, keyPrefix: prefix, timeoutMs: TIMEOUT_MS, pauseAfterTimeoutMs: 0, errorCallback: (err) => errors.push(err) })
    t.after(async () => {
      await store.close()
      client.disconnect()
    })
    const key = cacheKey('/uncovered')
    await writeEntry(store, key, cacheValue(), ['body'])
    const slot = Number(await cluster.cli(cluster.nodes[0]?.port as number, 'CLUSTER', 'KEYSLOT', urlKey(keyLayout(prefix, true), key.origin, key.path)))
    const owner = await primaryOfSlot(slot)
    assert.match(await cluster.cli(owner, 'CLUSTER', 'DELSLOTS', String(slot)), /OK/)
    await eventually('the store answers "miss" for the uncovered slot', async () => await store.get(key) === undefined, 20_000)
    assert.ok(errors.length > 0, 'the failure was not reported')
    // A write there is dropped, not thrown.
    await writeEntry(store, cacheKey('/uncovered'), cacheValue(), ['other'])
    assert.match(await cluster.cli(owner, 'CLUSTER', 'ADDSLOTS', String(slot)), /OK/)
    await cluster.waitHealthy()
    await eventually('hits resume', async () => String((await store.get(key))?.body) === 'body', 20_000)
  })

  it('fails open while the whole cluster is down: misses, dropped writes, no crash, close() returns', async (t) => {
    const errors: Error[] = []
    const client = new Cluster(cluster.startupNodes, FAIL_FAST_CLUSTER_OPTIONS)
    const store = new RedisCacheStore({ client, keyPrefix: uniquePrefix(), timeoutMs: TIMEOUT_MS, errorCallback: (err) => errors.push(err), coalesce: { waitMs: 500, leaseMs: 500 } })
    t.after(() => client.disconnect())
    const key = cacheKey('/down')
    await writeEntry(store, key, cacheValue(), ['body'])
    assert.equal(String((await store.get(key))?.body), 'body')
    for (const node of cluster.nodes) await cluster.kill(node.port)
    await eventually('the store answers "miss"', async () => await store.get(key) === undefined, 20_000)
    const stream = store.createWriteStream(cacheKey('/down-2'), cacheValue())
    if (stream !== undefined) {
      const finished = new Promise((resolve) => stream.once('close', resolve))
      stream.end('x')
      await finished
    }
    assert.equal(await store.deleteTags(['a']), false)
    assert.ok(errors.length > 0)
    await store.close()
  })
})
