/**
 * The `cacheStores` namespace: the cache stores shipped with conduit.
 * @module
 */

export type { CacheKey, CacheValue, GetResult, CacheStore, CacheControlDirectives } from '../src/handler.js'
export { MemoryCacheStore } from './memory-cache-store.js'
export type { MemoryCacheStoreOptions, MaxSizeExceededInfo } from './memory-cache-store.js'
export { RedisCacheStore } from './redis-cache-store.js'
export type { RedisCacheStoreOptions, RedisCoalesceOptions, RedisMemoryTierOptions } from './redis-cache-store.js'
export { SqliteCacheStore } from './sqlite-cache-store.js'
export type { SqliteCacheStoreOptions, SqliteStoreValue, SqliteDriverName } from './sqlite-cache-store.js'
