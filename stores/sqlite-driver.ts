/**
 * The SQLite drivers `SqliteCacheStore` can run on: the runtime's own `node:sqlite` (Node 22.13
 * and later) or the `better-sqlite3` package, behind the few calls the store makes.
 * @module
 */

import { InvalidArgumentError, NotSupportedError } from '../src/handler.js'
import { createRequire } from 'node:module'
import { describeValue } from './store-arguments.js'

/** Name of a SQLite driver: `'node:sqlite'` (built into Node) or `'better-sqlite3'` (a package). */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3'

/** The drivers a `SqliteCacheStore` can use, by the name of the module each comes from. */
export const SQLITE_DRIVERS: readonly SqliteDriverName[] = ['node:sqlite', 'better-sqlite3']

/** A value SQLite hands back or takes as a parameter. */
export type SqliteValue = null | number | bigint | string | Uint8Array

/** A prepared statement; it lives as long as its connection. */
export interface SqliteStatement<Row> {
  /** Every row the statement selects. */
  all: (...params: SqliteValue[]) => Row[]
  /** The first row the statement selects, or undefined. */
  get: (...params: SqliteValue[]) => Row | undefined
  /** Runs the statement for its effect. */
  run: (...params: SqliteValue[]) => unknown
}

/** An open database, whichever driver opened it. */
export interface SqliteConnection {
  /** Runs one or more statements that return no rows. */
  exec: (sql: string) => void
  /** Prepares a statement returning rows of type `Row`. */
  prepare: <Row>(sql: string) => SqliteStatement<Row>
  /** Closes the database; later calls throw. */
  close: () => void
}

// Both drivers' database classes take a location and answer these calls; their own types are not
// needed (node:sqlite has none on the oldest supported runtime).
type DatabaseClass = new (location: string) => SqliteConnection

function loadNodeSqlite (): DatabaseClass | undefined {
  // getBuiltinModule answers synchronously (the store's constructor is synchronous) and returns
  // undefined where the runtime has no such module (Node 20, or Node 22 before 22.13 without
  // --experimental-sqlite).
  const module = process.getBuiltinModule?.('node:sqlite') as { DatabaseSync?: DatabaseClass } | undefined
  return module?.DatabaseSync
}

function loadBetterSqlite3 (): DatabaseClass {
  return createRequire(import.meta.url)('better-sqlite3') as DatabaseClass
}

/** Throws an `InvalidArgumentError` unless `value` is undefined or a driver name. */
export function assertDriverName (owner: string, value: unknown): asserts value is SqliteDriverName | undefined {
  if (value === undefined || (SQLITE_DRIVERS as readonly unknown[]).includes(value)) return
  throw new InvalidArgumentError(`${owner}: driver must be one of ${SQLITE_DRIVERS.map((name) => `'${name}'`).join(', ')}, got ${describeValue(value)}`)
}

/**
 * The driver to use: the one named, or `node:sqlite` when the runtime has it and `better-sqlite3`
 * otherwise. Throws a `NotSupportedError` naming the driver that cannot be loaded.
 */
export function loadDriver (owner: string, requested: SqliteDriverName | undefined): { name: SqliteDriverName, Database: DatabaseClass } {
  if (requested !== 'better-sqlite3') {
    const Database = loadNodeSqlite()
    if (Database !== undefined) return { name: 'node:sqlite', Database }
    if (requested === 'node:sqlite') {
      throw new NotSupportedError(`${owner}: driver 'node:sqlite' is not available on Node ${process.versions.node}; it needs Node 22.13 or later (or choose driver 'better-sqlite3')`)
    }
  }
  try {
    return { name: 'better-sqlite3', Database: loadBetterSqlite3() }
  } catch (err) {
    const hint = requested === undefined ? `this runtime has no node:sqlite (Node ${process.versions.node}), so ` : ''
    const error = new NotSupportedError(
      `${owner}: ${hint}the better-sqlite3 package could not be loaded (${(err as Error).message}); install it with "npm install better-sqlite3" to use this store`
    )
    error.cause = err
    throw error
  }
}

/** True when a driver error is SQLite's SQLITE_BUSY (another connection holds the lock). */
export function isBusyError (err: unknown): boolean {
  const { code, errcode } = err as { code?: unknown, errcode?: unknown }
  // better-sqlite3 names the code; node:sqlite gives the (extended) result code, whose low byte is 5 for BUSY.
  return code === 'SQLITE_BUSY' || (typeof errcode === 'number' && (errcode & 0xff) === 5)
}

/** A BLOB column as a Buffer (node:sqlite returns a plain Uint8Array), sharing its memory. */
export function blobToBuffer (blob: Uint8Array): Buffer {
  return Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength)
}
