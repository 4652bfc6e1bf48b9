/**
 * Runs cache interceptor tests once per shipped store (memory, SQLite on a file, Redis through a
 * real redis-server), so each RFC 9111 rule is shown to hold whatever the store. Stores are
 * wrapped so a test can wait until every write the cache started has been committed: SQLite and
 * Redis commit after the response has already reached the caller.
 */

import { after, before, describe } from 'node:test'
import type { TestContext } from 'node:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../../../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../../../stores/memory-cache-store.js'
import { SqliteCacheStore } from '../../../stores/sqlite-cache-store.js'
import { RedisCacheStore } from '../../../stores/redis-cache-store.js'
import { startRedisServer } from '../../helpers/redis-server.js'
import type { TestRedis } from '../../helpers/redis-server.js'

/** A store that remembers its unfinished writes, so tests can wait for them. */
export class SettlingStore implements CacheStore {
  readonly inner: CacheStore
  readonly #pending = new Set<Promise<void>>()
  /** Lookups the store has answered so far. */
  answeredGets = 0

  constructor (inner: CacheStore) {
    this.inner = inner
  }

  get (key: CacheKey): GetResult | undefined | Promise<GetResult | undefined> {
    const result = this.inner.get(key)
    if (result instanceof Promise) {
      return result.finally(() => { this.answeredGets++ })
    }
    this.answeredGets++
    return result
  }

  createWriteStream (key: CacheKey, value: CacheValue): Writable | undefined {
    const stream = this.inner.createWriteStream(key, value)
    if (stream !== undefined) {
      const done = new Promise<void>((resolve) => {
        stream.once('finish', () => resolve())
        stream.once('close', () => resolve())
        stream.once('error', () => resolve())
      })
      this.#pending.add(done)
      void done.then(() => this.#pending.delete(done))
    }
    return stream
  }

  delete (key: CacheKey): void | Promise<void> {
    return this.inner.delete(key)
  }

  /** Resolves once every write started so far has committed or failed (bounded: writes end with their response). */
  async settled (): Promise<void> {
    for (let round = 0; round < 100 && this.#pending.size > 0; round++) await Promise.all([...this.#pending])
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Makes a fresh store for one test, cleaned up when the test ends. */
export type StoreFactory = (t: TestContext) => SettlingStore

let redisPrefix = 0

/**
 * Calls `body` inside one `describe` per store kind, handing it a factory for fresh stores of
 * that kind.
 */
export function describeWithEachStore (title: string, body: (makeStore: StoreFactory) => void): void {
  describe(`${title} (MemoryCacheStore)`, () => {
    body(() => new SettlingStore(new MemoryCacheStore()))
  })

  describe(`${title} (SqliteCacheStore on a file)`, () => {
    let dir = ''
    before(async () => { dir = await mkdtemp(join(tmpdir(), 'conduit-cache-rules-')) })
    after(() => rm(dir, { recursive: true, force: true }))
    let n = 0
    body((t) => {
      const store = new SqliteCacheStore({ location: join(dir, `cache-${++n}.db`) })
      t.after(() => store.close())
      return new SettlingStore(store)
    })
  })

  describe(`${title} (RedisCacheStore)`, () => {
    let redis: TestRedis
    before(async () => { redis = await startRedisServer() })
    after(() => redis.close())
    body((t) => {
      const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: `rules:${process.pid}:${++redisPrefix}:`, timeoutMs: 5000 })
      t.after(() => store.close())
      return new SettlingStore(store)
    })
  })
}
