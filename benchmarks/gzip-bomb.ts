/**
 * What `maxResponseSize` saves on a compression bomb: fetch + `arrayBuffer()` of a gzip body
 * that inflates 1000-fold (256 KiB on the wire, 256 MiB decoded), with no limit and with a
 * 1 MiB limit. Prints the time and the peak resident memory growth of each, and their ratios.
 * Run on its own: `node dist/benchmarks/gzip-bomb.js` (or `npm run bench -- gzip`).
 * @module
 */

import http from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { Agent } from '../src/dispatcher/agent.js'
import { fetch } from '../src/fetch/fetch.js'

const MiB = 1024 * 1024

/** Figures of one way of reading the bomb. */
export interface BombFigures {
  /** Milliseconds from fetch() to the body read (or its failure). */
  ms: number
  /** Peak resident memory growth meanwhile, in bytes. */
  peakBytes: number
  /** How the read ended: `read N bytes` or the error's cause name. */
  outcome: string
}

async function measure (origin: string, maxResponseSize: number): Promise<BombFigures> {
  const agent = new Agent({ maxResponseSize })
  global.gc?.()
  const base = process.memoryUsage().rss
  let peak = base
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 5)
  const start = process.hrtime.bigint()
  let outcome: string
  try {
    const body = await (await fetch(origin, { dispatcher: agent })).arrayBuffer()
    outcome = `read ${body.byteLength} bytes`
  } catch (err) {
    outcome = ((err as Error).cause as Error | undefined)?.name ?? String(err)
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  peak = Math.max(peak, process.memoryUsage().rss)
  clearInterval(sampler)
  await agent.close()
  return { ms, peakBytes: peak - base, outcome }
}

/** Serves the bomb on 127.0.0.1, reads it both ways (limited first, before the heap has grown), and returns the figures. */
export async function runGzipBombBenchmark (decodedBytes = 256 * MiB, limit = MiB): Promise<{ unlimited: BombFigures, limited: BombFigures, wireBytes: number }> {
  const bomb = gzipSync(Buffer.alloc(decodedBytes))
  const server = http.createServer((_req, res) => {
    res.setHeader('content-encoding', 'gzip')
    res.end(bomb)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  try {
    const limited = await measure(origin, limit)
    const unlimited = await measure(origin, -1)
    return { unlimited, limited, wireBytes: bomb.length }
  } finally {
    server.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { unlimited, limited, wireBytes } = await runGzipBombBenchmark()
  const mib = (n: number): string => `${(n / MiB).toFixed(1)} MiB`
  console.log(`gzip bomb: ${mib(wireBytes)} on the wire, 256 MiB decoded`)
  console.log(`  no limit:                 ${unlimited.ms.toFixed(0)} ms, peak RSS +${mib(unlimited.peakBytes)}, ${unlimited.outcome}`)
  console.log(`  maxResponseSize 1 MiB:    ${limited.ms.toFixed(0)} ms, peak RSS +${mib(limited.peakBytes)}, ${limited.outcome}`)
  // Memory growth under a few MiB is noise of the sampler, so the memory ratio is floored at 1 MiB.
  console.log(`  ratio (no limit / limit): time x${(unlimited.ms / limited.ms).toFixed(1)}, peak memory at least x${(unlimited.peakBytes / Math.max(limited.peakBytes, MiB)).toFixed(0)}`)
}
