/**
 * Options of {@link RedisCacheStore}: their types, defaults and validation. Everything is checked
 * once, at construction, with a `TypeError` naming the option and the bad value.
 * @module
 */

import type { Cluster, Redis, RedisOptions } from 'ioredis'
import { assertNonNegativeInteger } from '../store-arguments.js'
import { MAX_TIMER_MS, STORE_OPTION_FAILURE, failOption } from '../../src/handler.js'
import { DEFAULT_KEY_PREFIX } from './key-layout.js'
import { DEFAULT_TIER_HEARTBEAT_MS, DEFAULT_TIER_MAX_COUNT, DEFAULT_TIER_MAX_SIZE } from './memory-tier.js'
import type { RedisMemoryTierOptions } from './memory-tier.js'
import type { CoalesceSettings } from './miss-leases.js'

/** The `coalesce` option of {@link RedisCacheStoreOptions} as an object. */
export interface RedisCoalesceOptions {
  /**
   * Longest a miss waits for the process fetching the same URL; past it, it fetches on its own.
   * @defaultValue `10000`
   */
  waitMs?: number
  /**
   * Life of the lease the fetching process holds; when it ends unreleased (the process died), a
   * waiting one takes over. Set it above the origin's usual response time.
   * @defaultValue `5000`
   */
  leaseMs?: number
}

/** Options of {@link RedisCacheStore} (all optional). */
export interface RedisCacheStoreOptions {
  /**
   * An ioredis client to use instead of creating one: a `Redis` or a `Cluster` (Redis Cluster;
   * see docs/cache.md, "Running on a cluster"). The store does not close it, and it must
   * not have ioredis' own `keyPrefix` set (use {@link RedisCacheStoreOptions.keyPrefix}). Its
   * retry and offline-queue settings are kept; the store's own time bound still applies. Its
   * `'error'` events also go to `errorCallback` while the store is open. The memory tier uses a
   * second connection made with `client.duplicate()`; the client itself is never put in tracking
   * or subscriber mode.
   * @defaultValue none: the store creates its client from `clientOptions`
   */
  client?: Redis | Cluster
  /**
   * Connection options (or a `redis://` URL) for the client the store creates, passed to ioredis
   * on top of the store's fail-fast defaults (`enableOfflineQueue: false`,
   * `maxRetriesPerRequest: 0`, `connectTimeout: 2000`, `disconnectTimeout: 100`), which they may
   * override.
   * @defaultValue `{ host: '127.0.0.1', port: 6379 }`
   */
  clientOptions?: RedisOptions | string
  /**
   * Prefix of every key the store writes. Stores sharing a prefix share their entries. With a
   * cluster client it must not contain `{` or `}`, which would change the keys' hash slots.
   * @defaultValue `'conduit:cache:'`
   */
  keyPrefix?: string
  /**
   * Maximum size of one response body in bytes; larger bodies are not cached. At most 512 MiB,
   * the largest value Redis accepts.
   * @defaultValue `5242880` (5 MiB)
   */
  maxEntrySize?: number
  /**
   * Receives every error of the store: connection errors (once per outage), failed or timed-out
   * operations (a `StoreTimeoutError`, code `LIB_ERR_STORE_TIMEOUT`), damaged entries. The store
   * itself never throws them at the cache interceptor; it answers "miss" or drops the write.
   * @defaultValue none: errors are written to the `conduit:cache` debug log
   */
  errorCallback?: (err: Error) => void
  /**
   * Response header listing the cache tags of a response (comma-separated), indexed for
   * {@link RedisCacheStore.deleteTags}; `null` turns tagging off.
   * @defaultValue `'cache-tags'`
   */
  tagsHeader?: string | null
  /**
   * The in-process tier in front of Redis (hits without a round trip, kept coherent by Redis
   * client-side tracking); `false` turns it off. Not available with a cluster client, where it is
   * off by default (tracking would need an invalidation connection per primary).
   * @defaultValue `{ maxCount: 1024, maxSize: 33554432, heartbeatMs: 1000 }`; `false` with a cluster client
   */
  memoryTier?: RedisMemoryTierOptions | false
  /**
   * Miss coalescing across processes and hosts: when several miss the same URL at once, one
   * fetches it from the origin while the others wait for the entry it stores. `true` takes the
   * default timings. Needs the cache interceptor (it tells the store when a response was not
   * storable, so nobody waits for it).
   * @defaultValue `false`
   */
  coalesce?: boolean | RedisCoalesceOptions
  /**
   * Longest wait for one Redis operation; past it `get` answers "miss" and a write is dropped.
   * @defaultValue `250`
   */
  timeoutMs?: number
  /**
   * After a timeout, how long the store leaves Redis alone (answering "miss" at once) before trying
   * again, so a stalled server costs one timeout per pause instead of one per request.
   * @defaultValue `1000`
   */
  pauseAfterTimeoutMs?: number
  /**
   * Clock in ms since the epoch, compared with `deleteAt`; injectable for tests.
   * @defaultValue `() => Date.now()`
   */
  now?: () => number
}

