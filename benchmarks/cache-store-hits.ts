/**
 * Cache store hit cost: what one `get` of a stored response costs in each shipped store, side by
 * side. Memory (lru-cache in process), SQLite (a WAL file on disk), Redis with its memory tier
 * (a hit from process memory, kept coherent by tracking) and Redis without it (one loopback round
 * trip per hit). Each store holds `keys` responses; hits are issued one after another (awaited)
 * and the figures are medians of `runs` runs.
 *
 * Runs on its own: `node dist/benchmarks/cache-store-hits.js [bodyBytes] [hits]`. It starts a private
 * `redis-server` on a free loopback port, or uses `REDIS_URL` (loopback only) when set.
 * @module
 */

import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../stores/memory-cache-store.js'
import { SqliteCacheStore } from '../stores/sqlite-cache-store.js'
import { RedisCacheStore } from '../stores/redis-cache-store.js'
import { startRedisServer } from '../test/helpers/redis-server.js'
import { median } from './report/stats.js'

/** Options of {@link runCacheStoreHitsBenchmark}. */
export interface CacheStoreHitsOptions {
  /** Size of each stored body in bytes. @defaultValue `1024` */
  bodyBytes?: number
  /** Distinct stored responses, read round-robin. @defaultValue `100` */
  keys?: number
  /** Measured hits per run and store. @defaultValue `20000` */
  hits?: number
  /** Runs per store; the median is reported. @defaultValue `3` */
  runs?: number
}

/** Median figures of one store. */
export interface CacheStoreHitsResult {
  store: string
  microsPerHit: number
  hitsPerSec: number
}

function key (i: number): CacheKey {
  return { origin: 'http://127.0.0.1:8080', method: 'GET', path: `/bench/${i}`, headers: { accept: '*/*' } }
}

function value (): CacheValue {
  const now = Date.now()
  return {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'content-type': 'application/json', etag: '"abc"', 'cache-control': 'max-age=3600' },
    vary: { accept: '*/*' },
    cachedAt: now,
    staleAt: now + 3_600_000,
    deleteAt: now + 3_600_000
  }
}

async function fill (store: CacheStore, keys: number, body: Buffer): Promise<void> {
  for (let i = 0; i < keys; i++) {
    const stream = store.createWriteStream(key(i), value())
    if (stream === undefined) throw new Error(`store refused to store /bench/${i}`)
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject)
      stream.once('finish', () => resolve())
      stream.end(body)
    })
  }
}

function bodyLength (result: GetResult | undefined): number {
  const body = result?.body
  if (body === undefined || body === null) throw new Error('benchmark get missed')
  return typeof body === 'string' || Buffer.isBuffer(body) ? body.length : 1
}

async function measure (store: CacheStore, keys: number, hits: number): Promise<number> {
  const start = process.hrtime.bigint()
  let bytes = 0
  for (let i = 0; i < hits; i++) bytes += bodyLength(await store.get(key(i % keys)))
  const elapsed = Number(process.hrtime.bigint() - start) / 1000
  if (bytes === 0) throw new Error('benchmark read no bytes')
  return elapsed / hits
}

async function bench (name: string, store: CacheStore, options: Required<CacheStoreHitsOptions>): Promise<CacheStoreHitsResult> {
  await fill(store, options.keys, Buffer.alloc(options.bodyBytes, 'x'))
  // Warm-up: JIT, prepared statements, the memory tier, Redis scripts.
  await measure(store, options.keys, Math.min(options.hits, 2000))
  const runs: number[] = []
  for (let run = 0; run < options.runs; run++) runs.push(await measure(store, options.keys, options.hits))
  const micros = median(runs)
  return { store: name, microsPerHit: Math.round(micros * 100) / 100, hitsPerSec: Math.round(1e6 / micros) }
}

async function waitForTier (store: RedisCacheStore): Promise<void> {
  for (let i = 0; i < 500 && !store.memoryTierActive; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  if (!store.memoryTierActive) throw new Error('the Redis memory tier did not become active')
}

/** Runs the benchmark and returns one line of figures per store. */
export async function runCacheStoreHitsBenchmark (options: CacheStoreHitsOptions = {}): Promise<CacheStoreHitsResult[]> {
  const o: Required<CacheStoreHitsOptions> = { bodyBytes: 1024, keys: 100, hits: 20000, runs: 3, ...options }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-bench-'))
  const external = process.env.REDIS_URL
  if (external !== undefined && !/^redis:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/?$/.test(external)) {
    throw new Error(`REDIS_URL must point at a loopback server, got ${external}`)
  }
  const redis = external === undefined ? await startRedisServer() : undefined
  const url = external ?? (redis as { url: string }).url
  const results: CacheStoreHitsResult[] = []
  try {
    results.push(await bench('memory', new MemoryCacheStore(), o))
    const sqlite = new SqliteCacheStore({ location: path.join(dir, 'cache.db') })
    try {
      results.push(await bench('sqlite file', sqlite, o))
    } finally {
      sqlite.close()
    }
    const tiered = new RedisCacheStore({ clientOptions: url, keyPrefix: `bench:${process.pid}:tier:` })
    try {
      await waitForTier(tiered)
      results.push(await bench('redis + memory tier', tiered, o))
    } finally {
      await tiered.close()
    }
    const direct = new RedisCacheStore({ clientOptions: url, keyPrefix: `bench:${process.pid}:direct:`, memoryTier: false })
    try {
      results.push(await bench('redis (round trip)', direct, o))
    } finally {
      await direct.close()
    }
  } finally {
    await redis?.close()
    await rm(dir, { recursive: true, force: true })
  }
  return results
}

/** Prints the results as a table with each store's cost relative to the memory store. */
export function formatCacheStoreHits (results: CacheStoreHitsResult[], bodyBytes: number): string {
  const base = results[0]?.microsPerHit ?? 1
  const lines = [`cache store hit cost (${bodyBytes}-byte bodies, sequential gets, median of runs)`]
  for (const r of results) {
    lines.push(`${r.store.padEnd(22)} ${r.microsPerHit.toFixed(2).padStart(9)} µs/hit ${String(r.hitsPerSec).padStart(9)} hits/s  x${(r.microsPerHit / base).toFixed(1)} memory`)
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bodyBytes = process.argv[2] === undefined ? 1024 : Number(process.argv[2])
  if (!Number.isInteger(bodyBytes) || bodyBytes < 1) throw new Error(`body size must be a positive integer, got ${process.argv[2]}`)
  const hits = process.argv[3] === undefined ? 20_000 : Number(process.argv[3])
  if (!Number.isInteger(hits) || hits < 1) throw new Error(`hits must be a positive integer, got ${process.argv[3]}`)
  const results = await runCacheStoreHitsBenchmark({ bodyBytes, hits })
  console.log(formatCacheStoreHits(results, bodyBytes))
}
