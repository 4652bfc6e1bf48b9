/**
 * `SqliteCacheStore`: cached responses in a SQLite database (node:sqlite or better-sqlite3), in
 * memory or in a file that several processes may share.
 * @module
 */

import type { Writable } from 'node:stream'
import type BetterSqlite3 from 'better-sqlite3'
import { InvalidArgumentError, LARGE_READ_BYTES, NotSupportedError, STORE_OPTION_FAILURE, failOption, keepReadBuffersInHeap, runtimeTimers } from '../src/handler.js'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../src/handler.js'
import { assertCacheValue, assertKey, assertNonNegativeInteger, describeValue } from './store-arguments.js'
import { urlOf, varyMatches } from './vary-match.js'
import { createBufferedEntryStream } from './buffered-entry-stream.js'
import { assertDriverName, blobToBuffer, isBusyError, loadDriver } from './sqlite-driver.js'
import type { SqliteConnection, SqliteDriverName, SqliteStatement, SqliteValue } from './sqlite-driver.js'

export type { SqliteDriverName } from './sqlite-driver.js'

/** Largest (and default) {@link SqliteCacheStoreOptions.maxEntrySize}: 2 GB, below SQLite's BLOB limit. */
export const SQLITE_STORE_MAX_ENTRY_SIZE = 2_000_000_000

// The schema version is part of the table name, so a future layout can live beside this one
// in a shared file instead of misreading it.
const TABLE = 'conduit_cache_v1'

// How long a statement waits for another process's lock before failing (SQLite's busy timeout).
const BUSY_TIMEOUT_MS = 5000
const JOURNAL_RETRY_PAUSE_MS = 5

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

interface Row {
  id: number
  body: Uint8Array | null
  deleteAt: number
  statusCode: number
  statusMessage: string
  headers: string
  etag: string | null
  cacheControlDirectives: string | null
  vary: string | null
  cachedAt: number
  staleAt: number
}

// A file shared by several processes uses a rollback journal, not WAL: WAL keeps its index in a
// shared memory file (-shm) that every process maps, and when another process truncates that file
// the next access kills this one with SIGBUS, which no JavaScript can catch. With the rollback
// journal and memory mapping off, the database is only read and written through file calls, so a
// truncated or damaged file becomes an SQLite error (a store error the cache logs as a miss).
// Leaving WAL needs a moment of exclusive access that SQLite does not wait for (the busy timeout
// does not apply), so a process opening the file while another one does retries briefly. Once
// any process switched it, the others find it already set (the pragma then takes no lock).
// Pragmas go through exec(), not a prepared statement: on Node 24 a better-sqlite3 Statement
// collected by the garbage collector outside a JavaScript context (while the process exits)
// aborts the process, so the store prepares no Statement it drops: each lives as long as the store.
function useRollbackJournal (db: SqliteConnection): void {
  const deadline = runtimeTimers.monotonicNow() + BUSY_TIMEOUT_MS
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = DELETE')
      return
    } catch (err) {
      if (!isBusyError(err) || runtimeTimers.monotonicNow() >= deadline) throw err
      Atomics.wait(pause, 0, 0, JOURNAL_RETRY_PAUSE_MS)
    }
  }
}

