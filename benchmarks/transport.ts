/**
 * Transport benchmark: conduit's `request()` (body read with 'data' events and with `for await`),
 * `dispatch()` and `fetch()` against undici's, and node:http with a keep-alive agent. One server
 * process, one process per client running every scenario in order, the same concurrency for all;
 * rounds interleaved (A B C A B C ...) so a noisy neighbour hurts every client alike; the first
 * round of each scenario is a discarded warm-up. Each round is a fixed number of requests and
 * has a deadline, so a run always ends by itself.
 * Run through `benchmarks/run.ts` (`npm run bench`), or call {@link runTransportBenchmark}.
 * @module
 */

import { fork, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { SCENARIOS, SMALL_BODY, scenarioByName } from './transport-scenarios.js'
import type { Scenario } from './transport-scenarios.js'
import type { RoundOrder, RoundReport } from './clients/measure.js'

/** A client implementation the runner can start. */
export interface ClientDefinition {
  /** Identifier used by `--clients` and `--cpu-prof`. */
  id: string
  /** Row label. */
  label: string
  /** Compiled client file, relative to this module. */
  file: string
  /** Mode argument of the client file. */
  mode: string
  /** The client can put a cache in front of its agent (it runs the cache scenario's cached rounds). */
  cache?: boolean
  /** The client parses the body as JSON, so it runs only the scenarios that answer JSON. */
  json?: boolean
}

/** Suffix of the sample id of a client's rounds through its cache. */
export const CACHED_SUFFIX = '+cache'

/** Every client, in row order. */
export const CLIENTS: readonly ClientDefinition[] = [
  { id: 'conduit-request', label: 'conduit request', file: './clients/conduit.js', mode: 'request', cache: true },
  { id: 'undici-request', label: 'undici request', file: './clients/undici.js', mode: 'request', cache: true },
  { id: 'conduit-timings', label: 'conduit request, timings read', file: './clients/conduit.js', mode: 'request-timings' },
  { id: 'conduit-iter', label: 'conduit for-await', file: './clients/conduit.js', mode: 'request-iter' },
  { id: 'undici-iter', label: 'undici for-await', file: './clients/undici.js', mode: 'request-iter' },
  { id: 'conduit-text', label: 'conduit text()', file: './clients/conduit.js', mode: 'request-text' },
  { id: 'undici-text', label: 'undici text()', file: './clients/undici.js', mode: 'request-text' },
  { id: 'conduit-json', label: 'conduit json()', file: './clients/conduit.js', mode: 'request-json', json: true },
  { id: 'undici-json', label: 'undici json()', file: './clients/undici.js', mode: 'request-json', json: true },
  { id: 'node-http', label: 'node:http', file: './clients/node-http.js', mode: 'request' },
  { id: 'conduit-dispatch', label: 'conduit dispatch', file: './clients/conduit.js', mode: 'dispatch' },
  { id: 'undici-dispatch', label: 'undici dispatch', file: './clients/undici.js', mode: 'dispatch' },
  { id: 'raw-socket', label: 'raw net.Socket', file: './clients/raw-socket.js', mode: 'request' },
  { id: 'conduit-fetch', label: 'conduit fetch', file: './clients/conduit.js', mode: 'fetch' },
  { id: 'undici-fetch', label: 'undici fetch', file: './clients/undici.js', mode: 'fetch' },
  { id: 'conduit-composed', label: 'conduit compose(redirect(), decompress())', file: './clients/conduit.js', mode: 'composed' },
  { id: 'undici-composed', label: 'undici compose(redirect(), decompress())', file: './clients/undici.js', mode: 'composed' }
]

/** Options of {@link runTransportBenchmark}. */
export interface TransportBenchmarkOptions {
  /**
   * Measured rounds per scenario and client (a warm-up round runs first and is discarded).
   * @defaultValue `5`
   */
  rounds?: number
  /**
   * Factor applied to every scenario's request count (0.1 for a quick look).
   * @defaultValue `1`
   */
  scale?: number
  /**
   * Scenario names to run.
   * @defaultValue every scenario
   */
  scenarios?: string[]
  /**
   * Client ids to run.
   * @defaultValue every client
   */
  clients?: string[]
  /**
   * Client ids to run under `--cpu-prof`, with profiles written to `cpuProfDir`.
   * @defaultValue `[]`
   */
  cpuProf?: string[]
  /**
   * Directory for CPU profiles.
   * @defaultValue the current directory
   */
  cpuProfDir?: string
  /**
   * Replace the server and TCP with in-memory sockets that answer at once, so CPU per request is
   * the library's own work only: far steadier than a real run, but blind to syscall costs.
   * @defaultValue `false`
   */
  memory?: boolean
  /**
   * The origin process: `net`, a minimal server whose cost per request is far below a client's,
   * or `http`, the same answers through node:http (which costs more than the clients it serves).
   * @defaultValue `'net'`
   */
  origin?: 'net' | 'http'
  /** Called after each measured round, for progress output. */
  onRound?: (scenario: Scenario, round: number) => void
}

/** Measurements of one client in one scenario, one entry per measured round. */
export interface ClientSamples {
  /** The client; for its rounds through the cache, a copy whose id ends in {@link CACHED_SUFFIX}. */
  client: ClientDefinition
  reqPerSec: number[]
  cpuUsPerReq: number[]
}

/** Measurements of one scenario. */
export interface ScenarioResult {
  scenario: Scenario
  /** True when measured over in-memory sockets. */
  memory: boolean
  requests: number
  rounds: number
  samples: ClientSamples[]
}

/** Longest a single round may take before the run is abandoned as hung. */
const ROUND_DEADLINE_MS = 180_000

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url))

