/**
 * {@link RedisCacheStore}: one HTTP cache shared by every process and host that points at the same
 * Redis (or Valkey), with an optional coherent in-process tier in front and invalidation by tag.
 * @module
 */

import { randomBytes } from 'node:crypto'
import { debuglog } from 'node:util'
import type { Writable } from 'node:stream'
import type { Cluster, Redis } from 'ioredis'
import { STORE_OPTION_FAILURE, failOption } from '../src/handler.js'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../src/handler.js'
import { assertCacheValue, assertKey, describeValue } from './store-arguments.js'
import { varyMatches } from './vary-match.js'
import { decodeMeta, encodeMeta, parseTags } from './redis/entry-codec.js'
import type { StoredMeta } from './redis/entry-codec.js'
import { FailOpen } from './redis/fail-open.js'
import { BODY_FIELD, META_FIELD, keyLayout, leaseKey, methodFieldPrefix, tagKey, urlKey, urlTail, variantKey, variantSuffix } from './redis/key-layout.js'
import { deleteTagsAcrossSlots, registerTags } from './redis/cluster-tags.js'
import { MissLeases } from './redis/miss-leases.js'
import type { KeyLayout } from './redis/key-layout.js'
import { loadIoredis } from './redis/load-ioredis.js'
import { MemoryTier } from './redis/memory-tier.js'
import type { ReadTicket, TierVariant } from './redis/memory-tier.js'
import { FAIL_FAST_CLIENT_OPTIONS, resolveOptions } from './redis/options.js'
import type { RedisCacheStoreOptions, ResolvedOptions } from './redis/options.js'
import { DELETE_SCRIPT, DELETE_TAGS_SCRIPT, MAX_VARIANTS_PER_URL, READ_SCRIPT, WRITE_SCRIPT, runScript } from './redis/scripts.js'
import { Tracking } from './redis/tracking.js'
import { RedisWriteStream } from './redis/write-stream.js'

export type { RedisCacheStoreOptions, RedisCoalesceOptions } from './redis/options.js'
export type { RedisMemoryTierOptions } from './redis/memory-tier.js'

const log = debuglog('conduit:cache')

function toResult (meta: StoredMeta, body: Buffer): GetResult {
  // The metadata object may be held by the memory tier: hand out copies the caller may change.
  return { ...meta.value, headers: { ...meta.value.headers }, body }
}

/** The live variant answering `key`, newest first when several could. */
function pick<T extends { meta: StoredMeta }> (variants: T[], key: CacheKey, now: number): T | undefined {
  let best: T | undefined
  for (const v of variants) {
    const value = v.meta.value
    if (value.deleteAt <= now || !varyMatches(value.vary, key.headers)) continue
    if (best === undefined || value.cachedAt > best.meta.value.cachedAt) best = v
  }
  return best
}

