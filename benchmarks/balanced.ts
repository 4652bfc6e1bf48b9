/**
 * BalancedPool benchmark (`npm run bench -- balanced`): conduit's BalancedPool against undici's
 * over three origins, each the transport benchmark's server in its own process; each client runs
 * in a fresh process per round with 50 requests in flight, GET 1 KiB. One discarded warm-up round
 * of each library comes first, so that the origin servers are warm for whoever is measured first;
 * then the measured rounds alternate which library goes first (an even count, so each goes first
 * as often). The report gives conduit ÷ undici ratios (median and spread) and each round's figures.
 *
 * Options: `--requests=N` per round (default 20000), `--rounds=N` (default 4, made even).
 * @module
 */

import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { median, spreadText } from './report/stats.js'
import { childFigures, positiveInteger } from './report/child-figures.js'

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))

interface Figures { reqPerSec: number, cpuUsPerReq: number }

const ORIGINS = 3
const CONCURRENCY = 50
const PATH = '/small'
/** Requests of the discarded warm-up round of each library. */
const WARM_UP_REQUESTS = 5000

async function startOrigin (): Promise<{ origin: string, process: ChildProcess }> {
  const server = spawn(process.execPath, [here('./origins/h1-origin.js')], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(server.stdout!, 'data') as [Buffer]
  return { origin: `http://127.0.0.1:${data.toString().trim()}`, process: server }
}

async function clientRound (impl: string, origins: string[], requests: number): Promise<Figures> {
  return await childFigures<Figures>(here('./clients/balanced-client.js'), [impl, PATH, String(requests), String(CONCURRENCY), ...origins], `balanced benchmark client ${impl}`)
}



async function main (): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string' }, rounds: { type: 'string' } } })
  const requests = positiveInteger(values.requests, 20_000, 'requests')
  // Odd counts would let one library go first once more than the other.
  const asked = positiveInteger(values.rounds, 4, 'rounds')
  const rounds = asked + (asked % 2)
  const servers = await Promise.all(Array.from({ length: ORIGINS }, startOrigin))
  try {
    const origins = servers.map((s) => s.origin)
    // Fresh server processes start cold (JIT, first connections): a first measured client would
    // pay for that. One round of each, not counted, warms them for both.
    for (const impl of ['conduit', 'undici']) await clientRound(impl, origins, Math.min(requests, WARM_UP_REQUESTS))
    const speed: number[] = []
    const cpu: number[] = []
    for (let round = 0; round < rounds; round++) {
      // Alternate who goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? ['conduit', 'undici'] : ['undici', 'conduit']
      const figures: Record<string, Figures> = {}
      for (const impl of order) figures[impl] = await clientRound(impl, origins, requests)
      speed.push(figures.conduit!.reqPerSec / figures.undici!.reqPerSec)
      cpu.push(figures.conduit!.cpuUsPerReq / figures.undici!.cpuUsPerReq)
      process.stdout.write(`  round ${round + 1}: ${order.map((impl) => `${impl} ${figures[impl]!.reqPerSec.toFixed(0)} req/s ${figures[impl]!.cpuUsPerReq.toFixed(1)} µs/req`).join(', ')}\n`)
    }
    process.stdout.write(`BalancedPool, ${ORIGINS} origins, GET 1 KiB, ${CONCURRENCY} in flight: conduit ÷ undici req/s ${median(speed).toFixed(2)}x (${spreadText(speed)}), CPU/req ${median(cpu).toFixed(2)}x (${spreadText(cpu)}) over ${rounds} rounds\n`)
  } finally {
    for (const server of servers) server.process.stdin!.end()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
