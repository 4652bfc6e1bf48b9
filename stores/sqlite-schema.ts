/**
 * The SQLite store's file: how a connection to it is set up, its table, and the statements that
 * write it. The store's own connection (reads, schema) and the writer thread's connection both
 * open the file through here, so they agree on every pragma and column.
 * @module
 */

import type { CacheKey, CacheValue } from '../src/handler.js'
import { isBusyError } from './sqlite-driver.js'
import type { SqliteConnection, SqliteStatement, SqliteValue } from './sqlite-driver.js'
import { varyMatches } from './vary-match.js'

// The schema version is part of the table name, so a future layout can live beside this one
// in a shared file instead of misreading it.
/** The table of stored responses. */
export const TABLE = 'conduit_cache_v1'

/** Every column but `id`, `url` and `method`, in the order {@link rowFields} gives them. */
export const COLUMNS = 'body, deleteAt, statusCode, statusMessage, headers, etag, cacheControlDirectives, vary, cachedAt, staleAt'

/**
 * How long leaving WAL mode may wait for another connection to let go of the file. Two of
 * conduit's processes that open a WAL file at once only need a moment; a connection that holds
 * the file in WAL mode (another library's store) never lets go, and waiting for it would only
 * hold up the process that opens the store.
 */
export const JOURNAL_SWITCH_WAIT_MS = 250
const JOURNAL_RETRY_PAUSE_MS = 5