/** Largest body Redis accepts in one value (`proto-max-bulk-len` default). */
export const MAX_REDIS_ENTRY_SIZE = 512 * 1024 * 1024
/** Default {@link RedisCacheStoreOptions.maxEntrySize}. */
export const DEFAULT_MAX_ENTRY_SIZE = 5 * 1024 * 1024
/** Default {@link RedisCoalesceOptions.waitMs}. */
export const DEFAULT_COALESCE_WAIT_MS = 10_000
/** Default {@link RedisCoalesceOptions.leaseMs}. */
export const DEFAULT_COALESCE_LEASE_MS = 5000
/** Default {@link RedisCacheStoreOptions.tagsHeader}. */
export const DEFAULT_TAGS_HEADER = 'cache-tags'
/** Default {@link RedisCacheStoreOptions.timeoutMs}. */
export const DEFAULT_TIMEOUT_MS = 250
/** Default {@link RedisCacheStoreOptions.pauseAfterTimeoutMs}. */
export const DEFAULT_PAUSE_AFTER_TIMEOUT_MS = 1000
/** Connection settings of a store-created client: fail fast instead of queueing while Redis is away. */
export const FAIL_FAST_CLIENT_OPTIONS: RedisOptions = {
  host: '127.0.0.1',
  port: 6379,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2000,
  // ioredis arms this timer even when closing an already broken socket, keeping the process alive.
  disconnectTimeout: 100
}

/** Options after defaults and validation. */
export interface ResolvedOptions {
  client: Redis | Cluster | undefined
  /** True when the client is a Redis Cluster client. */
  cluster: boolean
  clientOptions: RedisOptions | string | undefined
  keyPrefix: string
  maxEntrySize: number
  errorCallback: ((err: Error) => void) | undefined
  tagsHeader: string | null
  tier: { maxCount: number, maxSize: number, heartbeatMs: number } | undefined
  coalesce: CoalesceSettings | undefined
  timeoutMs: number
  pauseAfterTimeoutMs: number
  now: () => number
}

const OWNER = 'RedisCacheStore'

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

function positiveInteger (name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    failOption(OWNER, name, 'a positive integer', value, STORE_OPTION_FAILURE)
  }
  return value
}

/** A positive integer that is used as a timer delay, so it must fit in one. */
function timerDelay (name: string, value: unknown, fallback: number): number {
  const ms = positiveInteger(name, value, fallback)
  if (ms > MAX_TIMER_MS) failOption(OWNER, name, `at most ${MAX_TIMER_MS} (milliseconds)`, ms, STORE_OPTION_FAILURE)
  return ms
}

/** ioredis' own key prefix of a client: `options.keyPrefix`, or a cluster's `redisOptions.keyPrefix`. */
function clientKeyPrefix (client: Redis | Cluster): unknown {
  const options = client.options as { keyPrefix?: unknown, redisOptions?: { keyPrefix?: unknown } } | undefined
  return options?.keyPrefix ?? options?.redisOptions?.keyPrefix
}

function resolveClient (value: unknown): Redis | Cluster | undefined {
  if (value === undefined) return undefined
  const client = value as Redis
  if (!isObject(value) || typeof client.duplicate !== 'function' || typeof client.call !== 'function') {
    failOption(OWNER, 'client', 'an ioredis client', value, STORE_OPTION_FAILURE)
  }
  const prefix = clientKeyPrefix(client)
  if (typeof prefix === 'string' && prefix !== '') {
    throw new TypeError(`${OWNER}: client must not have an ioredis keyPrefix (got ${JSON.stringify(prefix)}); use the store's keyPrefix option`)
  }
  return client
}

function resolveCoalesce (value: unknown): CoalesceSettings | undefined {
  if (value === undefined || value === false) return undefined
  if (value !== true && !isObject(value)) failOption(OWNER, 'coalesce', 'a boolean or an object', value, STORE_OPTION_FAILURE)
  const o = value === true ? {} : value
  return {
    waitMs: timerDelay('coalesce.waitMs', o.waitMs, DEFAULT_COALESCE_WAIT_MS),
    leaseMs: timerDelay('coalesce.leaseMs', o.leaseMs, DEFAULT_COALESCE_LEASE_MS)
  }
}

