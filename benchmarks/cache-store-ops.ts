/**
 * Cache store operations per second: `get` (a hit) and a set (`createWriteStream`, one body
 * chunk, `end`, until `finish`) for conduit's MemoryCacheStore and SqliteCacheStore, with undici's
 * stores beside them in the same run (undici's SQLite store needs `node:sqlite`, Node 22.5+;
 * it is reported as unavailable otherwise). Operations run one after another, over `keys`
 * distinct URLs; figures are medians of the rounds, and ratios compare conduit with undici.
 *
 * Runs on its own: `node dist/benchmarks/cache-store-ops.js [operations] [bodyBytes]`.
 * @module
 */

import { fileURLToPath } from 'node:url'
import { cacheStores as undiciStores } from '../test/helpers/undici-reference.js'
import type { CacheKey, CacheStore, CacheValue } from '../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../stores/memory-cache-store.js'
import { SqliteCacheStore } from '../stores/sqlite-cache-store.js'
import { median } from './report/stats.js'

const KEYS = 500
const ROUNDS = 5

function key (i: number): CacheKey {
  return { origin: 'http://127.0.0.1:3000', method: 'GET', path: `/item/${i % KEYS}`, headers: { accept: 'application/json' } }
}

function value (): CacheValue {
  const now = Date.now()
  return {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=3600' },
    vary: { accept: 'application/json' },
    cachedAt: now,
    staleAt: now + 3_600_000,
    deleteAt: now + 7_200_000
  }
}

function set (store: CacheStore, i: number, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = store.createWriteStream(key(i), value())
    if (stream === undefined) { resolve(); return }
    stream.once('finish', () => resolve())
    stream.once('error', reject)
    stream.end(body)
  })
}

async function opsPerSecond (operations: number, op: (i: number) => unknown): Promise<number> {
  const start = process.hrtime.bigint()
  for (let i = 0; i < operations; i++) await op(i)
  return operations / (Number(process.hrtime.bigint() - start) / 1e9)
}

interface Candidate {
  name: string
  make: () => CacheStore & { close?: () => void }
}

/** Runs every store and returns the printed table. */
export async function runCacheStoreOpsBenchmark (operations = 20_000, bodyBytes = 1024): Promise<string> {
  const body = Buffer.alloc(bodyBytes, 'x')
  const candidates: Candidate[] = [
    { name: 'conduit MemoryCacheStore', make: () => new MemoryCacheStore({ maxCount: KEYS * 2 }) },
    { name: 'undici MemoryCacheStore', make: () => new undiciStores.MemoryCacheStore({ maxCount: KEYS * 2 }) as unknown as CacheStore },
    { name: 'conduit SqliteCacheStore', make: () => new SqliteCacheStore() },
    { name: 'undici SqliteCacheStore', make: () => new undiciStores.SqliteCacheStore() as unknown as CacheStore & { close: () => void } }
  ]
  const results = new Map<string, { get: number, set: number } | string>()
  const samples = new Map<string, { get: number[], set: number[] }>()
  const stores = new Map<string, CacheStore & { close?: () => void }>()
  for (const candidate of candidates) {
    try {
      stores.set(candidate.name, candidate.make())
      samples.set(candidate.name, { get: [], set: [] })
    } catch (err) {
      results.set(candidate.name, `unavailable: ${(err as Error).message.split('\n')[0]}`)
    }
  }
  try {
    for (const [, store] of stores) for (let i = 0; i < KEYS; i++) await set(store, i, body)
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, store] of stores) {
        const s = samples.get(name)!
        s.set.push(await opsPerSecond(operations, (i) => set(store, i, body)))
        s.get.push(await opsPerSecond(operations, (i) => store.get(key(i))))
      }
    }
  } finally {
    for (const [, store] of stores) store.close?.()
  }
  for (const [name, s] of samples) results.set(name, { get: median(s.get), set: median(s.set) })

  const lines = [`cache store operations: ${operations} sequential ops per round, ${ROUNDS} rounds, ${bodyBytes}-byte bodies, ${KEYS} URLs, medians`]
  for (const candidate of candidates) {
    const r = results.get(candidate.name)!
    if (typeof r === 'string') lines.push(`  ${candidate.name.padEnd(26)} ${r}`)
    else lines.push(`  ${candidate.name.padEnd(26)} get ${Math.round(r.get).toString().padStart(9)} ops/s   set ${Math.round(r.set).toString().padStart(9)} ops/s`)
  }
  for (const kind of ['Memory', 'Sqlite']) {
    const ours = results.get(`conduit ${kind}CacheStore`)
    const theirs = results.get(`undici ${kind}CacheStore`)
    if (typeof ours === 'object' && typeof theirs === 'object') {
      lines.push(`  ${kind}CacheStore conduit/undici: get ${(ours.get / theirs.get).toFixed(2)}x, set ${(ours.set / theirs.set).toFixed(2)}x`)
    }
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const operations = process.argv[2] === undefined ? 20_000 : Number(process.argv[2])
  const bodyBytes = process.argv[3] === undefined ? 1024 : Number(process.argv[3])
  if (!Number.isInteger(operations) || operations < 1) throw new Error(`operations must be a positive integer, got ${process.argv[2]}`)
  if (!Number.isInteger(bodyBytes) || bodyBytes < 1) throw new Error(`body size must be a positive integer, got ${process.argv[3]}`)
  console.log(await runCacheStoreOpsBenchmark(operations, bodyBytes))
}
