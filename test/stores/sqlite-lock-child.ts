/**
 * Child process for the SQLite writer-thread tests: holds a database file the way another
 * program might, until its stdin closes.
 * - `lock`: holds the write lock (an open `BEGIN IMMEDIATE`), as a long write would.
 * - `wal`: keeps the file open in WAL mode, as a store using WAL does.
 * Prints `ready` once it holds the file.
 * Usage: node sqlite-lock-child.js <file> <lock|wal> <driver>
 */

import { createRequire } from 'node:module'

interface Connection { exec: (sql: string) => void, close: () => void }

const [file, mode, driver] = process.argv.slice(2) as [string, 'lock' | 'wal', string]
const db: Connection = driver === 'node:sqlite'
  ? new ((process.getBuiltinModule('node:sqlite') as { DatabaseSync: new (file: string) => Connection }).DatabaseSync)(file)
  : new (createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Connection)(file)
if (mode === 'wal') {
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('CREATE TABLE IF NOT EXISTS other (x)')
} else {
  db.exec('BEGIN IMMEDIATE')
  db.exec('CREATE TABLE IF NOT EXISTS other (x)')
}
process.stdout.write('ready\n')
process.stdin.resume()
process.stdin.on('end', () => {
  if (mode === 'lock') db.exec('COMMIT')
  db.close()
})
