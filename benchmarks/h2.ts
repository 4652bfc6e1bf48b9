/**
 * HTTP/2 benchmark (`npm run bench -- h2`): conduit's Client against undici's (undici 8 where the
 * runtime loads it, else undici 7), both with `allowH2` over TLS, and a bare node:http2 session
 * (`node-http2`, nothing around it: the floor of a client built on node:http2). Each client runs
 * in a fresh process per round; rounds rotate which client goes first.
 *
 * Rows:
 * - GET 1 KiB and GET 1 MiB, 50 streams in flight on one session, against each origin of
 *   `origins/h2-origins.ts` (node:http2, nginx, h2o): req/s and CPU per request, as conduit ÷
 *   undici, conduit ÷ bare node:http2 and bare node:http2 ÷ undici.
 * - 1,000 concurrent streams on one session, memory per open stream: the scale suite's `h2`
 *   scenario (`scale.ts`), which needs an origin that holds every stream until all are open.
 * - A 10 MiB download through a relay that adds 25 ms each way (`origins/delay-relay.ts`): conduit
 *   with its own windows against conduit told to advertise fixed 64 KiB windows, undici, and a
 *   bare node:http2 session with 64 KiB windows.
 *
 * Environment: `BENCH_H2_ROUNDS` (default 3), `BENCH_H2_SCALE` (fraction of the request counts,
 * default 1), `BENCH_H2_ORIGINS` (default `node-http2,nginx,h2o`), `BENCH_H2_STREAMS` (default
 * 1000), `BENCH_H2_RTT_MS` (added round trip, default 50), `BENCH_H2_ROWS` (default
 * `requests,streams,download`).
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { median, spreadText } from './report/stats.js'
import { childFigures } from './report/child-figures.js'
import { H2_ORIGINS, startH2Origin } from './origins/h2-origins.js'
import type { H2Origin, H2OriginName } from './origins/h2-origins.js'
import { DOWNLOAD_CLIENTS } from './clients/h2-download.js'
import { startDelayRelay } from './origins/delay-relay.js'

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))

interface Figures { reqPerSec: number, cpuUsPerReq: number }

const SCENARIOS = [
  { name: 'GET 1 KiB', path: '/1k', requests: 20_000 },
  { name: 'GET 1 MiB', path: '/1m', requests: 600 }
] as const
const CONCURRENCY = 50
/** The two clients, and node:http2 alone as the floor under both. */
const CLIENTS = ['conduit', 'undici', 'node-http2'] as const
const ROWS = ['requests', 'streams', 'download'] as const
const DOWNLOAD_PATH = '/10m'

/** An integer environment setting from `min` to `max`. */
function integerSetting (name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]
  const value = raw === undefined ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) throw new TypeError(`${name} must be an integer from ${min} to ${max}, got ${String(raw)}`)
  return value
}

/** A comma-separated environment setting whose every item is one of `allowed`. */
function listSetting<T extends string> (name: string, allowed: readonly T[]): T[] {
  const raw = process.env[name]
  if (raw === undefined) return [...allowed]
  const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '')
  const unknown = items.filter((item) => !allowed.includes(item as T))
  if (unknown.length > 0) throw new TypeError(`${name}: unknown ${unknown.join(', ')} (${allowed.join(', ')})`)
  return items as T[]
}

const ROUNDS = integerSetting('BENCH_H2_ROUNDS', 3, 1, 20)
const STREAMS = integerSetting('BENCH_H2_STREAMS', 1000, 1, 5000)
const RTT_MS = integerSetting('BENCH_H2_RTT_MS', 50, 0, 1000)
const SCALE = Number(process.env.BENCH_H2_SCALE ?? 1)
if (!(SCALE > 0 && SCALE <= 1)) throw new TypeError(`BENCH_H2_SCALE must be a number above 0 and at most 1, got ${String(process.env.BENCH_H2_SCALE)}`)

/** Runs `script args` in a fresh process and parses the JSON line it prints. */


/** `label median (spread)` of a list of ratios. */
function ratioText (label: string, values: number[]): string {
  return `${label} ${median(values).toFixed(2)}x (${spreadText(values)})`
}

/** The order clients run in round `round`: rotated, so no client always runs on a warmer machine. */
function rotated<T> (items: readonly T[], round: number): T[] {
  return items.map((_, k) => items[(k + round) % items.length]!)
}

