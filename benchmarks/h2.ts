/**
 * HTTP/2 benchmark (`npm run bench -- h2`): conduit's Client against undici's, both with
 * `allowH2` over TLS to one node:http2 origin in its own process; each client runs in a fresh
 * process per round, 50 streams in flight on one session, for GET 1 KiB and GET 1 MiB. Rounds
 * alternate the clients; the report gives conduit ÷ undici ratios (median and spread), and the
 * same ratio for a bare node:http2 session (`node-http2`): the ceiling of any client built on
 * node:http2, since both clients are. `BENCH_H2_ROUNDS` sets the rounds, `BENCH_H2_SCALE` multiplies the request counts.
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { median } from './report/stats.js'

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))

interface Figures { reqPerSec: number, cpuUsPerReq: number }

/** Multiplies every scenario's request count (`BENCH_H2_SCALE=0.01` for a smoke run). */
const SCALE = Number(process.env.BENCH_H2_SCALE ?? 1)
const SCENARIOS = [
  { name: 'GET 1 KiB', path: '/1k', requests: Math.max(1, Math.round(20_000 * SCALE)) },
  { name: 'GET 1 MiB', path: '/1m', requests: Math.max(1, Math.round(600 * SCALE)) }
] as const
const CONCURRENCY = 50
const ROUNDS = Number(process.env.BENCH_H2_ROUNDS ?? 3)
/** The two clients, and node:http2 alone as the ceiling of both. */
const CLIENTS = ['conduit', 'undici', 'node-http2'] as const

async function clientRound (impl: string, origin: string, path: string, requests: number): Promise<Figures> {
  const child = spawn(process.execPath, [here('./clients/h2-client.js'), impl, origin, path, String(requests), String(CONCURRENCY)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`h2 benchmark client ${impl} exited with code ${String(code)}`)
  return JSON.parse(out) as Figures
}

function spread (values: number[]): string {
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`
}

async function main (): Promise<void> {
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 20) throw new TypeError(`BENCH_H2_ROUNDS must be an integer from 1 to 20, got ${process.env.BENCH_H2_ROUNDS}`)
  if (!(SCALE > 0 && SCALE <= 10)) throw new TypeError(`BENCH_H2_SCALE must be a number above 0 and at most 10, got ${process.env.BENCH_H2_SCALE}`)
  const server = spawn(process.execPath, [here('./origins/h2-origin.js')], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(server.stdout!, 'data') as [Buffer]
  const origin = `https://localhost:${data.toString().trim()}`
  try {
    for (const scenario of SCENARIOS) {
      const speed: number[] = []
      const cpu: number[] = []
      const ceiling: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate who goes first, so no client always runs on a warmer machine.
        const order = CLIENTS.map((_, k) => CLIENTS[(k + round) % CLIENTS.length]!)
        const figures: Record<string, Figures> = {}
        for (const impl of order) figures[impl] = await clientRound(impl, origin, scenario.path, scenario.requests)
        speed.push(figures.conduit!.reqPerSec / figures.undici!.reqPerSec)
        cpu.push(figures.conduit!.cpuUsPerReq / figures.undici!.cpuUsPerReq)
        ceiling.push(figures['node-http2']!.reqPerSec / figures.undici!.reqPerSec)
      }
      process.stdout.write(`h2 ${scenario.name}, ${CONCURRENCY} streams on one session: conduit ÷ undici req/s ${median(speed).toFixed(2)}x (${spread(speed)}), CPU/req ${median(cpu).toFixed(2)}x (${spread(cpu)}); bare node:http2 ÷ undici req/s ${median(ceiling).toFixed(2)}x (${spread(ceiling)}) over ${ROUNDS} rounds\n`)
    }
  } finally {
    server.stdin!.end()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
