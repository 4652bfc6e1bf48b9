/**
 * `SqliteCacheStore`: cached responses in a SQLite database (node:sqlite or better-sqlite3), in
 * memory or in a file that several processes may share. Reads run on the caller's thread; writes
 * go to a writer thread with a connection of its own, so waiting for other processes' locks never
 * holds up the event loop, and are seen by this process's reads at once.
 * @module
 */

import { debuglog } from 'node:util'
import type { Writable } from 'node:stream'
import { InvalidArgumentError, STORE_OPTION_FAILURE, failOption } from '../src/handler.js'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../src/handler.js'
import { assertCacheValue, assertKey, assertNonNegativeInteger, describeValue } from './store-arguments.js'
import { urlOf, varyMatches } from './vary-match.js'
import { createBufferedEntryStream } from './buffered-entry-stream.js'
import { assertDriverName, blobToBuffer, isBusyError, loadDriver } from './sqlite-driver.js'
import type { SqliteConnection, SqliteDriverName, SqliteStatement } from './sqlite-driver.js'
import { COLUMNS, SqliteWriter, TABLE, configureConnection, ensureSchema, parseJson, rowFields } from './sqlite-schema.js'
import type { Row, WriteOperation } from './sqlite-schema.js'
import { PendingWrites } from './sqlite-pending-writes.js'
import type { PendingWrite } from './sqlite-pending-writes.js'
import { WriterThread } from './sqlite-writer-thread.js'

export type { SqliteDriverName } from './sqlite-driver.js'

const log = debuglog('conduit:cache')

/** Largest (and default) {@link SqliteCacheStoreOptions.maxEntrySize}: 2 GB, below SQLite's BLOB limit. */
export const SQLITE_STORE_MAX_ENTRY_SIZE = 2_000_000_000

/**
 * How long a read on the caller's thread waits for another process's write lock, at most. A
 * commit holds it for a few milliseconds; past this bound the read fails (the cache then counts
 * a miss and asks the origin) rather than stall the event loop.
 */
export const READ_BUSY_TIMEOUT_MS = 50

/** How long the writer thread waits for another process's lock before a batch fails. */
export const WRITE_BUSY_TIMEOUT_MS = 5000

/**
 * Body bytes of writes on their way to the database past which new writes are dropped (a
 * writer stuck behind another process's lock must not let memory grow without bound). A
 * single write is always taken when nothing else is pending.
 */
export const MAX_PENDING_WRITE_BYTES = 64 * 1024 * 1024

/** Options of {@link SqliteCacheStore}; all optional. */
export interface SqliteCacheStoreOptions {
  /**
   * Database location: a file path, or `':memory:'` for a database private to this store.
   * @defaultValue ':memory:'
   */
  location?: string | undefined
  /**
   * Maximum number of stored responses; the oldest are pruned past it.
   * @defaultValue Infinity
   */
  maxCount?: number | undefined
  /**
   * Maximum size in bytes of one response body (at most 2000000000); larger bodies are not cached.
   * @defaultValue 2000000000
   */
  maxEntrySize?: number | undefined
  /**
   * The SQLite driver: `'node:sqlite'` (built into Node 22.13 and later, no native build needed) or
   * `'better-sqlite3'` (the optional package). Unset, the store uses `node:sqlite` when the runtime
   * has it and `better-sqlite3` otherwise. A named driver that cannot be loaded is a
   * `NotSupportedError`.
   * @defaultValue undefined (node:sqlite when present)
   */
  driver?: SqliteDriverName | undefined
}

/** A CacheValue plus the body, as {@link SqliteCacheStore.set} takes it. */
export interface SqliteStoreValue extends CacheValue {
  /** The whole body: a Buffer, its chunks, or null for none. */
  body: Buffer | Buffer[] | null
}

/**
 * The driver's messages ("unable to open database file") do not say which file; this one does,
 * with the driver's error as its cause.
 */
function locationError (location: string, err: unknown): InvalidArgumentError {
  return new InvalidArgumentError(`SqliteCacheStore: cannot use the database at location ${describeValue(location)}: ${(err as Error).message}`, { cause: err })
}

/**
 * A cache store on SQLite (node:sqlite when the runtime has it, else better-sqlite3): prepared
 * statements and writes in immediate transactions, so several processes can read and write one
 * database file at once; a file damaged or truncated by another process becomes store errors,
 * never a crash. Writes are committed by a writer thread, in batches, and are visible to `get`
 * in this process as soon as they are made; `get` returns the body as a Buffer.
 * @example
 * const store = new SqliteCacheStore({ location: './http-cache.db', maxCount: 10_000 })
 * const agent = new Agent().compose(interceptors.cache({ store }))
 * // later
 * store.close()
 */
