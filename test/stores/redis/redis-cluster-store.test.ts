import { after, before } from 'node:test'
import { Cluster } from 'ioredis'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import type { RedisCacheStoreOptions } from '../../../stores/redis-cache-store.js'
import { FAIL_FAST_CLUSTER_OPTIONS, startRedisCluster } from '../../helpers/redis-cluster.js'
import type { TestRedisCluster } from '../../helpers/redis-cluster.js'
import { runCacheStoreContract } from '../../../src/testing/cache-store-contract.js'
import type { ContractStore } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, uniquePrefix } from './redis-cache-store-fixtures.js'

let cluster: TestRedisCluster

before(async () => {
  cluster = await startRedisCluster()
})

after(async () => {
  await cluster?.close()
})

/** A store on its own cluster client, which its cleanup disconnects. */
function clusterStore (options: RedisCacheStoreOptions = {}): ContractStore {
  const client = new Cluster(cluster.startupNodes, FAIL_FAST_CLUSTER_OPTIONS)
  const store = new RedisCacheStore({ client, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS, ...options })
  return {
    store,
    cleanup: async () => {
      await store.close()
      client.disconnect()
    }
  }
}

runCacheStoreContract('RedisCacheStore on a Redis Cluster (cache store contract)', () => clusterStore())

runCacheStoreContract('RedisCacheStore on a Redis Cluster with coalescing (cache store contract)', () =>
  clusterStore({ coalesce: { waitMs: 2000, leaseMs: 1000 } }))