/**
 * A cache store on Redis (or Valkey), shared by every process that uses the same server and
 * `keyPrefix`: a response cached by one instance of a service is a hit in all the others.
 *
 * - Layout: each variant (method and `Vary` values) is a hash of its own holding metadata and
 *   body, expiring in Redis at its `deleteAt`; a per-URL index names the variants and expires
 *   with the longest-lived one, so there is no sweeper. Lua scripts write variant and index
 *   together (a reader never sees metadata without its body) and let `delete` remove every
 *   variant of the URL at once.
 * - Memory tier (on by default): hits are served from process memory. Coherence across hosts
 *   uses Redis client-side caching in broadcast mode on a second, dedicated connection
 *   subscribed to `__redis__:invalidate`: it needs no server configuration (keyspace
 *   notifications need `notify-keyspace-events`, often locked on managed Redis) and reports
 *   expiry, eviction and flushes too. While tracking is not confirmed, the tier is bypassed.
 *   Changes are seen by other hosts within a round trip, not atomically: a host may serve the
 *   previous response for that long. This process's own writes and deletes apply at once.
 * - Tags: responses carrying the `tagsHeader` header are indexed; {@link deleteTags} removes them
 *   for every host.
 * - Fails open: while Redis is down or slow, `get` answers "miss" within `timeoutMs`,
 *   `createWriteStream` drops the entry, errors go to `errorCallback`, and ioredis reconnects by
 *   itself; hits resume when Redis is back.
 *
 * - Miss coalescing (`coalesce`, off by default): one process fetches a URL many miss at once.
 * - Redis Cluster: pass an ioredis `Cluster` as `client`. All keys of one URL share a hash slot,
 *   so reads and writes stay one atomic script; tags are invalidated slot by slot
 *   (`stores/redis/cluster-tags.ts`); the memory tier is not available.
 *
 * Built on ioredis (optional dependency): Redis and Valkey, Sentinel, Cluster, TLS, automatic
 * reconnection, binary-safe replies and a per-command offline-queue switch, which failing open
 * relies on.
 *
 * @example
 * ```ts
 * import { Agent, interceptors, cacheStores } from 'conduit'
 *
 * const store = new cacheStores.RedisCacheStore({ clientOptions: 'redis://127.0.0.1:6379' })
 * const agent = new Agent().compose(interceptors.cache({ store }))
 * // later, on any host: drop everything the origin tagged "product-42"
 * await store.deleteTags(['product-42'])
 * ```
 */
export class RedisCacheStore implements CacheStore {
  #options: ResolvedOptions
  #layout: KeyLayout
  #client: Redis | Cluster
  #ownsClient: boolean
  #subscriber: Redis | undefined
  #tier: MemoryTier | undefined
  #tracking: Tracking | undefined
  #failOpen: FailOpen
  #leases: MissLeases | undefined
  #closed = false
  /** Pending until the first 'ready'; undefined afterwards (outages then fail fast). */
  #firstConnection: Promise<void> | undefined
  #outageReported = false
  #onConnectionError = (err: Error): void => {
    if (this.#outageReported || this.#closed) return
    this.#outageReported = true
    this.#report(err)
  }