function resolveClientOptions (value: unknown): RedisOptions | string | undefined {
  if (value === undefined || typeof value === 'string') return value
  if (!isObject(value)) failOption(OWNER, 'clientOptions', 'an object or a redis:// URL', value, STORE_OPTION_FAILURE)
  if (typeof value.keyPrefix === 'string' && value.keyPrefix !== '') {
    throw new TypeError(`${OWNER}: clientOptions.keyPrefix is not supported (got ${JSON.stringify(value.keyPrefix)}); use the store's keyPrefix option`)
  }
  return value as RedisOptions
}

function resolveTier (value: unknown): ResolvedOptions['tier'] {
  if (value === false) return undefined
  if (value !== undefined && !isObject(value)) {
    failOption(OWNER, 'memoryTier', 'an object or false', value, STORE_OPTION_FAILURE)
  }
  return {
    maxCount: positiveInteger('memoryTier.maxCount', value?.maxCount, DEFAULT_TIER_MAX_COUNT),
    maxSize: positiveInteger('memoryTier.maxSize', value?.maxSize, DEFAULT_TIER_MAX_SIZE),
    heartbeatMs: timerDelay('memoryTier.heartbeatMs', value?.heartbeatMs, DEFAULT_TIER_HEARTBEAT_MS)
  }
}

/** Applies defaults and validates; throws a `TypeError` naming the first bad option. */
export function resolveOptions (options: unknown): ResolvedOptions {
  if (options !== undefined && !isObject(options)) {
    failOption(OWNER, 'options', 'an object', options, STORE_OPTION_FAILURE)
  }
  const o = (options ?? {}) as Record<string, unknown>
  const client = resolveClient(o.client)
  const clientOptions = resolveClientOptions(o.clientOptions)
  if (client !== undefined && clientOptions !== undefined) {
    throw new TypeError(`${OWNER}: give either client or clientOptions, not both`)
  }
  const keyPrefix = o.keyPrefix ?? DEFAULT_KEY_PREFIX
  if (typeof keyPrefix !== 'string' || keyPrefix === '') {
    failOption(OWNER, 'keyPrefix', 'a non-empty string', keyPrefix, STORE_OPTION_FAILURE)
  }
  const cluster = (client as { isCluster?: unknown } | undefined)?.isCluster === true
  if (cluster && /[{}]/.test(keyPrefix)) {
    throw new TypeError(`${OWNER}: keyPrefix must not contain "{" or "}" with a cluster client (got ${JSON.stringify(keyPrefix)}): it would put a URL's keys in different hash slots`)
  }
  if (cluster && o.memoryTier !== undefined && o.memoryTier !== false) {
    throw new TypeError(`${OWNER}: memoryTier is not available with a cluster client; leave it out or pass false`)
  }
  const maxEntrySize = assertNonNegativeInteger(OWNER, 'maxEntrySize', o.maxEntrySize, DEFAULT_MAX_ENTRY_SIZE)
  if (maxEntrySize > MAX_REDIS_ENTRY_SIZE) {
    failOption(OWNER, 'maxEntrySize', `at most ${MAX_REDIS_ENTRY_SIZE}`, maxEntrySize, STORE_OPTION_FAILURE)
  }
  if (o.errorCallback !== undefined && typeof o.errorCallback !== 'function') {
    failOption(OWNER, 'errorCallback', 'a function', o.errorCallback, STORE_OPTION_FAILURE)
  }
  const tagsHeader = o.tagsHeader === undefined ? DEFAULT_TAGS_HEADER : o.tagsHeader
  if (tagsHeader !== null && (typeof tagsHeader !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9a-z]+$/i.test(tagsHeader))) {
    failOption(OWNER, 'tagsHeader', 'a header name or null', tagsHeader, STORE_OPTION_FAILURE)
  }
  if (o.now !== undefined && typeof o.now !== 'function') {
    failOption(OWNER, 'now', 'a function', o.now, STORE_OPTION_FAILURE)
  }
  return {
    client,
    cluster,
    clientOptions,
    keyPrefix,
    maxEntrySize,
    errorCallback: o.errorCallback as ((err: Error) => void) | undefined,
    tagsHeader: tagsHeader === null ? null : tagsHeader.toLowerCase(),
    tier: cluster ? undefined : resolveTier(o.memoryTier),
    coalesce: resolveCoalesce(o.coalesce),
    timeoutMs: timerDelay('timeoutMs', o.timeoutMs, DEFAULT_TIMEOUT_MS),
    pauseAfterTimeoutMs: assertNonNegativeInteger(OWNER, 'pauseAfterTimeoutMs', o.pauseAfterTimeoutMs, DEFAULT_PAUSE_AFTER_TIMEOUT_MS),
    now: (o.now as (() => number) | undefined) ?? (() => Date.now())
  }
}
