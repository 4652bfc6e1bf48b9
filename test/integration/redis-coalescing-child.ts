/**
 * One "host" of the miss-coalescing test: its own Agent with the cache interceptor on a
 * RedisCacheStore with `coalesce` on. Usage (forked): redis-coalescing-child.js <connection JSON>
 * <key prefix> <url> <requests> <host number> <lease ms>, where the connection is `{ "url": ... }` for one
 * server or `{ "cluster": [{ host, port }, ...] }`. It says `ready`, waits for `go`, sends its
 * requests all at once, says `dispatched`, then reports each response's status, length and
 * digest and exits.
 */

import { createHash } from 'node:crypto'
import { Cluster } from 'ioredis'
import { Agent } from '../../src/dispatcher/agent.js'
import { cache } from '../../interceptors/cache/index.js'
import { RedisCacheStore } from '../../stores/redis-cache-store.js'
import type { RedisCacheStoreOptions } from '../../stores/redis-cache-store.js'

const [connectionJson, keyPrefix, url, count, host, leaseMs] = process.argv.slice(2) as [string, string, string, string, string, string]
const connection = JSON.parse(connectionJson) as { url?: string, cluster?: Array<{ host: string, port: number }> }
const coalesce = { waitMs: 60_000, leaseMs: Number(leaseMs) }
// A command timeout long enough that a loaded machine never turns a slow answer into a miss (a miss is an extra origin request).
const options: RedisCacheStoreOptions = { keyPrefix, timeoutMs: 30_000, coalesce, errorCallback: (err) => process.stderr.write(`host ${host}: ${err.message}\n`) }
const client = connection.cluster === undefined ? undefined : new Cluster(connection.cluster, { enableOfflineQueue: false })
const store = new RedisCacheStore(client === undefined ? { ...options, clientOptions: connection.url } : { ...options, client })
const agent = new Agent().compose(cache({ store }))
const { origin, pathname } = new URL(url)

async function one (): Promise<{ status: number, length: number, digest: string }> {
  const { statusCode, body } = await agent.request({ origin, path: pathname, method: 'GET', headers: { 'x-host': host } })
  const bytes = Buffer.from(await body.arrayBuffer())
  return { status: statusCode, length: bytes.length, digest: createHash('sha256').update(bytes).digest('hex') }
}

process.on('message', (message: string) => {
  if (message !== 'go') return
  const all = Array.from({ length: Number(count) }, async () => await one().catch((err: Error) => ({ status: 0, length: 0, digest: err.message })))
  process.send?.('dispatched')
  void Promise.all(all).then(async (results) => {
    await agent.close()
    await store.close()
    client?.disconnect()
    process.send?.({ results }, () => process.disconnect())
  })
})
// Ready once the store has answered a first read: connecting to every node of a cluster can take
// seconds on a loaded machine, and the test is about coalescing, not about startup.
void Promise.resolve(store.get({ origin, method: 'GET', path: '/warm-up', headers: {} })).then(() => process.send?.('ready'))
