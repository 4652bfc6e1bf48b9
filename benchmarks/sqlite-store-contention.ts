/**
 * How long a SqliteCacheStore write holds up the event loop while other processes write the same
 * file. Four processes (by default) each open a store on one database file and write responses
 * as the cache interceptor does (`createWriteStream`, one body chunk, `end`, until `finish`),
 * one after another with a turn of the event loop between them. Each process reports the
 * longest time one write held the event loop (the synchronous part of `end()`, and of
 * `finish` when it comes in the same turn), its 99th percentile, and the longest delay
 * `monitorEventLoopDelay` saw over the whole run; the report gives the worst process.
 *
 * Runs on its own:
 * `node dist/benchmarks/sqlite-store-contention.js [processes] [writesPerProcess] [bodyBytes] [driver] [storeModule]`.
 * `storeModule` is the compiled `stores/sqlite-cache-store.js` to measure (default: this build's),
 * so a build of an earlier commit can be measured the same way; `noop` measures a store whose
 * writes do nothing, the floor that the machine's own load sets under the same harness. The
 * first write is reported apart (it starts the store's writer thread, once per store).
 * @module
 */

import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { Writable } from 'node:stream'
import type { CacheKey, CacheValue } from '../src/contracts/cache-store.js'

const run = promisify(execFile)

interface StoreLike {
  createWriteStream: (key: CacheKey, value: CacheValue) => Writable | undefined
  close: () => void
  readonly size?: number
}

/** One process's figures, in milliseconds. */
export interface ContentionReport {
  writes: number
  firstWriteBlockMs: number
  maxWriteBlockMs: number
  /** The longest CPU time of the event loop's thread in one write (null where the runtime cannot tell, before Node 22). */
  maxWriteCpuMs: number | null
  /**
   * The longest time one write kept the event loop's thread asleep: the block minus the time it
   * ran and the time it waited for a CPU (Linux's schedstat), which is what waiting for a lock
   * costs whatever the machine's load. Null where schedstat cannot be read.
   */
  maxWriteSleepMs: number | null
  p99WriteBlockMs: number
  maxLoopDelayMs: number
  totalMs: number
}

