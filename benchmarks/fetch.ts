/**
 * Fetch benchmark: conduit's fetch against undici's fetch and the runtime's global fetch, all
 * talking to one local server in a child process. Each run is a fresh client process; the
 * figures are medians of the runs. Run on its own (`node dist/benchmarks/fetch.js`) or call
 * {@link runFetchBenchmark} from the benchmark runner.
 * @module
 */

import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { once } from 'node:events'
import type { ChildProcess } from 'node:child_process'
import { median } from './report/stats.js'

/** Options of {@link runFetchBenchmark}. */
export interface FetchBenchmarkOptions {
  /** Measured requests per run. @defaultValue `20000` */
  requests?: number
  /** Requests in flight at once (and connections per client). @defaultValue `10` */
  concurrency?: number
  /** Runs per implementation; the median is reported. @defaultValue `3` */
  runs?: number
}

/** Median figures of one implementation. */
export interface FetchBenchmarkResult {
  impl: string
  reqPerSec: number
  cpuUsPerReq: number
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))

async function startServer (): Promise<{ origin: string, child: ChildProcess }> {
  const child = spawn(process.execPath, [here('./origins/fetch-origin.js')], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(child.stdout!, 'data') as [Buffer]
  return { origin: `http://127.0.0.1:${data.toString().trim()}`, child }
}

async function clientRun (impl: string, origin: string, requests: number, concurrency: number): Promise<FetchBenchmarkResult> {
  const child = spawn(process.execPath, [here('./clients/fetch-client.js'), impl, origin, String(requests), String(concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const [code] = await once(child, 'exit') as [number]
  if (code !== 0) throw new Error(`fetch benchmark client ${impl} exited with code ${code}`)
  return JSON.parse(output) as FetchBenchmarkResult
}

/**
 * Runs the benchmark and returns the median figures per implementation.
 * @example
 * const results = await runFetchBenchmark({ requests: 20000, runs: 3 })
 */
export async function runFetchBenchmark (options: FetchBenchmarkOptions = {}): Promise<FetchBenchmarkResult[]> {
  const requests = options.requests ?? 20000
  const concurrency = options.concurrency ?? 10
  const runs = options.runs ?? 3
  const { origin, child } = await startServer()
  try {
    const impls = ['conduit', 'undici', 'global']
    const samples = new Map<string, FetchBenchmarkResult[]>(impls.map((impl) => [impl, []]))
    for (let run = 0; run < runs; run++) {
      for (const impl of impls) samples.get(impl)!.push(await clientRun(impl, origin, requests, concurrency))
    }
    return impls.map((impl) => {
      const list = samples.get(impl)!
      return { impl, reqPerSec: median(list.map((r) => r.reqPerSec)), cpuUsPerReq: median(list.map((r) => r.cpuUsPerReq)) }
    })
  } finally {
    child.stdin!.end()
    await once(child, 'exit')
  }
}

/** Formats results as a table with ratios against conduit. */
export function formatFetchResults (results: FetchBenchmarkResult[]): string {
  const conduit = results.find((r) => r.impl === 'conduit')!
  const rows = results.map((r) =>
    `${r.impl.padEnd(8)} ${r.reqPerSec.toFixed(0).padStart(8)} req/s ${r.cpuUsPerReq.toFixed(1).padStart(7)} µs CPU/req` +
    (r === conduit ? '' : `   conduit: ${(conduit.reqPerSec / r.reqPerSec).toFixed(2)}x throughput, ${(conduit.cpuUsPerReq / r.cpuUsPerReq).toFixed(2)}x CPU`))
  return ['fetch: GET small JSON, json() consumed', ...rows].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const requests = Number(process.env.FETCH_BENCH_REQUESTS ?? 20000)
  runFetchBenchmark({ requests }).then((results) => {
    process.stdout.write(formatFetchResults(results) + '\n')
  }, (err: unknown) => {
    process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`)
    process.exitCode = 1
  })
}
