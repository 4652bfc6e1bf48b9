/**
 * A client process of the cluster benchmark: reads `keys` stored responses round-robin through a
 * RedisCacheStore, `concurrency` at a time, for `hits` hits, and reports its latencies (µs) to the
 * parent. Usage (forked): cluster-client.js <connection JSON> <key prefix> <keys> <hits> <concurrency>,
 * the connection being `{ "url": ... }` (one server) or `{ "cluster": [{ host, port }, ...] }`.
 * @module
 */

import { Cluster } from 'ioredis'
import { RedisCacheStore } from '../../stores/redis-cache-store.js'
import { benchKey } from './cluster-keys.js'

const [connectionJson, keyPrefix, keys, hits, concurrency] = process.argv.slice(2) as [string, string, string, string, string]
const connection = JSON.parse(connectionJson) as { url?: string, cluster?: Array<{ host: string, port: number }> }
const client = connection.cluster === undefined ? undefined : new Cluster(connection.cluster, { enableOfflineQueue: false })
const store = client === undefined
  ? new RedisCacheStore({ clientOptions: connection.url, keyPrefix, memoryTier: false, timeoutMs: 5000 })
  : new RedisCacheStore({ client, keyPrefix, timeoutMs: 5000 })

async function worker (next: () => number | undefined, latencies: number[]): Promise<void> {
  for (let i = next(); i !== undefined; i = next()) {
    const start = process.hrtime.bigint()
    const found = await store.get(benchKey(i % Number(keys)))
    if (found === undefined) throw new Error(`benchmark get of /bench/${i % Number(keys)} missed`)
    latencies.push(Number(process.hrtime.bigint() - start) / 1000)
  }
}

process.on('message', (message: string) => {
  if (message !== 'go') return
  let issued = 0
  const next = (): number | undefined => issued < Number(hits) ? issued++ : undefined
  const latencies: number[] = []
  const start = process.hrtime.bigint()
  void Promise.all(Array.from({ length: Number(concurrency) }, async () => await worker(next, latencies))).then(async () => {
    const micros = Number(process.hrtime.bigint() - start) / 1000
    await store.close()
    client?.disconnect()
    process.send?.({ latencies, micros }, () => process.disconnect())
  }, (err: Error) => {
    process.stderr.write(`${err.message}\n`)
    process.exit(1)
  })
})
// Ready once a first read went through: connecting to every node is not part of a hit.
void Promise.resolve(store.get(benchKey(0))).then(() => process.send?.('ready'))
