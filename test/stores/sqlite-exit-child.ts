/**
 * Child process: stores one response in a SqliteCacheStore file and ends without closing the
 * store, as a script that fetched once and returned would. The write must still reach the file.
 * Usage: node sqlite-exit-child.js <file> <driver>
 */

import { SqliteCacheStore } from '../../stores/sqlite-cache-store.js'
import type { SqliteDriverName } from '../../stores/sqlite-cache-store.js'

const [file, driver] = process.argv.slice(2) as [string, SqliteDriverName]
const store = new SqliteCacheStore({ location: file, driver })
const now = Date.now()
store.set({ origin: 'http://127.0.0.1:1', method: 'GET', path: '/last-words', headers: {} }, {
  statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now + 600_000, deleteAt: now + 600_000, body: Buffer.from('kept')
})
