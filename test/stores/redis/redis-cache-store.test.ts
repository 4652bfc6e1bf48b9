import { after, before } from 'node:test'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import { startRedisServer } from '../../helpers/redis-server.js'
import type { TestRedis } from '../../helpers/redis-server.js'
import { runCacheStoreContract } from '../../../src/testing/cache-store-contract.js'
import { HEALTHY_TIMEOUT_MS, uniquePrefix } from './redis-cache-store-fixtures.js'

let redis: TestRedis

before(async () => {
  redis = await startRedisServer()
})

after(async () => {
  await redis?.close()
})

runCacheStoreContract('RedisCacheStore with its memory tier (cache store contract)', () => {
  const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), timeoutMs: HEALTHY_TIMEOUT_MS })
  return { store, cleanup: () => store.close() }
})

runCacheStoreContract('RedisCacheStore without memory tier (cache store contract)', () => {
  const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: uniquePrefix(), memoryTier: false, timeoutMs: HEALTHY_TIMEOUT_MS })
  return { store, cleanup: () => store.close() }
})
