/**
 * `npm run bench -- websocket`: echo round trips per second and client CPU per message for
 * 16 B, 1 KiB, 64 KiB and 1 MiB messages over 1 and over 50 connections, conduit's WebSocket
 * against undici's and the `ws` client, each client in its own process against one `ws` echo
 * server (also in its own process). Each row runs `BENCH_WS_ROUNDS` rounds (default 3), every
 * round a fresh process per library, the order of the libraries rotating from round to round; a
 * client warms up with a fifth of its round trips before it measures. A ratio is taken round by
 * round and the median is printed with its spread (lowest–highest).
 * `BENCH_WS_MESSAGES` sets the round trips per connection for 16 B (fewer for larger messages).
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { median } from './report/stats.js'

const dir = fileURLToPath(new URL('.', import.meta.url))
const LIBRARIES = ['conduit', 'undici', 'ws'] as const
const SIZES = [16, 1024, 64 * 1024, 1024 * 1024]
const CONNECTIONS = [1, 50]

interface ClientResult { roundTrips: number, seconds: number, cpuMicros: number }

/** Round trips per connection: the base count for small messages, scaled down for large ones. */
function messagesFor (size: number, connections: number, base: number): number {
  const bySize = size >= 1024 * 1024 ? base / 25 : size >= 64 * 1024 ? base / 10 : base
  return Math.max(1, Math.round(bySize / (connections > 1 ? 5 : 1)))
}

async function runClient (library: string, url: string, size: number, connections: number, messages: number): Promise<ClientResult> {
  const warmup = Math.max(1, Math.round(messages / 5))
  const child = spawn(process.execPath, [`${dir}clients/websocket-client.js`, library, url, String(size), String(connections), String(messages), String(warmup)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`${library} client exited with code ${String(code)}`)
  return JSON.parse(out) as ClientResult
}

/** A ratio's median over the rounds with its spread, e.g. `1.10× (1.02–1.21)`. */
function ratio (values: number[]): string {
  return `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`
}

function label (size: number): string {
  return size >= 1024 * 1024 ? `${size / 1024 / 1024} MiB` : size >= 1024 ? `${size / 1024} KiB` : `${size} B`
}

async function main (): Promise<void> {
  const base = Number(process.env.BENCH_WS_MESSAGES ?? 5000)
  const rounds = Number(process.env.BENCH_WS_ROUNDS ?? 3)
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new TypeError(`BENCH_WS_ROUNDS must be an integer from 1 to 20, got ${process.env.BENCH_WS_ROUNDS}`)
  const server = spawn(process.execPath, [`${dir}origins/websocket-origin.js`], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const [port] = await once(server.stdout.setEncoding('utf8'), 'data') as [string]
    const url = `ws://127.0.0.1:${port.trim()}/`
    process.stdout.write(`message, connections | round trips/s: conduit / undici / ws | CPU µs per message: conduit / undici / ws | conduit ÷ undici, ÷ ws (round trips/s, median of ${rounds} rounds and spread)\n`)
    for (const connections of CONNECTIONS) {
      for (const size of SIZES) {
        const messages = messagesFor(size, connections, base)
        const rates: number[][] = LIBRARIES.map(() => [])
        const cpus: number[][] = LIBRARIES.map(() => [])
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < LIBRARIES.length; k++) {
            const i = (k + round) % LIBRARIES.length
            const result = await runClient(LIBRARIES[i]!, url, size, connections, messages)
            rates[i]!.push(result.roundTrips / result.seconds)
            cpus[i]!.push(result.cpuMicros / result.roundTrips)
          }
        }
        const byRound = (i: number): number[] => rates[0]!.map((rate, round) => rate / rates[i]![round]!)
        const rate = rates.map(median)
        const cpu = cpus.map(median)
        process.stdout.write(`${label(size)}, ${connections} | ${rate.map((r) => r.toFixed(0)).join(' / ')} | ${cpu.map((c) => c.toFixed(1)).join(' / ')} | ${ratio(byRound(1))}, ${ratio(byRound(2))}\n`)
      }
    }
  } finally {
    server.kill()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
