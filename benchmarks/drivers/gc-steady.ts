/**
 * Steady-state bytes and garbage collections of one client, without timing: runs
 * `instruction-driver.ts` with `--trace-gc-nvp`, lets it warm up, and adds up what V8 reports for
 * the collections of the measured round only (from the young-generation collection before it to
 * the one after it, both forced by the driver). V8's `allocated` field is the bytes allocated since the previous
 * collection, so the sum over the round is every byte the round allocated on the JavaScript heap;
 * `promoted` is what lived long enough to be copied into the old generation. Both, like the
 * number of scavenges and mark-sweeps, depend on the code and not on how loaded the machine is.
 * The runtime measured is the one running this script; extra V8 flags for the driver (for example
 * `--max-semi-space-size=1`) go in `BENCH_NODE_FLAGS`. Modes `h2` and `websocket` run the HTTP/2 and
 * WebSocket drivers, with the arguments `instruction-steady.ts` takes for them (`steady-driver.ts`).
 *
 * Usage: node gc-steady.js <conduit|undici|ws|node-http2> <mode> <scenario> <warmup> <requests> <origin> [streams|connections]
 * @module
 */

import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { steadyDriver } from './steady-driver.js'

const [library = 'conduit', mode = 'request', scenario = 'small', warmup = '5000', requests = '3000', origin = '', extra = '50'] = process.argv.slice(2)
const { file: driver, args: driverArgs, shape } = steadyDriver(library, mode, scenario, warmup, requests, origin, extra)
const counted = Number(requests)
if (!Number.isInteger(counted) || counted < 1) throw new TypeError(`requests must be a positive integer, got ${requests}`)
if (!/^\d+$/.test(warmup) || warmup === '0') throw new TypeError(`warmup must be a positive integer, got ${warmup}`)
const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag !== '')

/** What the collections of the measured round add up to. */
interface RoundGc {
  allocated: number
  promoted: number
  scavenges: number
  markSweeps: number
  /** Heap after the scavenge that closes the round (the old generation's garbage included). */
  liveAfter: number
}

const round: RoundGc = { allocated: 0, promoted: 0, scavenges: 0, markSweeps: 0, liveAfter: 0 }
let measuring = false

/** Reads one `--trace-gc-nvp` line's numeric field. */
function field (line: string, name: string): number {
  const found = new RegExp(`(?:^|\\s)${name}=(\\d+)`).exec(line)
  return found === null ? 0 : Number(found[1])
}

function countGc (line: string): void {
  const kind = /\sgc=(\w+)/.exec(line)?.[1]
  if (kind === undefined) return
  round.allocated += field(line, 'allocated')
  round.promoted += field(line, 'promoted')
  if (kind === 's') round.scavenges++
  else round.markSweeps++
  round.liveAfter = field(line, 'end_object_size')
}

const child = spawn(process.execPath, [
  '--expose-gc', '--trace-gc-nvp', ...extraFlags, driver, ...driverArgs
], { stdio: ['pipe', 'pipe', 'inherit'] })

createInterface({ input: child.stdout }).on('line', (line) => {
  if (line === 'ready') {
    measuring = true
    child.stdin.write('go\n')
  } else if (line === 'done') {
    measuring = false
    child.stdin.end()
  } else if (measuring) {
    countGc(line)
  }
})

child.on('exit', (code) => {
  if (code !== 0 || round.scavenges === 0) {
    console.error(`the driver failed or forced no collection (exit code ${String(code)})`)
    process.exitCode = 1
    return
  }
  const perRequest = (n: number): string => (n / counted).toFixed(0)
  const perThousand = (n: number): string => (n * 1000 / counted).toFixed(2)
  const flags = extraFlags.length > 0 ? ` (${extraFlags.join(' ')})` : ''
  console.log(`${library} ${shape} on Node ${process.versions.node}${flags}, ${counted} requests after ${warmup}:`)
  console.log(`  allocated ${perRequest(round.allocated)} B/request, promoted ${perRequest(round.promoted)} B/request`)
  // The closing scavenge is the driver's own; it is not counted as one the round needed.
  console.log(`  scavenges ${perThousand(round.scavenges - 1)} per 1000 requests (+1 forced), mark-sweeps ${round.markSweeps}`)
  console.log(`  heap after the round ${(round.liveAfter / 1024).toFixed(0)} KiB`)
})
