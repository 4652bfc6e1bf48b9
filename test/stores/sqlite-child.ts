/**
 * Child process for the multi-process SQLite test: opens the database file given on the command
 * line, writes its own rows and shared rows while the other child does the same, reads back
 * everything it wrote and what the other child wrote, and prints a JSON summary.
 * Usage: node sqlite-child.js <file> <name> <other-name> <count> <driver>
 */

import { SqliteCacheStore } from '../../stores/sqlite-cache-store.js'
import type { SqliteDriverName } from '../../stores/sqlite-cache-store.js'
import type { CacheKey, CacheValue } from '../../src/contracts/cache-store.js'

const [file, name, other, countText, driver] = process.argv.slice(2) as [string, string, string, string, SqliteDriverName]
const count = Number(countText)
const store = new SqliteCacheStore({ location: file, driver })

function key (path: string): CacheKey {
  return { origin: 'http://127.0.0.1:1', method: 'GET', path, headers: {} }
}

function value (): CacheValue {
  const now = Date.now()
  return { statusCode: 200, statusMessage: 'OK', headers: { writer: name }, cachedAt: now, staleAt: now + 600_000, deleteAt: now + 600_000 }
}

let seenFromOther = 0
for (let i = 0; i < count; i++) {
  store.set(key(`/${name}/${i}`), { ...value(), body: Buffer.from(`${name}-${i}`) })
  store.set(key(`/shared/${i}`), { ...value(), body: Buffer.from(`${name}-${i}`) })
  if (store.get(key(`/${other}/${i}`)) !== undefined) seenFromOther++
}

let missing = 0
for (let i = 0; i < count; i++) {
  const own = store.get(key(`/${name}/${i}`))
  if (own === undefined || (own.body as Buffer).toString() !== `${name}-${i}`) missing++
  if (store.get(key(`/shared/${i}`)) === undefined) missing++
}
store.close()
process.stdout.write(JSON.stringify({ name, missing, seenFromOther }))
