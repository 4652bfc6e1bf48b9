/**
 * The part every benchmark client process shares: it waits for the runner's orders over IPC,
 * runs one round of a scenario with a fixed number of requests and a fixed number in flight,
 * and reports wall time and its own CPU time. Implementations only say how to send one request.
 * @module
 */

import type { Readable } from 'node:stream'
import { scenarioByName } from '../transport-scenarios.js'
import type { Scenario } from '../transport-scenarios.js'

/** Called once per finished request with the response body bytes received. */
export type RequestDone = (err: Error | null, bytes: number) => void

/** One client implementation, as seen by the round loop. */
export interface BenchClient {
  /** Sends one request of `scenario` and calls `done` once its response body was fully read. */
  send (scenario: Scenario, done: RequestDone): void
  /** Closes connections so the process can exit. */
  close (): Promise<void>
  /** The same client with a cache in front of its agent, for scenarios with a cacheable response. */
  cached?: BenchClient | undefined
}

/** The runner's order: run one round. */
export interface RoundOrder {
  type: 'round'
  scenario: string
  requests: number
  concurrency: number
  /** Send through the client's cache (`BenchClient.cached`) instead of its plain agent. */
  cache: boolean
}

/** What a client reports after a round. */
export interface RoundReport {
  type: 'result'
  elapsedNs: number
  /** User plus system CPU time of the client process during the round. */
  cpuUs: number
}

/** Reads a response body to its end with 'data' events, counting bytes; the same consumer for every implementation. */
export function drainBody (body: Readable, done: RequestDone): void {
  let bytes = 0
  body.on('data', (chunk: Buffer) => { bytes += chunk.length })
  body.on('end', () => done(null, bytes))
  body.on('error', (err: Error) => done(err, bytes))
}

/** Reads a response body to its end with `for await`, counting bytes. */
export function iterateBody (body: AsyncIterable<Buffer>, done: RequestDone): void {
  const read = async (): Promise<number> => {
    let bytes = 0
    for await (const chunk of body) bytes += chunk.length
    return bytes
  }
  read().then((bytes) => done(null, bytes), (err: Error) => done(err, 0))
}

/** Runs `total` requests keeping `concurrency` in flight; rejects on the first failure or a short body. */
export function runRound (client: BenchClient, scenario: Scenario, total: number, concurrency: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = 0
    let finished = 0
    let failed = false
    const onDone: RequestDone = (err, bytes) => {
      if (failed) return
      if (err === null && bytes !== scenario.responseBytes) {
        err = new Error(`${scenario.name}: response body had ${bytes} bytes, expected ${scenario.responseBytes}`)
      }
      if (err !== null) {
        failed = true
        reject(err)
        return
      }
      finished++
      if (finished === total) resolve()
      else if (started < total) next()
    }
    const next = (): void => {
      started++
      client.send(scenario, onDone)
    }
    const lanes = Math.min(concurrency, total)
    for (let i = 0; i < lanes; i++) next()
  })
}

/**
 * A young-generation collection (a scavenge), when the process was started with `--expose-gc`
 * (the runner and the drivers start every client so). Without one, garbage a round leaves behind
 * is collected while the process waits idle for its next round, outside any measurement, and a
 * client that allocates more per request looks cheaper than it is; a scavenge costs what its
 * survivors cost, so it charges that garbage and little else.
 *
 * Not a full collection: with no request alive, a full one clears the hidden classes of the
 * per-request objects and deoptimizes every function compiled against them ("embedded weak
 * objects cleared"), so the next round would start by recompiling its hot code. On Node 24 that
 * was 70–110 re-optimizations per round for either library, paid inside the round on the main
 * thread and V8's compiler threads: a cost a service with steady traffic never sees.
 */
export function collectYoungGarbage (): void {
  (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' })
}

async function measure (client: BenchClient, order: RoundOrder): Promise<RoundReport> {
  const scenario = scenarioByName(order.scenario)
  const target = order.cache ? client.cached : client
  if (target === undefined) throw new TypeError(`${scenario.name}: this client has no cache to send through`)
  // Every round starts from an empty young generation and pays, inside its measurement, for the garbage it made.
  collectYoungGarbage()
  const cpuStart = process.cpuUsage()
  const start = process.hrtime.bigint()
  await runRound(target, scenario, order.requests, order.concurrency)
  collectYoungGarbage()
  const elapsedNs = Number(process.hrtime.bigint() - start)
  const cpu = process.cpuUsage(cpuStart)
  return { type: 'result', elapsedNs, cpuUs: cpu.user + cpu.system }
}

/**
 * Serves the runner: one round per order, reported back in order; `close` ends the process.
 * Any failure is reported and ends the process with code 1, so the runner never waits forever.
 */
export function serveRounds (client: BenchClient): void {
  const send = process.send?.bind(process)
  if (send === undefined) throw new TypeError('benchmark clients run under the transport runner (they need an IPC channel)')
  const fail = (err: unknown): void => {
    send({ type: 'error', message: String((err as Error)?.stack ?? err) }, () => process.exit(1))
  }
  process.on('message', (order: RoundOrder | { type: 'close' }) => {
    if (order.type === 'close') {
      client.close().then(() => process.disconnect(), fail)
      return
    }
    measure(client, order).then((report) => send(report), fail)
  })
  // The runner's disappearance ends the client too: no orphan process keeps connections open.
  process.on('disconnect', () => process.exit(0))
  send({ type: 'ready' })
}
