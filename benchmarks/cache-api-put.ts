/**
 * Cache API puts: how long `cache.put` takes as the cache grows, for conduit's `caches` and
 * undici's in the same run. Each round opens an empty cache, puts `count` responses for distinct
 * URLs one after another, and reports the time of the first and of the last tenth of the puts:
 * a list that every put walks makes the last tenth many times slower than the first.
 *
 * Runs on its own: `node dist/benchmarks/cache-api-put.js [count]`.
 * @module
 */

import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { undici } from '../test/helpers/undici-reference.js'
import { Response, caches } from '../src/index.js'
import { median } from './report/stats.js'

const ROUNDS = 3

interface CacheApi {
  caches: { open: (name: string) => Promise<{ put: (request: string, response: unknown) => Promise<void> }>, delete: (name: string) => Promise<boolean> }
  Response: new (body: string) => unknown
}

async function round (api: CacheApi, name: string, count: number): Promise<{ firstMs: number, lastMs: number, totalMs: number }> {
  const cache = await api.caches.open(name)
  const tenth = Math.max(1, Math.floor(count / 10))
  let firstMs = 0
  let lastMs = 0
  const start = performance.now()
  for (let i = 0; i < count; i++) {
    const before = performance.now()
    await cache.put(`http://127.0.0.1:3000/item?id=${i}`, new api.Response(`body ${i}`))
    const took = performance.now() - before
    if (i < tenth) firstMs += took
    if (i >= count - tenth) lastMs += took
  }
  const totalMs = performance.now() - start
  await api.caches.delete(name)
  return { firstMs, lastMs, totalMs }
}

/** Runs the comparison and returns the report lines. */
export async function runCacheApiPutBenchmark (count: number): Promise<string> {
  const candidates: Array<[string, CacheApi]> = [
    ['conduit', { caches, Response } as unknown as CacheApi],
    ['undici', { caches: undici.caches, Response: undici.Response } as unknown as CacheApi]
  ]
  const lines = [`Cache API: ${count} puts of distinct URLs into an empty cache, ${ROUNDS} rounds, medians`]
  for (const [label, api] of candidates) {
    const rounds = []
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(api, `bench-${label}-${r}`, count))
    const total = median(rounds.map((x) => x.totalMs))
    const first = median(rounds.map((x) => x.firstMs))
    const last = median(rounds.map((x) => x.lastMs))
    lines.push(`  ${label.padEnd(8)} total ${total.toFixed(1).padStart(9)} ms   first tenth ${first.toFixed(2).padStart(8)} ms   last tenth ${last.toFixed(2).padStart(8)} ms   (last/first ${(last / first).toFixed(1)}x)`)
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = process.argv[2] === undefined ? 2000 : Number(process.argv[2])
  if (!Number.isInteger(count) || count < 10) throw new Error(`count must be an integer of at least 10, got ${process.argv[2]}`)
  console.log(await runCacheApiPutBenchmark(count))
}
