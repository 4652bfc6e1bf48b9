/**
 * Redis Cluster hit cost: hit throughput and p50/p99 hit latency of RedisCacheStore from
 * `clients` processes, on a standalone server (memory tier off, so every hit is a round trip), a
 * one-primary cluster and a three-primary cluster, plus Redis commands per hit (from the servers'
 * own counters), the round-trip cost the cluster layout must not raise.
 *
 * Runs on its own: `node dist/benchmarks/cluster.js [--hits=N] [--keys=N] [--clients=N]
 * [--concurrency=N] [--body=BYTES]`, or `npm run bench -- cluster`. Starts its own loopback
 * servers (Debian's redis-server and redis-cli).
 * @module
 */

import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Cluster, Redis } from 'ioredis'
import { RedisCacheStore } from '../stores/redis-cache-store.js'
import { startRedisServer } from '../test/helpers/redis-server.js'
import { startRedisCluster } from '../test/helpers/redis-cluster.js'
import { benchKey, benchValue } from './clients/cluster-keys.js'

const clientScript = fileURLToPath(new URL('./clients/cluster-client.js', import.meta.url))

interface Settings { hits: number, keys: number, clients: number, concurrency: number, body: number }

/** Figures of one deployment. */
export interface ClusterBenchResult {
  deployment: string
  hitsPerSec: number
  p50Micros: number
  p99Micros: number
  commandsPerHit: number
}

function percentile (sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0)
}

async function fill (store: RedisCacheStore, settings: Settings): Promise<void> {
  const body = Buffer.alloc(settings.body, 'x')
  for (let i = 0; i < settings.keys; i++) {
    const stream = store.createWriteStream(benchKey(i), benchValue())
    if (stream === undefined) throw new Error(`the store refused /bench/${i}`)
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject)
      stream.once('finish', () => resolve())
      stream.end(body)
    })
  }
}

async function commandsProcessed (ports: number[]): Promise<number> {
  let total = 0
  for (const port of ports) {
    const admin = new Redis(port, '127.0.0.1')
    const info = await admin.info('stats')
    admin.disconnect()
    total += Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0)
  }
  return total
}

async function drive (connection: object, prefix: string, settings: Settings, ports: number[]): Promise<Omit<ClusterBenchResult, 'deployment'>> {
  const children = Array.from({ length: settings.clients }, () =>
    fork(clientScript, [JSON.stringify(connection), prefix, String(settings.keys), String(settings.hits), String(settings.concurrency)]))
  const reports = children.map(async (child) => await new Promise<{ latencies: number[], micros: number }>((resolve, reject) => {
    child.on('message', (m: unknown) => { if (typeof m === 'object') resolve(m as { latencies: number[], micros: number }) })
    child.once('exit', (code) => { if (code !== 0) reject(new Error(`a benchmark client exited with code ${String(code)}`)) })
  }))
  await Promise.all(children.map(async (child) => await new Promise<void>((resolve) => child.on('message', (m) => { if (m === 'ready') resolve() }))))
  const before = await commandsProcessed(ports)
  for (const child of children) child.send('go')
  const done = await Promise.all(reports)
  const after = await commandsProcessed(ports)
  const latencies = done.flatMap((r) => r.latencies).sort((a, b) => a - b)
  const hitsPerSec = done.reduce((n, r) => n + r.latencies.length / (r.micros / 1e6), 0)
  return {
    hitsPerSec: Math.round(hitsPerSec),
    p50Micros: percentile(latencies, 0.5),
    p99Micros: percentile(latencies, 0.99),
    // The counters' own INFO calls are a handful against thousands of hits.
    commandsPerHit: Math.round((after - before) / latencies.length * 100) / 100
  }
}

/** Runs the three deployments one after another and returns their figures. */
export async function runClusterBenchmark (settings: Settings): Promise<ClusterBenchResult[]> {
  const results: ClusterBenchResult[] = []
  const prefix = `bench:${process.pid}:`
  const redis = await startRedisServer()
  try {
    const store = new RedisCacheStore({ clientOptions: redis.url, keyPrefix: prefix, memoryTier: false, timeoutMs: 5000 })
    await fill(store, settings)
    await store.close()
    results.push({ deployment: 'standalone', ...await drive({ url: redis.url }, prefix, settings, [redis.port]) })
  } finally {
    await redis.close()
  }
  for (const primaries of [1, 3] as const) {
    const cluster = await startRedisCluster(2000, primaries)
    try {
      const client = new Cluster(cluster.startupNodes)
      const store = new RedisCacheStore({ client, keyPrefix: prefix, timeoutMs: 5000 })
      await fill(store, settings)
      await store.close()
      client.disconnect()
      const ports = cluster.nodes.map((node) => node.port)
      results.push({ deployment: `cluster, ${primaries} primar${primaries === 1 ? 'y' : 'ies'}`, ...await drive({ cluster: cluster.startupNodes }, prefix, settings, ports) })
    } finally {
      await cluster.close()
    }
  }
  return results
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { hits: { type: 'string' }, keys: { type: 'string' }, clients: { type: 'string' }, concurrency: { type: 'string' }, body: { type: 'string' } } })
  const settings: Settings = {
    hits: Number(values.hits ?? 20_000),
    keys: Number(values.keys ?? 1000),
    clients: Number(values.clients ?? 4),
    concurrency: Number(values.concurrency ?? 16),
    body: Number(values.body ?? 1024)
  }
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`--${name} must be a positive integer, got ${String(value)}`)
  }
  const results = await runClusterBenchmark(settings)
  process.stdout.write(`${settings.clients} client processes x ${settings.hits} hits, ${settings.concurrency} in flight each, ${settings.body}-byte bodies\n`)
  for (const r of results) {
    process.stdout.write(`${r.deployment.padEnd(22)} ${String(r.hitsPerSec).padStart(8)} hits/s  p50 ${r.p50Micros} µs  p99 ${r.p99Micros} µs  ${r.commandsPerHit} Redis commands/hit (commands inside scripts counted)\n`)
  }
  const [standalone, one, three] = results as [ClusterBenchResult, ClusterBenchResult, ClusterBenchResult]
  process.stdout.write(`3 primaries vs 1: ${(three.hitsPerSec / one.hitsPerSec).toFixed(2)}x throughput; cluster hit vs standalone hit: ${three.commandsPerHit} vs ${standalone.commandsPerHit} commands\n`)
}
