/**
 * Steady-state instruction counts of one client: runs `instruction-driver.ts` under callgrind
 * with counting off, lets it warm up (compilation happens there, and its amount varies from run
 * to run), turns counting on for the measured round only (`callgrind_control -i on/off`) and
 * prints the instructions per request of that round, the young-generation collection after it included.
 * Two runs of the same build agree far better than differences of whole-process counts do, and
 * the warm-up runs uncounted, several times faster. The runtime measured is the one running
 * this script; `BENCH_OTEL=1` registers the OpenTelemetry instrumentation as in the driver.
 * Mode `h2` runs `h2-instruction-driver.ts` instead: the scenario is the path (`/1k`, `/1m`) and
 * an optional last argument the streams in flight (50 by default). Mode `websocket` runs
 * `websocket-instruction-driver.ts`: the scenario is the message size in bytes, the origin the
 * echo server's ws: URL, the last argument the connections (50 by default), and a request is one
 * echo round trip; the library may also be `ws`.
 * `BENCH_CACHE_SIM=1` turns on callgrind's cache simulation and also prints the simulated
 * instruction-cache, data-cache and last-level misses per request: memory traffic that the
 * instruction count does not show, and that does not depend on load either.
 *
 * Usage: node instruction-steady.js <conduit|undici|ws> <mode> <scenario> <warmup> <requests> <origin> [streams]
 * @module
 */

import { execFileSync, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { steadyDriver } from './steady-driver.js'

const [library = 'conduit', mode = 'request', scenario = 'small', warmup = '5000', requests = '3000', origin = '', streams = '50'] = process.argv.slice(2)
const { file: driver, args: driverArgs, shape } = steadyDriver(library, mode, scenario, warmup, requests, origin, streams)
const counted = Number(requests)
if (!Number.isInteger(counted) || counted < 1) throw new TypeError(`requests must be a positive integer, got ${requests}`)
if (!/^\d+$/.test(warmup) || warmup === '0') throw new TypeError(`warmup must be a positive integer, got ${warmup}`)

const cacheSim = process.env.BENCH_CACHE_SIM === '1'
const child = spawn('valgrind', [
  '--tool=callgrind', '--instr-atstart=no', '--callgrind-out-file=/dev/null', ...(cacheSim ? ['--cache-sim=yes'] : []),
  process.execPath, '--expose-gc', driver, ...driverArgs
], { stdio: ['pipe', 'pipe', 'pipe'] })

/** Turns callgrind's counting on or off in the driver's process. */
function counting (on: boolean): void {
  execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(child.pid)], { stdio: 'ignore' })
}

let collected: number | null = null
/** With the cache simulation: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw, callgrind's event order. */
let events: number[] = []
createInterface({ input: child.stderr }).on('line', (line) => {
  const found = /Collected\s*:\s*([\d ]+)/.exec(line)
  if (found === null) return
  events = found[1].trim().split(/\s+/).map(Number)
  collected = events[0] ?? null
})

/** The cache misses of the counted round per request, when the simulation ran. */
function missesPerRequest (): string {
  if (!cacheSim || events.length < 9) return ''
  const [, , , i1, d1r, d1w, lli, lldr, lldw] = events as [number, number, number, number, number, number, number, number, number]
  const per = (n: number): string => (n / counted).toFixed(0)
  return `; misses per request: I1 ${per(i1)}, D1 ${per(d1r)} read and ${per(d1w)} write, LL ${per(lli + lldr + lldw)}`
}
createInterface({ input: child.stdout }).on('line', (line) => {
  if (line === 'ready') {
    counting(true)
    child.stdin.write('go\n')
  } else if (line === 'done') {
    counting(false)
    child.stdin.end()
  }
})
child.on('exit', (code) => {
  if (code !== 0 || collected === null) {
    console.error(`the driver under callgrind failed (exit code ${String(code)})`)
    process.exitCode = 1
    return
  }
  const otel = process.env.BENCH_OTEL === '1' ? ', OpenTelemetry on' : ''
  console.log(`${library} ${shape} on Node ${process.versions.node}${otel}: ${Math.round(collected / counted)} instructions per request (${counted} requests after ${warmup})${missesPerRequest()}`)
})
