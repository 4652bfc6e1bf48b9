/**
 * `MemoryCacheStore`: cached responses kept in process memory, least recently used URLs evicted
 * first.
 * @module
 */

import { EventEmitter } from 'node:events'
import type { Writable } from 'node:stream'
import { LRUCache } from 'lru-cache'
import { STORE_OPTION_FAILURE, failOption } from '../src/handler.js'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../src/handler.js'
import { assertCacheValue, assertKey, assertNonNegativeInteger } from './store-arguments.js'
import { urlOf, varyMatches } from './vary-match.js'
import { createBufferedEntryStream } from './buffered-entry-stream.js'

/** Default of {@link MemoryCacheStoreOptions.maxCount}. */
export const MEMORY_STORE_MAX_COUNT = 1024
/** Default of {@link MemoryCacheStoreOptions.maxSize}: 100 MiB. */
export const MEMORY_STORE_MAX_SIZE = 104_857_600
/** Default of {@link MemoryCacheStoreOptions.maxEntrySize}: 5 MiB. */
export const MEMORY_STORE_MAX_ENTRY_SIZE = 5_242_880

// lru-cache preallocates its index arrays to `max`; past this many URLs it evicts on its own,
// which only matters for maxCount values no process could hold anyway.
const LRU_INDEX_LIMIT = 1 << 24

/** Options of {@link MemoryCacheStore}; all optional. */
export interface MemoryCacheStoreOptions {
  /**
   * Maximum number of stored responses.
   * @defaultValue 1024
   */
  maxCount?: number | undefined
  /**
   * Maximum total size in bytes of all stored response bodies.
   * @defaultValue 104857600 (100 MiB)
   */
  maxSize?: number | undefined
  /**
   * Maximum size in bytes of one response body; larger bodies are not cached.
   * @defaultValue 5242880 (5 MiB)
   */
  maxEntrySize?: number | undefined
  /**
   * Invoked with any error raised by the store (for example by a `'maxSizeExceeded'` listener),
   * which would otherwise be swallowed so that caching never fails a request.
   * @defaultValue none: errors are dropped
   */
  errorCallback?: ((err: Error) => void) | undefined
}

/** Payload of the `'maxSizeExceeded'` event. */
export interface MaxSizeExceededInfo {
  /** Current total size in bytes of the stored bodies. */
  size: number
  /** The configured `maxSize`. */
  maxSize: number
  /** Current number of stored responses. */
  count: number
  /** The configured `maxCount`. */
  maxCount: number
}

interface MemoryEntry {
  method: string
  meta: CacheValue
  body: Buffer
}

/**
 * A cache store in process memory, built on `lru-cache`. Entries are grouped by URL; reading a
 * URL makes it the most recently used. When the store grows past `maxSize` or `maxCount` it emits
 * `'maxSizeExceeded'` (once per overflow) and then evicts about half of its responses, least
 * recently used URLs first.
 * @example
 * const store = new MemoryCacheStore({ maxSize: 10 * 1024 * 1024 })
 * store.on('maxSizeExceeded', (info) => console.warn('cache full', info))
 * const agent = new Agent().compose(interceptors.cache({ store }))
 */
export class MemoryCacheStore extends EventEmitter implements CacheStore {
  readonly #maxCount: number
  readonly #maxSize: number
  readonly #maxEntrySize: number
  readonly #errorCallback: ((err: Error) => void) | undefined
  readonly #urls: LRUCache<string, MemoryEntry[]>
  #size = 0
  #count = 0
  #overflowReported = false

