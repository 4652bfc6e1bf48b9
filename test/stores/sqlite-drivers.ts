/**
 * The SQLite drivers the running Node can load, so store tests run against each driver that is
 * there and only against those (node:sqlite needs Node 22.13 or later).
 */

import { createRequire } from 'node:module'
import type { SqliteDriverName } from '../../stores/sqlite-cache-store.js'

function loads (load: () => unknown): boolean {
  try {
    return load() !== undefined
  } catch {
    return false
  }
}

function openBetterSqlite3 (): boolean {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (location: string) => { close: () => void }
  new Database(':memory:').close()
  return true
}

/** True when this runtime has node:sqlite built in. */
export const HAS_NODE_SQLITE = loads(() => process.getBuiltinModule?.('node:sqlite'))

/**
 * On Node 24 a test process that has opened databases with both drivers aborts as it exits (an
 * assertion in the runtime's environment cleanup hooks, which better-sqlite3 registers), after
 * every test passed. There the store tests use node:sqlite, the default driver on that runtime;
 * better-sqlite3 is tested on Node 20, 22 and 26.
 */
const BOTH_DRIVERS_ABORT_AT_EXIT = HAS_NODE_SQLITE && process.versions.node.split('.')[0] === '24'

/** Every driver this runtime can load (and the tests may open together), the default one first. */
export const AVAILABLE_SQLITE_DRIVERS: SqliteDriverName[] = [
  ...(HAS_NODE_SQLITE ? ['node:sqlite' as const] : []),
  // The package loads its native addon only when a database is opened, so open one.
  ...(!BOTH_DRIVERS_ABORT_AT_EXIT && loads(() => openBetterSqlite3()) ? ['better-sqlite3' as const] : [])
]