async function requestRows (origin: H2Origin): Promise<void> {
  for (const scenario of SCENARIOS) {
    const requests = Math.max(1, Math.round(scenario.requests * SCALE))
    const ratios = { speed: [] as number[], cpu: [] as number[], speedBare: [] as number[], cpuBare: [] as number[], bare: [] as number[] }
    for (let round = 0; round < ROUNDS; round++) {
      const figures: Record<string, Figures> = {}
      for (const impl of rotated(CLIENTS, round)) {
        figures[impl] = await childFigures<Figures>(here('./clients/h2-client.js'), [impl, origin.url, scenario.path, String(requests), String(CONCURRENCY)], `h2 benchmark client ${impl}`)
      }
      const [conduit, undici, bare] = [figures.conduit!, figures.undici!, figures['node-http2']!]
      ratios.speed.push(conduit.reqPerSec / undici.reqPerSec)
      ratios.cpu.push(conduit.cpuUsPerReq / undici.cpuUsPerReq)
      ratios.speedBare.push(conduit.reqPerSec / bare.reqPerSec)
      ratios.cpuBare.push(conduit.cpuUsPerReq / bare.cpuUsPerReq)
      ratios.bare.push(bare.reqPerSec / undici.reqPerSec)
    }
    process.stdout.write(`h2 ${scenario.name} from ${origin.name}, ${CONCURRENCY} streams on one session, ${requests} requests: ` +
      `${ratioText('conduit ÷ undici req/s', ratios.speed)}, ${ratioText('CPU/req', ratios.cpu)}; ` +
      `${ratioText('conduit ÷ bare node:http2 req/s', ratios.speedBare)}, ${ratioText('CPU/req', ratios.cpuBare)}; ` +
      `${ratioText('bare node:http2 ÷ undici req/s', ratios.bare)} over ${ROUNDS} rounds\n`)
  }
}

/** The scale suite's `h2` scenario: memory and CPU per open stream, conduit against undici. */
async function streamRow (): Promise<void> {
  process.stdout.write(`h2 ${STREAMS} concurrent streams on one session (the scale suite's h2 scenario):\n`)
  const child = spawn(process.execPath, [here('./scale.js'), '--only=h2', `--streams=${STREAMS}`, `--repeats=${ROUNDS}`], { stdio: ['ignore', 'inherit', 'inherit'] })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`h2 benchmark stream row (scale.js) exited with code ${String(code)}`)
}

/**
 * The download through the delay relay. Today conduit's windows are node:http2's, fixed at what
 * it advertises (256 KiB per stream); `conduit-64k` is the same client told to advertise 64 KiB.
 */
async function downloadRow (origin: H2Origin): Promise<void> {
  const relay = await startDelayRelay(Number(new URL(origin.url).port), RTT_MS / 2)
  try {
    const url = `https://localhost:${relay.port}`
    const names = Object.keys(DOWNLOAD_CLIENTS)
    const seconds: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
    const speedup: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const times: Record<string, number> = {}
      for (const name of rotated(names, round)) {
        const figures = await childFigures<{ seconds: number, bytes: number }>(here('./clients/h2-download.js'), [name, url, DOWNLOAD_PATH], `h2 benchmark download client ${name}`)
        times[name] = figures.seconds
        seconds[name]!.push(figures.seconds)
      }
      speedup.push(times['conduit-64k']! / times.conduit!)
    }
    const each = names.map((name) => `${name} ${median(seconds[name]!).toFixed(2)} s`).join(', ')
    process.stdout.write(`h2 10 MiB download from ${origin.name} with ${RTT_MS} ms added RTT: ${each} (medians); ` +
      `${ratioText('conduit ÷ conduit-64k speed', speedup)} over ${ROUNDS} rounds\n`)
  } finally {
    await relay.close()
  }
}

async function main (): Promise<void> {
  const rows = listSetting('BENCH_H2_ROWS', ROWS)
  const origins: H2Origin[] = []
  try {
    for (const name of listSetting<H2OriginName>('BENCH_H2_ORIGINS', H2_ORIGINS)) {
      const origin = await startH2Origin(name)
      if (origin !== null) origins.push(origin)
    }
    if (rows.includes('requests')) for (const origin of origins) await requestRows(origin)
    if (rows.includes('streams')) await streamRow()
    // A file server in C sends the 10 MiB at whatever pace the client's windows allow.
    const downloadOrigin = origins.find((origin) => origin.name !== 'node-http2') ?? origins[0]
    if (rows.includes('download') && downloadOrigin !== undefined) await downloadRow(downloadOrigin)
  } finally {
    for (const origin of origins) await origin.stop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