function parseJson<T> (text: string | null): T | undefined {
  return text === null ? undefined : JSON.parse(text) as T
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
 * never a crash. `get` returns the body as a Buffer.
 * @example
 * const store = new SqliteCacheStore({ location: './http-cache.db', maxCount: 10_000 })
 * const agent = new Agent().compose(interceptors.cache({ store }))
 * // later
 * store.close()
 */
export class SqliteCacheStore implements CacheStore {
  /** The driver this store runs on. */
  readonly driver: SqliteDriverName
  readonly #db: SqliteConnection
  readonly #maxCount: number
  readonly #maxEntrySize: number
  readonly #select: SqliteStatement<Row>
  readonly #selectForUpdate: SqliteStatement<{ id: number, vary: string | null }>
  readonly #insert: SqliteStatement<never>
  readonly #update: SqliteStatement<never>
  readonly #deleteById: SqliteStatement<never>
  readonly #deleteByUrl: SqliteStatement<never>
  readonly #deleteExpired: SqliteStatement<never>
  readonly #count: SqliteStatement<{ n: number }>
  readonly #deleteOldest: SqliteStatement<never>

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
      throw new TypeError(`SqliteCacheStore: maxEntrySize must be at most ${SQLITE_STORE_MAX_ENTRY_SIZE} (2 GB), got ${this.#maxEntrySize}`)
    }

    assertDriverName('SqliteCacheStore', options.driver)
    const { name, Database } = loadDriver('SqliteCacheStore', options.driver)
    this.driver = name
    try {
      this.#db = new Database(location)
    } catch (err) {
      throw locationError(location, err)
    }
    try {
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA mmap_size = 0`)
      if (location !== ':memory:') {
        useRollbackJournal(this.#db)
        // A commit does not wait for the disk: with a rollback journal every wait is an fsync held
        // under the file lock, which starves other processes writing the same file. The cost is
        // that an operating system crash or power loss can damage the file; a damaged file only
        // makes the store fail (logged by the cache, which then serves from the origin).
        this.#db.exec('PRAGMA synchronous = OFF')
      }
      // In one immediate transaction, so a process creating the schema while another one writes
      // waits for the lock (a read that upgrades to a write would fail at once instead).
      this.#db.exec('BEGIN IMMEDIATE')
      this.#db.exec(`
        CREATE TABLE IF NOT EXISTS ${TABLE} (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          url TEXT NOT NULL,
          method TEXT NOT NULL,
          body BLOB NULL,
          deleteAt INTEGER NOT NULL,
          statusCode INTEGER NOT NULL,
          statusMessage TEXT NOT NULL,
          headers TEXT NOT NULL,
          etag TEXT NULL,
          cacheControlDirectives TEXT NULL,
          vary TEXT NULL,
          cachedAt INTEGER NOT NULL,
          staleAt INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ${TABLE}_lookup ON ${TABLE}(url, method, deleteAt);
        CREATE INDEX IF NOT EXISTS ${TABLE}_expiry ON ${TABLE}(deleteAt);
        COMMIT;
      `)
    } catch (err) {
      this.#db.close()
      throw locationError(location, err)
    }

    const columns = 'body, deleteAt, statusCode, statusMessage, headers, etag, cacheControlDirectives, vary, cachedAt, staleAt'
    this.#select = this.#db.prepare(`SELECT id, ${columns} FROM ${TABLE} WHERE url = ? AND method = ? AND deleteAt > ? ORDER BY id DESC`)
    this.#selectForUpdate = this.#db.prepare(`SELECT id, vary FROM ${TABLE} WHERE url = ? AND method = ? ORDER BY id DESC`)
    this.#insert = this.#db.prepare(`INSERT INTO ${TABLE} (url, method, ${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    this.#update = this.#db.prepare(`UPDATE ${TABLE} SET ${columns.split(', ').map((c) => `${c} = ?`).join(', ')} WHERE id = ?`)
    this.#deleteById = this.#db.prepare(`DELETE FROM ${TABLE} WHERE id = ?`)
    this.#deleteByUrl = this.#db.prepare(`DELETE FROM ${TABLE} WHERE url = ?`)
    this.#deleteExpired = this.#db.prepare(`DELETE FROM ${TABLE} WHERE deleteAt <= ?`)
    this.#count = this.#db.prepare(`SELECT COUNT(*) AS n FROM ${TABLE}`)
    this.#deleteOldest = this.#db.prepare(`DELETE FROM ${TABLE} WHERE id IN (SELECT id FROM ${TABLE} ORDER BY id ASC LIMIT ?)`)
  }

  /** Number of responses currently stored in the database. */
  get size (): number {
    return this.#count.get()!.n
  }

  /** Closes the database connection; the store cannot be used afterwards. */
  close (): void {
    this.#db.close()
  }

  /** The newest stored response with the key's method whose Vary is satisfied and `deleteAt` is in the future. */
  get (key: CacheKey): GetResult | undefined {
    assertKey('SqliteCacheStore.get()', key)
    for (const row of this.#select.all(urlOf(key), key.method, Date.now())) {
      const vary = parseJson<Record<string, string | string[] | null>>(row.vary)
      if (!varyMatches(vary, key.headers)) continue
      // Each hit hands out a fresh copy of the body: large ones are freed in batches like socket reads.
      if (row.body !== null && row.body.length >= LARGE_READ_BYTES) keepReadBuffersInHeap()
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
   * Stores a response directly. Nothing is stored when the body exceeds `maxEntrySize`; an entry
   * the key selects is overwritten, otherwise a row is added and the oldest pruned past `maxCount`.
   */
  set (key: CacheKey, value: SqliteStoreValue): void {
    assertKey('SqliteCacheStore.set()', key)
    assertCacheValue('SqliteCacheStore.set()', value)
    const body = Array.isArray(value.body) ? Buffer.concat(value.body) : value.body ?? null
    if (body !== null && body.length > this.#maxEntrySize) return
    if (value.deleteAt <= Date.now()) return
    // IMMEDIATE takes the write lock up front; a deferred transaction that upgrades from read to
    // write could fail at once with SQLITE_BUSY when another process writes in between.
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      this.#write(urlOf(key), key, value, body)
      this.#db.exec('COMMIT')
    } catch (err) {
      this.#rollback()
      throw err
    }
  }

  #rollback (): void {
    try {
      this.#db.exec('ROLLBACK')
    } catch {
      // SQLite already rolled back (it does on some errors, e.g. a full disk); nothing is left open.
    }
  }

  #write (url: string, key: CacheKey, value: CacheValue, body: Buffer | null): void {
    const fields: SqliteValue[] = [
      body, value.deleteAt, value.statusCode, value.statusMessage, JSON.stringify(value.headers),
      value.etag ?? null, value.cacheControlDirectives === undefined ? null : JSON.stringify(value.cacheControlDirectives),
      value.vary === undefined ? null : JSON.stringify(value.vary), value.cachedAt, value.staleAt
    ]
    // The rows this key would select are the ones being replaced; keep one, drop the rest.
    let kept: number | undefined
    for (const row of this.#selectForUpdate.all(url, key.method)) {
      if (!varyMatches(parseJson(row.vary), key.headers)) continue
      if (kept === undefined) kept = row.id
      else this.#deleteById.run(row.id)
    }
    if (kept !== undefined) {
      this.#update.run(...fields, kept)
      return
    }
    this.#insert.run(url, key.method, ...fields)
    this.#deleteExpired.run(Date.now())
    if (this.#maxCount !== Infinity) {
      const excess = this.#count.get()!.n - this.#maxCount
      if (excess > 0) this.#deleteOldest.run(excess)
    }
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
    this.#deleteByUrl.run(urlOf(key))
  }
}