  constructor (options: MemoryCacheStoreOptions = {}) {
    super()
    if (typeof options !== 'object' || options === null) {
      failOption('MemoryCacheStore', 'options', 'an object', options, STORE_OPTION_FAILURE)
    }
    this.#maxCount = assertNonNegativeInteger('MemoryCacheStore', 'maxCount', options.maxCount, MEMORY_STORE_MAX_COUNT)
    this.#maxSize = assertNonNegativeInteger('MemoryCacheStore', 'maxSize', options.maxSize, MEMORY_STORE_MAX_SIZE)
    this.#maxEntrySize = assertNonNegativeInteger('MemoryCacheStore', 'maxEntrySize', options.maxEntrySize, MEMORY_STORE_MAX_ENTRY_SIZE)
    if (options.errorCallback !== undefined && typeof options.errorCallback !== 'function') {
      failOption('MemoryCacheStore', 'errorCallback', 'a function', options.errorCallback, STORE_OPTION_FAILURE)
    }
    this.#errorCallback = options.errorCallback
    this.#urls = new LRUCache<string, MemoryEntry[]>({
      max: Math.min(this.#maxCount + 1, LRU_INDEX_LIMIT),
      // Whole URL groups leave through here (delete, eviction), so the totals stay exact.
      dispose: (entries) => {
        for (const entry of entries) this.#forget(entry)
      }
    })
  }

  /** Current total size in bytes of all stored response bodies. */
  get size (): number {
    return this.#size
  }

  /** True when `maxSize` or `maxCount` has been reached. */
  isFull (): boolean {
    return this.#size >= this.#maxSize || this.#count >= this.#maxCount
  }

  /** The stored response for `key` (same method, Vary satisfied, `deleteAt` in the future), or undefined. */
  get (key: CacheKey): GetResult | undefined {
    assertKey('MemoryCacheStore.get()', key)
    const url = urlOf(key)
    const entries = this.#urls.get(url)
    if (entries === undefined) return undefined
    const now = Date.now()
    let found: MemoryEntry | undefined
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]
      if (entry.meta.deleteAt <= now) {
        entries.splice(i, 1)
        this.#forget(entry)
        continue
      }
      if (found === undefined && entry.method === key.method && varyMatches(entry.meta.vary, key.headers)) found = entry
    }
    if (entries.length === 0) this.#urls.delete(url)
    if (found === undefined) return undefined
    // A new object per call, so a caller changing it leaves the entry alone. Built field by
    // field: V8 (Node 20) builds `{ ...meta, body }` on a slow path, and even Object.assign
    // costs a tenth of a whole hit.
    const meta = found.meta
    return {
      statusCode: meta.statusCode,
      statusMessage: meta.statusMessage,
      headers: meta.headers,
      vary: meta.vary,
      etag: meta.etag,
      cacheControlDirectives: meta.cacheControlDirectives,
      cachedAt: meta.cachedAt,
      staleAt: meta.staleAt,
      deleteAt: meta.deleteAt,
      body: found.body
    }
  }

  /**
   * A stream that collects the body and commits the entry when it finishes. Past `maxEntrySize`
   * the stream is destroyed and nothing is stored.
   */
  createWriteStream (key: CacheKey, value: CacheValue): Writable {
    assertKey('MemoryCacheStore.createWriteStream()', key)
    assertCacheValue('MemoryCacheStore.createWriteStream()', value)
    return createBufferedEntryStream(key, value, this.#maxEntrySize, (keyCopy, valueCopy, body) => {
      try {
        this.#commit(keyCopy, valueCopy, body)
      } catch (err) {
        this.#reportError(err)
      }
    })
  }

  /** Removes every response stored for the key's origin and path. */
  delete (key: CacheKey): void {
    assertKey('MemoryCacheStore.delete()', key)
    this.#urls.delete(urlOf(key))
    this.#resetOverflowFlag()
  }

  #commit (key: CacheKey, meta: CacheValue, body: Buffer): void {
    if (meta.deleteAt <= Date.now()) return
    const url = urlOf(key)
    let entries = this.#urls.get(url)
    if (entries === undefined) {
      entries = []
      this.#urls.set(url, entries)
    }
    // The entry this key would have selected is the one being replaced.
    for (let i = entries.length - 1; i >= 0; i--) {
      const old = entries[i]
      if (old.method === key.method && varyMatches(old.meta.vary, key.headers)) {
        entries.splice(i, 1)
        this.#forget(old)
      }
    }
    entries.push({ method: key.method, meta, body })
    this.#size += body.length
    this.#count++
    if (this.#size > this.#maxSize || this.#count > this.#maxCount) this.#overflow()
  }

  #overflow (): void {
    if (!this.#overflowReported) {
      this.#overflowReported = true
      const info: MaxSizeExceededInfo = { size: this.#size, maxSize: this.#maxSize, count: this.#count, maxCount: this.#maxCount }
      try {
        this.emit('maxSizeExceeded', info)
      } catch (err) {
        this.#reportError(err)
      }
    }
    const target = this.#count - Math.floor(this.#count / 2)
    let evicted = 0
    while (this.#urls.size > 0 && (evicted < target || this.#size > this.#maxSize || this.#count > this.#maxCount)) {
      const before = this.#count
      this.#urls.pop()
      evicted += before - this.#count
    }
    this.#resetOverflowFlag()
  }

  #resetOverflowFlag (): void {
    if (this.#size < this.#maxSize && this.#count < this.#maxCount) this.#overflowReported = false
  }

  #forget (entry: MemoryEntry): void {
    this.#size -= entry.body.length
    this.#count--
  }

  #reportError (err: unknown): void {
    if (this.#errorCallback === undefined) return
    this.#errorCallback(err instanceof Error ? err : new Error(String(err)))
  }
}