interface Running {
  def: ClientDefinition
  child: ChildProcess
}

async function startServer (kind: 'net' | 'http'): Promise<{ origin: string, child: ChildProcess }> {
  const child = spawn(process.execPath, [here('./origins/h1-origin.js'), kind], { stdio: ['pipe', 'pipe', 'inherit'] })
  // A server that dies before printing its port must fail the run, not leave it waiting.
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (data: Buffer) => resolve(data.toString().trim()))
    child.once('exit', (code) => reject(new Error(`benchmark server exited with code ${String(code)} before listening`)))
    child.once('error', reject)
  })
  return { origin: `http://127.0.0.1:${port}`, child }
}

function nextMessage<T> (child: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`${what}: no answer within ${ROUND_DEADLINE_MS} ms`)), ROUND_DEADLINE_MS)
    const onMessage = (msg: { type: string, message?: string }): void => {
      if (msg.type === 'error') finish(new Error(`${what} failed: ${msg.message ?? ''}`))
      else finish(null, msg as T)
    }
    const onExit = (code: number | null): void => finish(new Error(`${what}: client exited with code ${String(code)}`))
    const finish = (err: Error | null, value?: T): void => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
      if (err !== null) reject(err)
      else resolve(value!)
    }
    child.on('message', onMessage)
    child.on('exit', onExit)
  })
}

