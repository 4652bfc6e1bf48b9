/**
 * One "host" of the cluster failover test: drives cache traffic through an Agent with the cache
 * interceptor on a RedisCacheStore on the cluster, checking every body against the checksum of
 * its URL. Usage (forked): redis-cluster-failover-child.js <startup nodes JSON> <key prefix>
 * <origin> <url count> <duration ms>. Reports `{ total, failed, wrong, hits, failures }` with
 * the time and path of each hit, then exits.
 */

import { Cluster } from 'ioredis'
import { Agent } from '../../src/dispatcher/agent.js'
import { cache } from '../../interceptors/cache/index.js'
import { RedisCacheStore } from '../../stores/redis-cache-store.js'
import { FAIL_FAST_CLUSTER_OPTIONS } from '../helpers/redis-cluster.js'
import { checksummedBody } from './helpers/checksummed-body.js'

const [nodesJson, keyPrefix, origin, urlCount, durationMs] = process.argv.slice(2) as [string, string, string, string, string]
const client = new Cluster(JSON.parse(nodesJson) as Array<{ host: string, port: number }>, FAIL_FAST_CLUSTER_OPTIONS)
const store = new RedisCacheStore({ client, keyPrefix, timeoutMs: 500, pauseAfterTimeoutMs: 200 })
const agent = new Agent().compose(cache({ store }))
// Bounded in count as well as in time.
const MAX_REQUESTS_PER_WORKER = 20_000
const WORKERS = 4

const hits: Array<[number, string]> = []
const failures: string[] = []
let total = 0
let wrong = 0

async function worker (until: number, seed: number): Promise<void> {
  for (let i = 0; i < MAX_REQUESTS_PER_WORKER && Date.now() < until; i++) {
    const path = `/item/${(seed + i * 7) % Number(urlCount)}`
    total++
    try {
      const { statusCode, headers, body } = await agent.request({ origin, path, method: 'GET' })
      const text = await body.text()
      if (statusCode !== 200) failures.push(`${path}: status ${statusCode}`)
      else if (text !== checksummedBody(path)) wrong++
      else if (String(headers['cache-status'] ?? '').includes('hit')) hits.push([Date.now(), path])
    } catch (err) {
      failures.push(`${path}: ${(err as Error).message}`)
    }
    // Leaves CPU to the cluster on a small machine; the test counts outcomes, never speed.
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

process.on('message', (message: string) => {
  if (message !== 'go') return
  const until = Date.now() + Number(durationMs)
  void Promise.all(Array.from({ length: WORKERS }, async (_, w) => await worker(until, w * 13 + process.pid))).then(async () => {
    await agent.close()
    await store.close()
    client.disconnect()
    process.send?.({ total, failed: failures.length, failures: failures.slice(0, 10), wrong, hits }, () => process.disconnect())
  })
})
void Promise.resolve(store.get({ origin, method: 'GET', path: '/warm-up', headers: {} })).then(() => process.send?.('ready'))