  #onFirstReady: (() => void) | undefined
  #onReady = (): void => {
    this.#outageReported = false
    this.#firstConnection = undefined
    this.#onFirstReady?.()
    this.#onFirstReady = undefined
  }

  /** Throws a `TypeError` naming a bad option, or a `NotSupportedError` when ioredis is missing. */
  constructor (options?: RedisCacheStoreOptions) {
    const o = this.#options = resolveOptions(options)
    this.#layout = keyLayout(o.keyPrefix, o.cluster)
    if (o.client !== undefined) {
      this.#client = o.client
      this.#ownsClient = false
    } else {
      const Redis = loadIoredis()
      const given = o.clientOptions
      this.#client = typeof given === 'string'
        ? new Redis(given, { ...FAIL_FAST_CLIENT_OPTIONS, host: undefined, port: undefined })
        : new Redis({ ...FAIL_FAST_CLIENT_OPTIONS, ...given, lazyConnect: false })
      this.#ownsClient = true
    }
    // A lazy client would wait for a first command that, without an offline queue, never goes out.
    if (this.#client.status === 'wait') this.#client.connect().catch(() => {})
    this.#client.on('error', this.#onConnectionError)
    this.#client.on('ready', this.#onReady)
    if (this.#client.status !== 'ready') {
      // Waiters are all bounded by their own deadline; an abandoned promise holds nothing open.
      this.#firstConnection = new Promise<void>((resolve) => { this.#onFirstReady = resolve })
    }
    this.#failOpen = new FailOpen({
      timeoutMs: o.timeoutMs,
      pauseMs: o.pauseAfterTimeoutMs,
      ready: () => this.#client.status === 'ready',
      firstConnection: () => this.#firstConnection,
      now: o.now,
      report: (err) => this.#report(err)
    })
    if (o.coalesce !== undefined) {
      this.#leases = new MissLeases(this.#client, this.#failOpen, o.coalesce, `${o.keyPrefix}leases`, (err) => this.#onConnectionError(err))
    }
    if (o.tier !== undefined) {
      const tier = this.#tier = new MemoryTier(o.tier.maxCount, o.tier.maxSize)
      // Only a standalone client gets here: options refuse a memory tier on a cluster.
      const subscriber = this.#subscriber = (this.#client as Redis).duplicate({
        autoResubscribe: false,
        enableOfflineQueue: true,
        lazyConnect: false,
        disconnectTimeout: FAIL_FAST_CLIENT_OPTIONS.disconnectTimeout
      })
      subscriber.on('error', this.#onConnectionError)
      this.#tracking = new Tracking(subscriber, this.#layout.urlPrefix, tier, (err) => this.#report(err), {
        heartbeatMs: o.tier.heartbeatMs,
        timeoutMs: o.timeoutMs
      })
    }
  }

  #report (err: Error): void {
    const callback = this.#options.errorCallback
    if (callback === undefined) {
      log('redis store error: %s', err.message)
      return
    }
    try {
      callback(err)
    } catch (callbackError) {
      // A throwing callback must not break the cache; keep a trace of it.
      log('redis store errorCallback threw: %s', (callbackError as Error).message)
    }
  }

  /** True while the memory tier serves hits, i.e. while invalidations from Redis are confirmed. */
  get memoryTierActive (): boolean {
    return this.#tier?.active ?? false
  }

  /**
   * The stored response for `key`: synchronously from the memory tier when it holds the URL,
   * otherwise a promise. `undefined` on a miss, an expired entry, or while Redis is unreachable.
   */
  get (key: CacheKey): GetResult | undefined | Promise<GetResult | undefined> {
    assertKey('RedisCacheStore.get', key)
    if (this.#closed) return undefined
    const k = urlKey(this.#layout, key.origin, key.path)
    const now = this.#options.now()
    const held = this.#tier?.lookup(k, key.method)
    if (held !== undefined) {
      const variant = pick(held, key, now)
      if (variant === undefined) return undefined
      if (variant.body !== undefined) return toResult(variant.meta, variant.body)
      return this.#readBody(k, key, variant.meta)
    }
    const read = this.#read(k, key)
    return this.#leases === undefined ? read : read.then((found) => found ?? this.#coalescedMiss(k, key))
  }

  /**
   * A miss with coalescing on: takes the URL's lease and answers "miss" (this process fetches), or
   * waits for the process that holds it and answers with what it stored. Falls back to "miss"
   * when the wait times out, the response was not storable, or Redis cannot say.
   */
  async #coalescedMiss (k: string, key: CacheKey): Promise<GetResult | undefined> {
    const leases = this.#leases as MissLeases
    const lease = leaseKey(this.#layout, key.method, key.origin, key.path)
    const deadline = this.#options.now() + leases.settings.waitMs
    for (;;) {
      const left = deadline - this.#options.now()
      if (this.#closed || left <= 0) return undefined
      const taken = await leases.acquire(k, lease)
      if (taken === 'stored') return await this.#read(k, key)
      if (taken !== 'held') return undefined
      const outcome = await leases.wait(lease, left)
      if (outcome === 'timeout') return undefined
      const found = await this.#read(k, key)
      // 'expired': the leaseholder died or its lease ran out; the next turn takes it over.
      if (found !== undefined || outcome !== 'expired') return found
    }
  }

  /**
   * Told by the cache interceptor how the fetch of a miss ended: when nothing was stored, the
   * processes waiting on this one's lease are freed to fetch on their own at once.
   */
  missSettled (key: CacheKey, stored: boolean): void {
    assertKey('RedisCacheStore.missSettled', key)
    const lease = leaseKey(this.#layout, key.method, key.origin, key.path)
    void this.#leases?.release(lease, stored ? 'filled' : 'abandoned')
  }

  #ticket (k: string): ReadTicket | undefined {
    return this.#tier?.active === true ? this.#tier.begin(k) : undefined
  }

  #decode (suffix: string, stored: Buffer): StoredMeta | undefined {
    try {
      return decodeMeta(suffix, stored.toString())
    } catch (err) {
      this.#report(err as Error)
      return undefined
    }
  }

  async #read (k: string, key: CacheKey): Promise<GetResult | undefined> {
    const ticket = this.#ticket(k)
    const reply = await this.#failOpen.run('get', () =>
      runScript(this.#client, READ_SCRIPT, [k], [methodFieldPrefix(key.method), this.#layout.variantPrefix, urlTail(this.#layout, key.origin, key.path)], true)) as Array<Buffer | null> | undefined
    if (reply === undefined) {
      if (ticket !== undefined) this.#tier?.release(ticket)
      return undefined
    }
    const variants: TierVariant[] = []
    const single = reply.length === 3
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const meta = this.#decode(String(reply[i]), reply[i + 1] as Buffer)
      if (meta !== undefined) variants.push({ meta, body: single ? (reply[0] ?? undefined) : undefined })
    }
    if (ticket !== undefined) this.#tier?.commit(ticket, key.method, variants)
    const variant = pick(variants, key, this.#options.now())
    if (variant === undefined) return undefined
    if (variant.body !== undefined) return toResult(variant.meta, variant.body)
    return this.#readBody(k, key, variant.meta)
  }

  /** Second round trip when a method has several variants: metadata and body re-read together. */
  async #readBody (k: string, key: CacheKey, chosen: StoredMeta): Promise<GetResult | undefined> {
    const ticket = this.#ticket(k)
    const reply = await this.#failOpen.run('get', () =>
      this.#client.hmgetBuffer(variantKey(this.#layout, key.origin, key.path, chosen.suffix), META_FIELD, BODY_FIELD))
    const [stored, body] = reply ?? []
    const meta = stored == null ? undefined : this.#decode(chosen.suffix, stored)
    if (meta === undefined || body == null) {
      if (ticket !== undefined) this.#tier?.release(ticket)
      return undefined
    }
    if (ticket !== undefined) this.#tier?.commitBody(ticket, key.method, meta, body)
    // Same suffix means same method and Vary values, so the re-read variant still answers the key.
    if (meta.value.deleteAt <= this.#options.now()) return undefined
    return toResult(meta, body)
  }

  /**
   * A stream for the response body; the entry is written to Redis when it finishes. `undefined`
   * when the response cannot be stored: `deleteAt` already passed, or Redis is unreachable.
   */
  createWriteStream (key: CacheKey, value: CacheValue): Writable | undefined {
    assertKey('RedisCacheStore.createWriteStream', key)
    assertCacheValue('RedisCacheStore.createWriteStream', value)
    if (this.#closed || !this.#failOpen.available) return undefined
    if (value.deleteAt <= this.#options.now()) return undefined
    const k = urlKey(this.#layout, key.origin, key.path)
    const suffix = variantSuffix(key.method, value.vary ?? undefined)
    const vk = variantKey(this.#layout, key.origin, key.path, suffix)
    const writeId = randomBytes(6).toString('hex')
    // Encoded now, so changes the caller makes to `value` afterwards do not reach the cache.
    const meta = encodeMeta(value, writeId)
    const tags = parseTags(value.headers, this.#options.tagsHeader)
    const deleteAt = value.deleteAt
    return new RedisWriteStream(this.#options.maxEntrySize, async (body) => {
      const now = this.#options.now()
      const ttl = Math.ceil(deleteAt - now)
      if (this.#closed || ttl <= 0) return
      const tagKeys = tags.map((tag) => tagKey(this.#layout, tag))
      const member = `${suffix}\n${writeId}\n${k}`
      const args = [suffix, writeId, meta, body, ttl, member, MAX_VARIANTS_PER_URL, this.#layout.variantPrefix, urlTail(this.#layout, key.origin, key.path)]
      const lease = leaseKey(this.#layout, key.method, key.origin, key.path)
      if (this.#options.cluster && tagKeys.length > 0) {
        // Tag sets live in other slots: registered first, or the entry is not written at all.
        if (!await registerTags({ client: this.#client, failOpen: this.#failOpen, layout: this.#layout }, tagKeys, member, ttl)) {
          await this.#leases?.release(lease, 'abandoned')
          return
        }
      }
      const written = await this.#failOpen.run('write', () =>
        runScript(this.#client, WRITE_SCRIPT, this.#options.cluster ? [k, vk] : [k, vk, ...tagKeys], args, false))
      this.#tier?.invalidate(k)
      await this.#leases?.release(lease, written === undefined ? 'abandoned' : 'filled')
    })
  }

  /** Removes every response stored for the key's origin and path (all methods and variants). */
  delete (key: CacheKey): Promise<void> {
    assertKey('RedisCacheStore.delete', key)
    return this.#delete(urlKey(this.#layout, key.origin, key.path), urlTail(this.#layout, key.origin, key.path))
  }

  async #delete (k: string, tail: string): Promise<void> {
    if (this.#closed) return
    this.#tier?.invalidate(k)
    await this.#failOpen.run('delete', () => runScript(this.#client, DELETE_SCRIPT, [k], [this.#layout.variantPrefix, tail], false))
    this.#tier?.invalidate(k)
  }

  /**
   * Removes, on every host, each response that carried one of `tags` in its `tagsHeader` header.
   * Resolves `true` once Redis applied it, `false` when Redis could not be reached in time (the
   * error, if any, went to `errorCallback`).
   */
  deleteTags (tags: readonly string[]): Promise<boolean> {
    if (!Array.isArray(tags)) failOption('RedisCacheStore.deleteTags', 'tags', 'an array of non-empty strings', tags, STORE_OPTION_FAILURE)
    const bad = tags.findIndex((tag) => typeof tag !== 'string' || tag.trim() === '')
    if (bad !== -1) {
      throw new TypeError(`RedisCacheStore.deleteTags: tags must be an array of non-empty strings, got ${describeValue(tags[bad])} at index ${bad}`)
    }
    return this.#deleteTags([...new Set(tags.map((tag) => tagKey(this.#layout, tag.trim())))])
  }

  async #deleteTags (keys: string[]): Promise<boolean> {
    if (this.#closed) return false
    if (keys.length === 0) return true
    if (this.#options.cluster) {
      const swept = await deleteTagsAcrossSlots({ client: this.#client, failOpen: this.#failOpen, layout: this.#layout }, keys)
      return swept.ok
    }
    const touched = await this.#failOpen.run('deleteTags', () =>
      runScript(this.#client, DELETE_TAGS_SCRIPT, keys, [this.#layout.urlPrefix, this.#layout.variantPrefix], false)) as string[] | undefined
    if (touched === undefined) return false
    // Invalidations from Redis arrive asynchronously; this process must not serve them even once.
    for (const k of touched) this.#tier?.invalidate(k)
    return true
  }

  /**
   * Stops tracking and closes the connections the store opened (not a `client` passed in),
   * waiting at most `timeoutMs` for commands in flight.
   */
  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#firstConnection = undefined
    this.#onFirstReady?.()
    this.#tracking?.stop()
    this.#leases?.close()
    this.#client.off('ready', this.#onReady)
    this.#subscriber?.disconnect()
    if (this.#ownsClient) {
      // QUIT lets commands in flight finish, but a stalled server must not make close() hang.
      if (this.#client.status === 'ready') await this.#failOpen.settle(this.#client.quit())
      this.#client.disconnect()
    }
    // Closed connections may still emit; only a borrowed client gets its listener back.
    if (!this.#ownsClient) this.#client.off('error', this.#onConnectionError)
  }
}