export class SqliteCacheStore implements CacheStore {
  /** The driver this store runs on. */
  readonly driver: SqliteDriverName
  readonly #location: string
  readonly #db: SqliteConnection
  readonly #maxCount: number
  readonly #maxEntrySize: number
  readonly #select: SqliteStatement<Row>
  readonly #count: SqliteStatement<{ n: number }>
  readonly #pending = new PendingWrites()
  // A memory database is private to its connection: its writes are made on it, synchronously.
  readonly #thread: WriterThread | null
  #directWriter: SqliteWriter | null = null
  #seq = 0
  #closed = false
  readonly #settledWaiters: Array<{ seq: number, resolve: () => void }> = []

  constructor (options: SqliteCacheStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      failOption('SqliteCacheStore', 'options', 'an object', options, STORE_OPTION_FAILURE)
    }
    const location = options.location ?? ':memory:'
    if (typeof location !== 'string' || location === '') {
      failOption('SqliteCacheStore', 'location', 'a non-empty string', location, STORE_OPTION_FAILURE)
    }
    this.#maxCount = options.maxCount === Infinity ? Infinity : assertNonNegativeInteger('SqliteCacheStore', 'maxCount', options.maxCount, Infinity)
    this.#maxEntrySize = assertNonNegativeInteger('SqliteCacheStore', 'maxEntrySize', options.maxEntrySize, SQLITE_STORE_MAX_ENTRY_SIZE)
    if (this.#maxEntrySize > SQLITE_STORE_MAX_ENTRY_SIZE) {
      failOption('SqliteCacheStore', 'maxEntrySize', `at most ${SQLITE_STORE_MAX_ENTRY_SIZE} (2 GB)`, this.#maxEntrySize, STORE_OPTION_FAILURE)
    }

    assertDriverName('SqliteCacheStore', options.driver)
    const { name, Database } = loadDriver('SqliteCacheStore', options.driver)
    this.driver = name
    this.#location = location
    try {
      this.#db = new Database(location)
    } catch (err) {
      throw locationError(location, err)
    }
    try {
      configureConnection(this.#db, location, READ_BUSY_TIMEOUT_MS)
      ensureSchema(this.#db)
    } catch (err) {
      this.#db.close()
      throw locationError(location, err)
    }
    this.#select = this.#db.prepare(`SELECT id, ${COLUMNS} FROM ${TABLE} WHERE url = ? AND method = ? AND deleteAt > ? ORDER BY id DESC`)
    this.#count = this.#db.prepare(`SELECT COUNT(*) AS n FROM ${TABLE}`)
    this.#thread = location === ':memory:'
      ? null
      : new WriterThread({ location, driver: name, maxCount: this.#maxCount, busyTimeoutMs: WRITE_BUSY_TIMEOUT_MS }, {
        done: (seq, error) => this.#settle(seq, error),
        lost: (error) => this.#settle(this.#pending.lastSeq, `the writer thread stopped: ${error}`)
      })
    this.#thread?.start()
  }

  /** Number of responses committed to the database (writes still on their way are not counted; see {@link SqliteCacheStore.flush}). */
  get size (): number {
    this.#assertOpen()
    return this.#count.get()!.n
  }

  /**
   * Resolves once every write made so far is committed to the file (or failed: a failure is
   * logged under `NODE_DEBUG=conduit:cache`, as the cache logs store errors). Useful before
   * reading {@link SqliteCacheStore.size}, or before another process must see the writes.
   */
  flush (): Promise<void> {
    const seq = this.#pending.lastSeq
    if (this.#pending.count === 0) return Promise.resolve()
    return new Promise((resolve) => this.#settledWaiters.push({ seq, resolve }))
  }

  /**
   * Closes the database connection; the store cannot be used afterwards. Writes already made
   * are still committed by the writer thread, which keeps the process alive until it has.
   */
  close (): void {
    if (this.#closed) return
    this.#closed = true
    this.#thread?.close()
    this.#db.close()
  }

  #assertOpen (): void {
    // The drivers' own words, so callers that matched them still do.
    if (this.#closed) throw new InvalidArgumentError('SqliteCacheStore: the database is not open (the store was closed)')
  }

  /** The newest stored response with the key's method whose Vary is satisfied and `deleteAt` is in the future. */
  get (key: CacheKey): GetResult | undefined {
    assertKey('SqliteCacheStore.get()', key)
    this.#assertOpen()
    const url = urlOf(key)
    const now = Date.now()
    const pending = this.#pending.answer(url, key, now)
    if (pending.decided) return pending.result
    for (const row of this.#select.all(url, key.method, now)) {
      const vary = parseJson<Record<string, string | string[] | null>>(row.vary)
      if (!varyMatches(vary, key.headers)) continue
      // A write on its way replaces this row: until it lands, the row is as good as gone.
      if (this.#pending.count > 0 && this.#pending.replaces(url, key.method, vary)) continue
      return {
        statusCode: row.statusCode,
        statusMessage: row.statusMessage,
        headers: JSON.parse(row.headers) as Record<string, string | string[]>,
        vary,
        etag: row.etag ?? undefined,
        cacheControlDirectives: parseJson(row.cacheControlDirectives),
        cachedAt: row.cachedAt,
        staleAt: row.staleAt,
        deleteAt: row.deleteAt,
        body: row.body === null ? Buffer.alloc(0) : blobToBuffer(row.body)
      }
    }
    return undefined
  }

  /**
   * Stores a response. Nothing is stored when the body exceeds `maxEntrySize`; an entry the key
   * selects is overwritten, otherwise a row is added and the oldest pruned past `maxCount`.
   * The write is seen by `get` at once and committed by the writer thread shortly after.
   */
  set (key: CacheKey, value: SqliteStoreValue): void {
    assertKey('SqliteCacheStore.set()', key)
    assertCacheValue('SqliteCacheStore.set()', value)
    this.#assertOpen()
    const body = Array.isArray(value.body) ? Buffer.concat(value.body) : value.body ?? null
    if (body !== null && body.length > this.#maxEntrySize) return
    if (value.deleteAt <= Date.now()) return
    if (this.#pending.count > 0 && this.#pending.bytes + (body?.length ?? 0) > MAX_PENDING_WRITE_BYTES) {
      log('SqliteCacheStore: not storing %s %s: %d bytes of writes are still on their way to %s', key.method, urlOf(key), this.#pending.bytes, this.#location)
      return
    }
    const { statusCode, statusMessage, headers, vary, etag, cacheControlDirectives, cachedAt, staleAt, deleteAt } = value
    const stored: CacheValue = { statusCode, statusMessage, headers, vary, etag, cacheControlDirectives, cachedAt, staleAt, deleteAt }
    this.#write({ seq: ++this.#seq, kind: 'set', url: urlOf(key), method: key.method, keyHeaders: key.headers, value: stored, body })
  }

  /** A stream that buffers the body and commits it with {@link SqliteCacheStore.set} when it finishes. */
  createWriteStream (key: CacheKey, value: CacheValue): Writable {
    assertKey('SqliteCacheStore.createWriteStream()', key)
    assertCacheValue('SqliteCacheStore.createWriteStream()', value)
    return createBufferedEntryStream(key, value, this.#maxEntrySize, (keyCopy, valueCopy, body) => {
      this.set(keyCopy, { ...valueCopy, body: body.length === 0 ? null : body })
    })
  }

  /** Removes every response stored for the URL of the key's origin and path. */
  delete (key: CacheKey): void {
    assertKey('SqliteCacheStore.delete()', key)
    this.#assertOpen()
    this.#write({ seq: ++this.#seq, kind: 'delete', url: urlOf(key) })
  }

  #write (write: PendingWrite): void {
    const operation: WriteOperation & { seq: number } = write.kind === 'delete'
      ? write
      : { seq: write.seq, kind: 'set', url: write.url, method: write.method, keyHeaders: write.keyHeaders, fields: rowFields(write.value, write.body) }
    if (this.#thread === null || !this.#thread.usable) {
      // No writer thread (a memory database, or one that kept failing): commit here and now.
      this.#writeDirectly(operation)
      return
    }
    this.#pending.add(write)
    this.#thread.post([operation])
  }

  #writeDirectly (operation: WriteOperation): void {
    this.#directWriter ??= new SqliteWriter(this.#db, this.#maxCount)
    this.#directWriter.apply([operation])
  }

  #settle (seq: number, error: string | null): void {
    const settled = this.#pending.settle(seq)
    if (error !== null && settled.length > 0) {
      log('SqliteCacheStore: %d write(s) to %s were not stored: %s', settled.length, this.#location, error)
    }
    if (this.#pending.count === 0) this.#thread?.idle()
    for (let i = this.#settledWaiters.length - 1; i >= 0; i--) {
      const waiter = this.#settledWaiters[i]!
      if (waiter.seq <= seq || this.#pending.count === 0) {
        this.#settledWaiters.splice(i, 1)
        waiter.resolve()
      }
    }
  }
}
