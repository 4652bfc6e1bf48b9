/**
 * Large-body figures for fetch: reading a big response with `arrayBuffer()` against
 * `request()`'s `body.arrayBuffer()`, and the peak memory of 200 MiB uploads (a FormData holding
 * a file opened from disk, and a ReadableStream) to show neither is buffered whole.
 * Run on its own (`node dist/benchmarks/fetch-large.js [downloadMiB] [uploadMiB] [runs]`) or call {@link runFetchLargeBenchmark}.
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, open, rm } from 'node:fs/promises'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent } from '../src/dispatcher/agent.js'
import { fetch } from '../src/fetch/fetch.js'
import { FormData } from '../src/fetch/form-data.js'
import { median } from './report/stats.js'

const MiB = 1024 * 1024

/** Figures of {@link runFetchLargeBenchmark}. */
export interface FetchLargeResult {
  /** Size of the downloaded body in bytes. */
  downloadBytes: number
  /** Median milliseconds for fetch + arrayBuffer(). */
  fetchMs: number
  /** Median milliseconds for request() + body.arrayBuffer(). */
  requestMs: number
  /** Size of each upload in bytes. */
  uploadBytes: number
  /** Peak resident memory growth during the FormData upload, in bytes. */
  formDataPeakBytes: number
  /** Peak resident memory growth during the ReadableStream upload, in bytes. */
  streamPeakBytes: number
}

async function timed (fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

async function peakGrowth (fn: () => Promise<void>): Promise<number> {
  const base = process.memoryUsage().rss
  let peak = base
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 5)
  try {
    await fn()
  } finally {
    clearInterval(sampler)
  }
  return Math.max(peak, process.memoryUsage().rss) - base
}

/**
 * Runs the large-body measurements against a server in a child process.
 * @example
 * const result = await runFetchLargeBenchmark({ downloadBytes: 64 * 1024 * 1024 })
 */
export async function runFetchLargeBenchmark (options: { downloadBytes?: number, uploadBytes?: number, runs?: number } = {}): Promise<FetchLargeResult> {
  const downloadBytes = options.downloadBytes ?? 64 * MiB
  const uploadBytes = options.uploadBytes ?? 200 * MiB
  const runs = options.runs ?? 3
  const server = spawn(process.execPath, [fileURLToPath(new URL('./origins/fetch-origin.js', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, FETCH_BENCH_LARGE: String(downloadBytes) }
  })
  const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-fetch-bench-'))
  const agent = new Agent()
  try {
    const [port] = await once(server.stdout!, 'data') as [Buffer]
    const origin = `http://127.0.0.1:${port.toString().trim()}`
    const fetchTimes: number[] = []
    const requestTimes: number[] = []
    for (let i = 0; i < runs + 1; i++) {
      const f = await timed(async () => {
        const buffer = await (await fetch(`${origin}/large`, { dispatcher: agent })).arrayBuffer()
        if (buffer.byteLength !== downloadBytes) throw new Error(`fetch read ${buffer.byteLength} bytes`)
      })
      const r = await timed(async () => {
        const { body } = await agent.request({ origin, path: '/large', method: 'GET' })
        const buffer = await body.arrayBuffer()
        if (buffer.byteLength !== downloadBytes) throw new Error(`request read ${buffer.byteLength} bytes`)
      })
      // The first round only warms up.
      if (i > 0) {
        fetchTimes.push(f)
        requestTimes.push(r)
      }
    }

    const file = path.join(dir, 'upload.bin')
    const handle = await open(file, 'w')
    const block = Buffer.alloc(MiB, 98)
    for (let written = 0; written < uploadBytes; written += block.length) await handle.write(block)
    await handle.close()
    const openAsBlob = (fs as unknown as { openAsBlob: (p: string) => Promise<Blob> }).openAsBlob
    const formDataPeakBytes = await peakGrowth(async () => {
      const form = new FormData()
      form.append('field', 'value')
      form.append('file', await openAsBlob(file), 'upload.bin')
      const text = await (await fetch(`${origin}/upload`, { method: 'POST', body: form, dispatcher: agent })).text()
      if (Number(text) < uploadBytes) throw new Error(`server received ${text} bytes`)
    })
    const streamPeakBytes = await peakGrowth(async () => {
      let sent = 0
      const stream = new ReadableStream<Uint8Array>({
        pull (controller) {
          if (sent >= uploadBytes) {
            controller.close()
            return
          }
          sent += block.length
          controller.enqueue(new Uint8Array(block))
        }
      })
      const text = await (await fetch(`${origin}/upload`, { method: 'POST', body: stream, duplex: 'half', dispatcher: agent })).text()
      if (Number(text) !== uploadBytes) throw new Error(`server received ${text} bytes`)
    })
    return { downloadBytes, fetchMs: median(fetchTimes), requestMs: median(requestTimes), uploadBytes, formDataPeakBytes, streamPeakBytes }
  } finally {
    await agent.close()
    server.stdin!.end()
    await once(server, 'exit')
    await rm(dir, { recursive: true, force: true })
  }
}

/** Formats the figures for the console. */
export function formatFetchLargeResult (r: FetchLargeResult): string {
  return [
    `fetch large bodies: ${(r.downloadBytes / MiB).toFixed(0)} MiB download, ${(r.uploadBytes / MiB).toFixed(0)} MiB uploads`,
    `  arrayBuffer(): fetch ${r.fetchMs.toFixed(1)} ms, request() ${r.requestMs.toFixed(1)} ms, ratio ${(r.fetchMs / r.requestMs).toFixed(2)}`,
    `  peak RSS growth: FormData upload ${(r.formDataPeakBytes / MiB).toFixed(1)} MiB, ReadableStream upload ${(r.streamPeakBytes / MiB).toFixed(1)} MiB`
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Optional sizes in MiB and a run count, for a quick look: `fetch-large.js 1 1 1`.
  const [download, upload, runs] = process.argv.slice(2).map(Number)
  for (const n of [download, upload, runs]) {
    if (n !== undefined && !(Number.isInteger(n) && n > 0)) throw new TypeError(`sizes and runs must be positive integers, got ${process.argv.slice(2).join(' ')}`)
  }
  runFetchLargeBenchmark({
    downloadBytes: download === undefined ? undefined : download * MiB,
    uploadBytes: upload === undefined ? undefined : upload * MiB,
    runs
  }).then((result) => {
    process.stdout.write(formatFetchLargeResult(result) + '\n')
  }, (err: unknown) => {
    process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`)
    process.exitCode = 1
  })
}
