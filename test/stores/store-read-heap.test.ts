import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { startRedisServer } from '../helpers/redis-server.js'
import type { TestRedis } from '../helpers/redis-server.js'

const run = promisify(execFile)
const heapUrl = new URL('../../src/runtime/heap-settling.js', import.meta.url).href
const indexUrl = new URL('../../src/index.js', import.meta.url).href
const sqliteUrl = new URL('../../stores/sqlite-cache-store.js', import.meta.url).href
const redisUrl = new URL('../../stores/redis-cache-store.js', import.meta.url).href
const presetsUrl = new URL('../../presets/snapshot-agent.js', import.meta.url).href

/**
 * In a fresh process (nothing settled yet): stores a small and a large body in the store the
 * script's `open()` makes, then asks for the small one and the large one through the cache
 * interceptor (hits: the origin is a closed port, so no socket read settles anything), and reports
 * whether glibc's limits were settled after each. The store itself knows nothing of the heap: the
 * cache's response player settles it when it plays a large body from memory.
 */
async function settledAfterHits (open: string, close: string): Promise<unknown> {
  const script = `
const heap = await import(${JSON.stringify(heapUrl)})
const { Agent, interceptors } = await import(${JSON.stringify(indexUrl)})
const store = await ${open}
const origin = 'http://127.0.0.1:1'
const key = (path) => ({ origin, method: 'GET', path, headers: {} })
const now = Date.now()
const value = { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now + 60000, deleteAt: now + 60000 }
for (const [path, size] of [['/small', 1000], ['/large', 1024 * 1024]]) {
  const stream = store.createWriteStream(key(path), value)
  await new Promise((resolve, reject) => { stream.once('finish', resolve); stream.once('error', reject); stream.end(Buffer.alloc(size, 'x')) })
}
const agent = new Agent().compose(interceptors.cache({ store }))
const seen = [heap.readBuffersSettled()]
for (const path of ['/small', '/large']) {
  const { body } = await agent.request({ origin, path, method: 'GET' })
  seen.push((await body.arrayBuffer()).byteLength, heap.readBuffersSettled())
}
await agent.close()
await ${close}
console.log(JSON.stringify(seen))`
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script])
  return JSON.parse(stdout)
}

/** A store a user might write: bodies kept whole in a Map, handed out as one Buffer. */
const USER_STORE = `(async () => {
  const { Writable } = await import('node:stream')
  const entries = new Map()
  const id = (key) => key.method + ' ' + key.origin + key.path
  return {
    get: (key) => entries.get(id(key)),
    createWriteStream (key, value) {
      const chunks = []
      return new Writable({
        write (chunk, _encoding, callback) { chunks.push(chunk); callback() },
        final (callback) { entries.set(id(key), { ...value, body: Buffer.concat(chunks) }); callback() }
      })
    },
    delete (key) { entries.delete(id(key)) }
  }
})()`

describe('cache hits and replays of large bodies settle the read buffer heap, whatever the store', () => {
  let dir: string
  let redis: TestRedis
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-store-heap-'))
    redis = await startRedisServer()
  })
  after(async () => {
    await redis.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('SqliteCacheStore: on the first hit with a large body, not on a small one', async () => {
    const file = path.join(dir, 'cache.db')
    const seen = await settledAfterHits(`import(${JSON.stringify(sqliteUrl)}).then((m) => new m.SqliteCacheStore({ location: ${JSON.stringify(file)} }))`, 'store.close()')
    assert.deepEqual(seen, [false, 1000, false, 1024 * 1024, true])
  })

  it('RedisCacheStore: on the first hit with a large body, not on a small one', async () => {
    // A generous timeout: a fresh process on a loaded machine may take longer than the default
    // 250 ms for its first commands, and the store would then fail open and take no writes.
    const options = JSON.stringify({ clientOptions: redis.url, keyPrefix: `heap:${process.pid}:`, memoryTier: false, timeoutMs: 10_000 })
    const seen = await settledAfterHits(`import(${JSON.stringify(redisUrl)}).then((m) => new m.RedisCacheStore(${options}))`, 'store.close()')
    assert.deepEqual(seen, [false, 1000, false, 1024 * 1024, true])
  })

  it('a store written by a user: on the first hit with a large body, not on a small one', async () => {
    const seen = await settledAfterHits(USER_STORE, 'undefined')
    assert.deepEqual(seen, [false, 1000, false, 1024 * 1024, true])
  })

  it('SnapshotAgent: on the first replay of a large body, not of a small one', async () => {
    const file = path.join(dir, 'snapshots.json')
    const server = http.createServer((req, res) => res.end(Buffer.alloc(req.url === '/large' ? 1024 * 1024 : 1000, 'x')))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      // Recorded here; replayed in a fresh process that reads nothing from the network.
      const { SnapshotAgent } = await import(presetsUrl) as typeof import('../../presets/snapshot-agent.js')
      const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
      for (const p of ['/small', '/large']) await (await recorder.request({ origin, path: p, method: 'GET' })).body.arrayBuffer()
      await recorder.close()
    } finally {
      server.close()
    }
    const script = `
const heap = await import(${JSON.stringify(heapUrl)})
const { SnapshotAgent } = await import(${JSON.stringify(presetsUrl)})
const agent = new SnapshotAgent({ mode: 'playback', snapshotPath: ${JSON.stringify(file)} })
const seen = [heap.readBuffersSettled()]
for (const p of ['/small', '/large']) {
  const { body } = await agent.request({ origin: ${JSON.stringify(origin)}, path: p, method: 'GET' })
  seen.push((await body.arrayBuffer()).byteLength, heap.readBuffersSettled())
}
await agent.close()
console.log(JSON.stringify(seen))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script])
    assert.deepEqual(JSON.parse(stdout), [false, 1000, false, 1024 * 1024, true])
  })
})
