/**
 * A terminal waterfall of where a few requests' time went, from `timings` on each `request()`
 * result. It starts its own origin on 127.0.0.1 (one fast path, one that waits before answering
 * and between body chunks), sends a few requests through one Agent, and prints one bar per
 * request on a shared time axis. Run it with `node dist/examples/waterfall.js`.
 */

import http from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { Agent } from '../src/index.js'
import type { RequestTimings, TimingPhases } from '../src/index.js'

/** The phases in the order a request lives them, each with the character its bar is drawn in. */
const PHASES: ReadonlyArray<[keyof TimingPhases, string]> = [
  ['wait', '.'], ['dns', 'd'], ['tcp', 'c'], ['tls', 's'], ['request', 'r'], ['firstByte', '-'], ['download', '=']
]
const WIDTH = 60

function startOrigin (): http.Server {
  return http.createServer((req, res) => {
    if (req.url === '/slow') {
      // The origin thinks before it answers, then sends its body in two parts.
      setTimeout(() => {
        res.write('first half, ')
        setTimeout(() => res.end('second half'), 40)
      }, 60)
      return
    }
    res.end('fast')
  })
}

/** One bar: `offset` columns of blank, then each phase's share of the axis in its character. */
function bar (timings: RequestTimings, start: number, scale: number): string {
  const offset = ' '.repeat(Math.round((timings.queued - start) * scale))
  let drawn = ''
  for (const [name, mark] of PHASES) drawn += mark.repeat(Math.round(timings.phases[name] * scale))
  if (drawn !== '') return offset + drawn
  // Shorter than a column: one mark of its longest phase, so that every request shows.
  const [, longest] = PHASES.reduce((a, b) => timings.phases[b[0]] > timings.phases[a[0]] ? b : a)
  return offset + longest
}

async function main (): Promise<void> {
  const origin = startOrigin()
  origin.listen(0, '127.0.0.1')
  await once(origin, 'listening')
  const url = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
  const agent = new Agent()
  const rows: Array<{ label: string, timings: RequestTimings }> = []
  const send = async (path: string): Promise<void> => {
    const { body, timings } = await agent.request({ origin: url, path, method: 'GET' })
    await body.text()
    rows.push({ label: `GET ${path}`, timings: timings! })
  }
  try {
    await send('/fast')
    // Two at once: one reuses the idle connection, the other opens a second one.
    await Promise.all([send('/slow'), send('/fast')])
    await send('/fast')
  } finally {
    await agent.close()
    origin.close()
  }
  rows.sort((a, b) => a.timings.queued - b.timings.queued)
  const start = Math.min(...rows.map((row) => row.timings.queued))
  const end = Math.max(...rows.map((row) => row.timings.responseEnd ?? row.timings.queued))
  const scale = WIDTH / Math.max(end - start, 1)
  console.log(`${'request'.padEnd(10)} ${'total'.padStart(8)}  ${'reused'.padEnd(6)} waterfall (${(end - start).toFixed(1)} ms across)`)
  for (const { label, timings } of rows) {
    const reused = timings.reusedSocket ? 'yes' : 'no'
    console.log(`${label.padEnd(10)} ${`${timings.phases.total.toFixed(1)} ms`.padStart(8)}  ${reused.padEnd(6)} |${bar(timings, start, scale)}`)
  }
  console.log(`\n${PHASES.map(([name, mark]) => `${mark} ${name}`).join('  ')}`)
  for (const { label, timings } of rows) {
    console.log(`${label.padEnd(10)} ${PHASES.map(([name]) => `${name} ${timings.phases[name].toFixed(1)}`).join(', ')} (ms)`)
  }
}

await main()