/** A stored row, as the store reads it back. */
export interface Row {
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

/** Parses a JSON column (`null` stays undefined). */
export function parseJson<T> (text: string | null): T | undefined {
  return text === null ? undefined : JSON.parse(text) as T
}

/** The values of {@link COLUMNS} for a response and its body. */
export function rowFields (value: CacheValue, body: Uint8Array | null): SqliteValue[] {
  return [
    body, value.deleteAt, value.statusCode, value.statusMessage, JSON.stringify(value.headers),
    value.etag ?? null, value.cacheControlDirectives === undefined ? null : JSON.stringify(value.cacheControlDirectives),
    value.vary === undefined ? null : JSON.stringify(value.vary), value.cachedAt, value.staleAt
  ]
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
  // Counted in pauses, not read from a clock: this runs on the writer thread too, and a fake
  // clock a test installs must not stretch or shorten the wait.
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (let waited = 0; ; waited += JOURNAL_RETRY_PAUSE_MS) {
    try {
      db.exec('PRAGMA journal_mode = DELETE')
      return
    } catch (err) {
      if (!isBusyError(err)) throw err
      if (waited >= JOURNAL_SWITCH_WAIT_MS) {
        throw new Error(`the file is in WAL mode and another connection keeps it open in that mode (this store needs a rollback journal; waited ${JOURNAL_SWITCH_WAIT_MS} ms)`, { cause: err })
      }
      Atomics.wait(pause, 0, 0, JOURNAL_RETRY_PAUSE_MS)
    }
  }
}

/** Sets the pragmas every connection to a store file uses; `busyTimeoutMs` bounds each wait for a lock. */
export function configureConnection (db: SqliteConnection, location: string, busyTimeoutMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA mmap_size = 0`)
  if (location === ':memory:') return
  useRollbackJournal(db)
  // A commit does not wait for the disk: with a rollback journal every wait is an fsync held
  // under the file lock, which starves other processes writing the same file. The cost is
  // that an operating system crash or power loss can damage the file; a damaged file only
  // makes the store fail (logged by the cache, which then serves from the origin).
  db.exec('PRAGMA synchronous = OFF')
}

const schemaChecks = new WeakMap<SqliteConnection, SqliteStatement<{ n: number }>>()

/**
 * Creates the table and its indexes unless they exist. Looking first costs a read; creating
 * takes the write lock, which under other processes' writes could mean a wait.
 */
export function ensureSchema (db: SqliteConnection): void {
  // Kept as long as its connection: no Statement is dropped (see useRollbackJournal).
  let present = schemaChecks.get(db)
  if (present === undefined) {
    present = db.prepare<{ n: number }>(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('${TABLE}', '${TABLE}_lookup', '${TABLE}_expiry')`)
    schemaChecks.set(db, present)
  }
  if (present.get()!.n === 3) return
  // In one immediate transaction, so a process creating the schema while another one writes
  // waits for the lock (a read that upgrades to a write would fail at once instead).
  db.exec('BEGIN IMMEDIATE')
  db.exec(`
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
}

/** One write the store hands to the writer: a response to store, or a URL whose responses go. */
export type WriteOperation =
  | { kind: 'set', url: string, method: string, keyHeaders: CacheKey['headers'], fields: SqliteValue[] }
  | { kind: 'delete', url: string }

/** Applies writes to one connection, each batch in one immediate transaction. */
export class SqliteWriter {
  readonly #db: SqliteConnection
  readonly #maxCount: number
  readonly #selectForUpdate: SqliteStatement<{ id: number, vary: string | null }>
  readonly #insert: SqliteStatement<never>
  readonly #update: SqliteStatement<never>
  readonly #deleteById: SqliteStatement<never>
  readonly #deleteByUrl: SqliteStatement<never>
  readonly #deleteExpired: SqliteStatement<never>
  readonly #count: SqliteStatement<{ n: number }>
  readonly #deleteOldest: SqliteStatement<never>

  constructor (db: SqliteConnection, maxCount: number) {
    this.#db = db
    this.#maxCount = maxCount
    this.#selectForUpdate = db.prepare(`SELECT id, vary FROM ${TABLE} WHERE url = ? AND method = ? ORDER BY id DESC`)
    this.#insert = db.prepare(`INSERT INTO ${TABLE} (url, method, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    this.#update = db.prepare(`UPDATE ${TABLE} SET ${COLUMNS.split(', ').map((c) => `${c} = ?`).join(', ')} WHERE id = ?`)
    this.#deleteById = db.prepare(`DELETE FROM ${TABLE} WHERE id = ?`)
    this.#deleteByUrl = db.prepare(`DELETE FROM ${TABLE} WHERE url = ?`)
    this.#deleteExpired = db.prepare(`DELETE FROM ${TABLE} WHERE deleteAt <= ?`)
    this.#count = db.prepare(`SELECT COUNT(*) AS n FROM ${TABLE}`)
    this.#deleteOldest = db.prepare(`DELETE FROM ${TABLE} WHERE id IN (SELECT id FROM ${TABLE} ORDER BY id ASC LIMIT ?)`)
  }

  /**
   * Applies `operations` in order in one transaction: all of them or, when one fails, none.
   * IMMEDIATE takes the write lock up front; a deferred transaction that upgrades from read to
   * write could fail at once with SQLITE_BUSY when another process writes in between.
   */
  apply (operations: readonly WriteOperation[]): void {
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      let inserted = false
      for (const operation of operations) {
        if (operation.kind === 'delete') this.#deleteByUrl.run(operation.url)
        else inserted = this.#write(operation) || inserted
      }
      if (inserted) this.#prune()
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

  // True when a row was added (rather than one replaced).
  #write ({ url, method, keyHeaders, fields }: Extract<WriteOperation, { kind: 'set' }>): boolean {
    // The rows this key would select are the ones being replaced; keep one, drop the rest.
    let kept: number | undefined
    for (const row of this.#selectForUpdate.all(url, method)) {
      if (!varyMatches(parseJson(row.vary), keyHeaders)) continue
      if (kept === undefined) kept = row.id
      else this.#deleteById.run(row.id)
    }
    if (kept !== undefined) {
      this.#update.run(...fields, kept)
      return false
    }
    this.#insert.run(url, method, ...fields)
    return true
  }

  #prune (): void {
    this.#deleteExpired.run(Date.now())
    if (this.#maxCount !== Infinity) {
      const excess = this.#count.get()!.n - this.#maxCount
      if (excess > 0) this.#deleteOldest.run(excess)
    }
  }
}