async function startClient (def: ClientDefinition, origin: string, connections: number, options: TransportBenchmarkOptions): Promise<Running> {
  // --expose-gc lets each round collect its own garbage inside its measurement (clients/measure.ts).
  const execArgv = options.cpuProf?.includes(def.id) === true
    ? ['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir ?? process.cwd()}`, `--cpu-prof-name=${def.id}.cpuprofile`]
    : ['--expose-gc']
  const child = fork(here(def.file), [def.mode, origin, String(connections)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await nextMessage(child, `starting ${def.label}`)
  return { def, child }
}

async function stopClient ({ child }: Running): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  const timer = setTimeout(() => child.kill(), 10_000)
  // A client that failed may be exiting already: a send that cannot reach it kills it instead.
  if (child.connected) child.send({ type: 'close' }, (err) => { if (err !== null) child.kill() })
  else child.kill()
  await exited
  clearTimeout(timer)
}

async function round (client: Running, order: RoundOrder): Promise<RoundReport> {
  const answer = nextMessage<RoundReport>(client.child, `${client.def.label}, ${order.scenario}`)
  client.child.send(order)
  return answer
}

/**
 * Runs the selected scenarios with the selected clients and returns every measured round.
 * @example
 * const results = await runTransportBenchmark({ rounds: 5, scenarios: ['small'] })
 * console.log(formatTransportResults(results))
 */
export async function runTransportBenchmark (options: TransportBenchmarkOptions = {}): Promise<ScenarioResult[]> {
  const rounds = options.rounds ?? 5
  const scale = options.scale ?? 1
  if (!Number.isInteger(rounds) || rounds < 1) throw new TypeError(`rounds must be a positive integer, got ${String(rounds)}`)
  if (!(scale > 0)) throw new TypeError(`scale must be a positive number, got ${String(scale)}`)
  const scenarios = options.scenarios === undefined ? [...SCENARIOS] : options.scenarios.map(scenarioByName)
  const defs = options.clients === undefined ? [...CLIENTS] : options.clients.map(clientById)
  const connections = Math.max(...scenarios.map((s) => s.concurrency))

  const memory = options.memory === true
  const origin = options.origin ?? 'net'
  if (origin !== 'net' && origin !== 'http') throw new TypeError(`origin must be "net" or "http", got ${JSON.stringify(origin)}`)
  const server = memory ? null : await startServer(origin)
  const running: Running[] = []
  try {
    for (const def of defs) running.push(await startClient(def, server?.origin ?? 'memory', connections, options))
    const results: ScenarioResult[] = []
    for (const scenario of scenarios) {
      const requests = Math.max(1, Math.round(scenario.requests * scale))
      // The cache scenario runs the clients that can put a cache in front of their agent, each
      // twice a round: through the agent, then through the cache. Other scenarios run every client once.
      const lanes = scenario.cache === true
        ? running.filter((run) => run.def.cache === true).flatMap((run) => [{ run, cache: false }, { run, cache: true }])
        : running.filter((run) => run.def.json !== true || scenario.responseBytes === SMALL_BODY.length).map((run) => ({ run, cache: false }))
      const samples = lanes.map(({ run, cache }) => ({
        client: cache ? { ...run.def, id: run.def.id + CACHED_SUFFIX, label: `${run.def.label} + cache` } : run.def,
        reqPerSec: [] as number[],
        cpuUsPerReq: [] as number[]
      }))
      for (let r = 0; r <= rounds; r++) {
        // The order rotates each round, so no client always runs right after the same neighbour.
        for (let k = 0; k < lanes.length; k++) {
          const i = (k + r) % lanes.length
          const lane = lanes[i]!
          const report = await round(lane.run, { type: 'round', scenario: scenario.name, requests, concurrency: scenario.concurrency, cache: lane.cache })
          if (r === 0) continue
          samples[i]!.reqPerSec.push(requests / (report.elapsedNs / 1e9))
          samples[i]!.cpuUsPerReq.push(report.cpuUs / requests)
        }
        if (r > 0) options.onRound?.(scenario, r)
      }
      results.push({ scenario, memory, requests, rounds, samples })
    }
    return results
  } finally {
    await Promise.all(running.map(stopClient))
    if (server !== null && server.child.exitCode === null && server.child.signalCode === null) {
      const exited = once(server.child, 'exit')
      server.child.stdin!.end()
      await exited
    }
  }
}

/** Finds a client by id; throws a TypeError naming the unknown one. */
export function clientById (id: string): ClientDefinition {
  const def = CLIENTS.find((c) => c.id === id)
  if (def === undefined) throw new TypeError(`unknown client ${JSON.stringify(id)}; known: ${CLIENTS.map((c) => c.id).join(', ')}`)
  return def
}