function percentile (sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

// CPU time of this thread alone, which the machine's other load does not inflate (Node 22 and later).
const threadCpuUsage = (process as { threadCpuUsage?: () => { user: number, system: number } }).threadCpuUsage

// On-CPU and run-queue nanoseconds of this thread; what is left of a wall-clock interval is sleep.
function scheduledNs (): number | null {
  try {
    const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')
    return Number(onCpu) + Number(waiting)
  } catch {
    return null
  }
}

function threadCpuMs (): number {
  const usage = threadCpuUsage!.call(process)
  return (usage.user + usage.system) / 1000
}

async function writeOnce (store: StoreLike, key: CacheKey, value: CacheValue, body: Buffer, cpu: number[], sleeps: number[]): Promise<number> {
  const stream = store.createWriteStream(key, value)
  if (stream === undefined) return 0
  let blocked = 0
  let scheduledBefore: number | null = null
  const cpuBefore = threadCpuUsage === undefined ? 0 : threadCpuMs()
  await new Promise<void>((resolve, reject) => {
    stream.once('error', reject)
    stream.write(body)
    scheduledBefore = scheduledNs()
    const start = performance.now()
    let synchronous = true
    stream.once('finish', () => {
      if (synchronous) blocked += performance.now() - start
      resolve()
    })
    stream.end()
    synchronous = false
    blocked += performance.now() - start
    const scheduledAfter = scheduledNs()
    if (scheduledBefore !== null && scheduledAfter !== null) sleeps.push(Math.max(0, blocked - (scheduledAfter - scheduledBefore) / 1e6))
  })
  if (threadCpuUsage !== undefined) cpu.push(threadCpuMs() - cpuBefore)
  return blocked
}

/** A store whose writes do nothing: what the harness and the machine cost without any store work. */
class NoopStore implements StoreLike {
  createWriteStream (): Writable {
    return new Writable({ write (_chunk, _encoding, callback) { callback() } })
  }

  close (): void {}
}

async function openStore (storeModule: string, location: string, driver: string | undefined): Promise<StoreLike> {
  if (storeModule === 'noop') return new NoopStore()
  const { SqliteCacheStore } = await import(storeModule) as { SqliteCacheStore: new (options: object) => StoreLike }
  return new SqliteCacheStore({ location, ...(driver === undefined ? {} : { driver }) })
}

/** The child's part: writes `writes` responses to the store at `location` and measures them. */
export async function measureWrites (storeModule: string, location: string, name: string, writes: number, bodyBytes: number, driver: string | undefined): Promise<ContentionReport> {
  const store = await openStore(storeModule, location, driver)
  const body = Buffer.alloc(bodyBytes, name)
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  const blocks: number[] = []
  const cpu: number[] = []
  const sleeps: number[] = []
  const started = performance.now()
  histogram.enable()
  for (let i = 0; i < writes; i++) {
    const now = Date.now()
    const key: CacheKey = { origin: 'http://127.0.0.1:3000', method: 'GET', path: `/${name}/${i}`, headers: {} }
    const value: CacheValue = { statusCode: 200, statusMessage: 'OK', headers: { 'content-type': 'text/plain' }, cachedAt: now, staleAt: now + 600_000, deleteAt: now + 600_000 }
    blocks.push(await writeOnce(store, key, value, body, cpu, sleeps))
    await new Promise((resolve) => setImmediate(resolve))
  }
  histogram.disable()
  const totalMs = performance.now() - started
  store.close()
  const firstWriteBlockMs = blocks.shift() ?? 0
  blocks.sort((a, b) => a - b)
  cpu.shift()
  const maxWriteCpuMs = threadCpuUsage === undefined ? null : Math.max(0, ...cpu)
  sleeps.shift()
  const maxWriteSleepMs = sleeps.length === 0 ? null : Math.max(...sleeps)
  return { writes, firstWriteBlockMs, maxWriteBlockMs: blocks.at(-1) ?? 0, maxWriteCpuMs, maxWriteSleepMs, p99WriteBlockMs: percentile(blocks, 0.99), maxLoopDelayMs: histogram.max / 1e6, totalMs }
}

/** Starts `processes` children on one new database file and returns their reports. */
export async function runSqliteContention (processes: number, writes: number, bodyBytes: number, driver: string | undefined, storeModule: string): Promise<ContentionReport[]> {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-sqlite-contention-'))
  try {
    const location = join(dir, 'shared.db')
    const self = fileURLToPath(import.meta.url)
    // A first store creates the file and schema, so the children only contend on writes.
    ;(await openStore(storeModule, location, driver)).close()
    const children = Array.from({ length: processes }, (_, i) => run(process.execPath, ['--disable-warning=ExperimentalWarning', self, '--child', storeModule, location, `p${i}`, String(writes), String(bodyBytes), driver ?? ''], { maxBuffer: 1024 * 1024 }))
    return (await Promise.all(children)).map(({ stdout }) => JSON.parse(stdout) as ContentionReport)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The report lines for a run. */
export function formatContention (reports: ContentionReport[], bodyBytes: number, storeModule: string): string {
  const worst = (pick: (r: ContentionReport) => number): number => Math.max(...reports.map(pick))
  return [
    `SqliteCacheStore under ${reports.length} writing processes, ${reports[0]?.writes ?? 0} writes each of ${bodyBytes}-byte bodies (${storeModule})`,
    ...reports.map((r, i) => `  process ${i}: first write ${r.firstWriteBlockMs.toFixed(1)} ms; then longest block per write ${r.maxWriteBlockMs.toFixed(1)} ms, p99 ${r.p99WriteBlockMs.toFixed(1)} ms, most CPU in one ${r.maxWriteCpuMs === null ? 'n/a' : `${r.maxWriteCpuMs.toFixed(1)} ms`}, longest asleep ${r.maxWriteSleepMs === null ? 'n/a' : `${r.maxWriteSleepMs.toFixed(1)} ms`}; longest event-loop delay ${r.maxLoopDelayMs.toFixed(1)} ms; ${r.totalMs.toFixed(0)} ms in all`),
    `  worst: first write ${worst((r) => r.firstWriteBlockMs).toFixed(1)} ms, block per write ${worst((r) => r.maxWriteBlockMs).toFixed(1)} ms (asleep ${worst((r) => r.maxWriteSleepMs ?? 0).toFixed(1)} ms), event-loop delay ${worst((r) => r.maxLoopDelayMs).toFixed(1)} ms`
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--child') {
    const [storeModule, location, name, writes, bodyBytes, driver] = process.argv.slice(3) as [string, string, string, string, string, string]
    const report = await measureWrites(storeModule, location, name, Number(writes), Number(bodyBytes), driver === '' ? undefined : driver)
    process.stdout.write(JSON.stringify(report))
  } else {
    const processes = Number(process.argv[2] ?? 4)
    const writes = Number(process.argv[3] ?? 500)
    const bodyBytes = Number(process.argv[4] ?? 16 * 1024)
    const driver = process.argv[5] === undefined || process.argv[5] === '' ? undefined : process.argv[5]
    const given = process.argv[6]
    const storeModule = given === undefined ? new URL('../stores/sqlite-cache-store.js', import.meta.url).href : given === 'noop' ? 'noop' : pathToFileURL(given).href
    for (const [label, value] of [['processes', processes], ['writes', writes], ['body bytes', bodyBytes]] as const) {
      if (!Number.isInteger(value) || value < 1) throw new Error(`${label} must be a positive integer, got ${value}`)
    }
    console.log(formatContention(await runSqliteContention(processes, writes, bodyBytes, driver, storeModule), bodyBytes, storeModule))
  }
}
