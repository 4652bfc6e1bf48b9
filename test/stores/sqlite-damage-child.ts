/**
 * Child process for the damaged-file tests: a cache on a SqliteCacheStore file stores a few
 * responses, another process then damages the file while the store has it open, and the same
 * requests are sent again. Prints a JSON report; the parent checks that this process answered
 * every request correctly and ended normally instead of being killed by a signal.
 * Usage: node sqlite-damage-child.js <driver> <file> <zero|half|garbage>
 */

import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Agent, interceptors } from '../../src/index.js'
import { SqliteCacheStore } from '../../stores/sqlite-cache-store.js'
import type { SqliteDriverName } from '../../stores/sqlite-cache-store.js'
import { startHttpServer } from '../helpers/servers.js'

const [driver, file, damage] = process.argv.slice(2) as [SqliteDriverName, string, string]
const PATHS = Array.from({ length: 40 }, (_, i) => `/page/${i}`)
// Bodies of a few pages each, so the file spans many database pages.
const bodyOf = (path: string): string => `${path} `.repeat(1000)

let served = 0
const server = await startHttpServer((req, res) => {
  served++
  res.setHeader('cache-control', 'max-age=600')
  res.end(bodyOf(req.url ?? ''))
})
const store = new SqliteCacheStore({ location: file, driver })
const agent = new Agent().compose(interceptors.cache({ store }))

async function fetchAll (): Promise<number> {
  let wrong = 0
  for (const path of PATHS) {
    const res = await agent.request({ origin: server.origin, path, method: 'GET' })
    const text = await res.body.text()
    if (res.statusCode !== 200 || text !== bodyOf(path)) wrong++
  }
  return wrong
}

const wrongBefore = await fetchAll()
// The cache commits after the response reached the caller; wait (bounded) until every page is stored.
for (let i = 0; i < 500 && store.size < PATHS.length; i++) await new Promise((resolve) => setTimeout(resolve, 10))
// Committed, and no longer held as writes on their way (which a read would answer from memory).
await store.flush()
const storedBefore = store.size
const servedBefore = served
const sharedMemoryFiles = [`${file}-shm`, `${file}-wal`].filter((name) => existsSync(name))

// Another process damages the file while this one keeps it open.
const damageScript = `
  const fs = require('node:fs')
  const [file, damage] = process.argv.slice(1)
  const size = fs.statSync(file).size
  if (damage === 'zero') fs.truncateSync(file, 0)
  else if (damage === 'half') fs.truncateSync(file, Math.floor(size / 2))
  else fs.writeFileSync(file, Buffer.alloc(size, 0x5a))
`
execFileSync(process.execPath, ['-e', damageScript, file, damage])

const wrongAfter = await fetchAll()
const servedAfter = served - servedBefore
await agent.close()
store.close()
await server.close()
process.stdout.write(JSON.stringify({ driver: store.driver, storedBefore, servedBefore, wrongBefore, wrongAfter, servedAfter, sharedMemoryFiles }))
