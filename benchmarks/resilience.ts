/**
 * Resilience interceptor benchmark (`npm run bench -- resilience`): what each of `deadline()`,
 * `circuitBreaker()`, `rateLimit()`, `retry()` with a budget and `hedge()` (and all five composed)
 * costs on GET 1 KiB when it lets every request through. One origin (the transport benchmark's
 * `net` server) in its own process; each variant runs in a fresh client process per round with 50
 * requests in flight through `request()`. The plain Agent runs twice per round (`plain`,
 * `plain-again`): their ratio is the run-to-run spread an interceptor's cost is read against.
 * Rounds rotate which variant goes first. The report gives each variant ÷ plain, req/s and CPU per
 * request (median and spread).
 *
 * Options: `--requests=N` per round (default 20000), `--rounds=N` (default 3).
 * @module
 */

import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { median, spreadText } from './report/stats.js'
import { childFigures, positiveInteger } from './report/child-figures.js'
import { RESILIENCE_VARIANTS } from './clients/resilience-client.js'

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))

interface Figures { reqPerSec: number, cpuUsPerReq: number }

const CONCURRENCY = 50
const PATH = '/small'

async function startOrigin (): Promise<{ origin: string, process: ChildProcess }> {
  const server = spawn(process.execPath, [here('./origins/h1-origin.js')], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(server.stdout!, 'data') as [Buffer]
  return { origin: `http://127.0.0.1:${data.toString().trim()}`, process: server }
}

async function clientRound (variant: string, origin: string, requests: number): Promise<Figures> {
  return await childFigures<Figures>(here('./clients/resilience-client.js'), [variant, PATH, String(requests), String(CONCURRENCY), origin], `resilience benchmark client ${variant}`)
}



async function main (): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string' }, rounds: { type: 'string' } } })
  const requests = positiveInteger(values.requests, 20_000, 'requests')
  const rounds = positiveInteger(values.rounds, 3, 'rounds')
  const variants = Object.keys(RESILIENCE_VARIANTS)
  const server = await startOrigin()
  try {
    // A fresh origin process starts cold; one uncounted round warms it for every variant.
    await clientRound('plain', server.origin, Math.min(requests, 5000))
    const speed = new Map<string, number[]>(variants.map((v) => [v, []]))
    const cpu = new Map<string, number[]>(variants.map((v) => [v, []]))
    for (let round = 0; round < rounds; round++) {
      const shift = round % variants.length
      const order = [...variants.slice(shift), ...variants.slice(0, shift)]
      const figures: Record<string, Figures> = {}
      for (const variant of order) figures[variant] = await clientRound(variant, server.origin, requests)
      const base = figures.plain!
      for (const variant of variants) {
        speed.get(variant)!.push(figures[variant]!.reqPerSec / base.reqPerSec)
        cpu.get(variant)!.push(figures[variant]!.cpuUsPerReq / base.cpuUsPerReq)
      }
      process.stdout.write(`  round ${round + 1}: ${order.map((v) => `${v} ${figures[v]!.reqPerSec.toFixed(0)} req/s ${figures[v]!.cpuUsPerReq.toFixed(1)} µs/req`).join(', ')}\n`)
    }
    for (const variant of variants.filter((v) => v !== 'plain')) {
      const s = speed.get(variant)!
      const c = cpu.get(variant)!
      process.stdout.write(`GET 1 KiB, ${CONCURRENCY} in flight, ${variant} ÷ plain Agent: req/s ${median(s).toFixed(2)}x (${spreadText(s)}), CPU/req ${median(c).toFixed(2)}x (${spreadText(c)}) over ${rounds} rounds\n`)
    }
  } finally {
    server.process.stdin!.end()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
