/**
 * One scale-suite client process:
 * `node --expose-gc scale-client.js <conduit|undici> <idle|queued|origins|h2> <size> <origin-json>`.
 * Runs one scenario once with one library against the scale origin (`origins/scale-origin.ts`) and prints
 * its figures as one JSON line: memory per unit (connection, queued request, origin or stream)
 * from fully collected heaps before and after, and CPU microseconds per unit.
 * @module
 */

import http from 'node:http'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'
import * as conduit from '../../src/index.js'
import { undici } from '../../test/helpers/undici-reference.js'
import { caCrt } from '../../test/helpers/certs.js'

/** Where the origin process listens (what it prints). */
export interface ScaleOrigin { h1: Array<{ address: string, port: number }>, h2Port: number, controlPort: number }

/** What one client process prints. */
export interface ScaleFigures {
  /** Units measured: connections, queued requests, origins or streams. */
  units: number
  /** Bytes of JS heap per unit. */
  heapPerUnit: number
  /** Bytes outside the JS heap (buffers, native objects V8 knows of) per unit. */
  externalPerUnit: number
  /** Bytes of resident set per unit. */
  rssPerUnit: number
  /** Process CPU (user + system) microseconds per unit, over the scenario's active phase. */
  cpuUsPerUnit: number
  /** Requests that completed with status 200 (every one must). */
  completed: number
  /** Open HTTP/1.1 connections the origin counted while they idled (idle scenario only). */
  originSockets?: number
}

interface Response { statusCode: number, body: Readable }
interface Requester {
  request (opts: { origin?: string, path: string, method: string }): Promise<Response>
  close (): Promise<void>
}
type Library = 'conduit' | 'undici'

const HOST_SUFFIX = '.scale.test'
/** The longest any wait for the origin may take; a run always ends by itself. */
const DEADLINE_MS = 300_000

if (typeof globalThis.gc !== 'function') throw new Error('run scale-client with --expose-gc')
const gc = globalThis.gc as (options?: { type: string, execution: string, flavor: string }) => void

function agent (lib: Library, options: Record<string, unknown>): Requester {
  const Agent = lib === 'conduit' ? conduit.Agent : undici.Agent
  return new Agent(options as never) as unknown as Requester
}

function h2Client (lib: Library, origin: string, streams: number): Requester {
  const options = { allowH2: true, connect: { ca: caCrt }, pipelining: streams, maxConcurrentStreams: streams }
  const Client = lib === 'conduit' ? conduit.Client : undici.Client
  return new Client(origin, options as never) as unknown as Requester
}

/**
 * Full collections until the heap settles, then the process's memory. The last collection asks V8
 * to give back what it holds in reserve (Node 22 and later understand the option; Node 20 runs it
 * as a plain full collection): otherwise RSS counts a young generation sized by how much the
 * scenario allocated on the way, not by what its units keep.
 */
async function settledMemory (): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  return process.memoryUsage()
}

/** One GET on the control server, its body as a number. */
function control (origin: ScaleOrigin, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: origin.controlPort, path, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve(Number(text)))
    }).on('error', reject)
  })
}

/** Resolves once the origin holds `count` requests for `key`. */
async function whenHeld (origin: ScaleOrigin, key: string, count: number): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const held = await control(origin, `/count/${key}`)
    if (held >= count) return
    if (Date.now() > deadline) throw new Error(`origin holds ${held} of ${count} requests for ${key} at the deadline`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Reads a response to its end; 1 for a 200, else 0. */
function drain (res: Response): Promise<number> {
  return new Promise((resolve, reject) => {
    res.body.on('data', () => {})
    res.body.on('end', () => resolve(res.statusCode === 200 ? 1 : 0))
    res.body.on('error', reject)
  })
}

async function sum (pending: Array<Promise<number>>): Promise<number> {
  return (await Promise.all(pending)).reduce((a, b) => a + b, 0)
}

function perUnit (before: NodeJS.MemoryUsage, after: NodeJS.MemoryUsage, units: number): Pick<ScaleFigures, 'heapPerUnit' | 'externalPerUnit' | 'rssPerUnit'> {
  return {
    heapPerUnit: (after.heapUsed - before.heapUsed) / units,
    externalPerUnit: (after.external - before.external) / units,
    rssPerUnit: (after.rss - before.rss) / units
  }
}

function cpuPerUnit (since: NodeJS.CpuUsage, units: number): number {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / units
}

/**
 * Sends `n` requests for `/hold/<key>`, waits until the origin holds `held` of them, lets them go
 * and reads every response. Memory is taken while they are held, or once all are read with
 * `measureAfter`; CPU counts everything but the forced collections of that measurement.
 */
async function heldRequests (origin: ScaleOrigin, key: string, n: number, held: number, send: (path: string) => Promise<Response>, measureAfter: boolean): Promise<ScaleFigures> {
  const before = await settledMemory()
  const cpu = process.cpuUsage()
  const pending = Array.from({ length: n }, () => send(`/hold/${key}`).then(drain))
  await whenHeld(origin, key, held)
  let collecting = process.cpuUsage()
  let measured = measureAfter ? undefined : await settledMemory()
  let collectingUs = measureAfter ? 0 : cpuPerUnit(collecting, 1)
  await control(origin, `/release/${key}`)
  const completed = await sum(pending)
  pending.length = 0
  collecting = process.cpuUsage()
  measured ??= await settledMemory()
  collectingUs += measureAfter ? cpuPerUnit(collecting, 1) : 0
  const cpuUsPerUnit = (cpuPerUnit(cpu, 1) - collectingUs) / n
  return { units: n, ...perUnit(before, measured, n), cpuUsPerUnit, completed }
}

/** a. N keep-alive connections through one Agent: N requests held until all arrived, then idle. */
async function idle (lib: Library, origin: ScaleOrigin, n: number, key: string): Promise<ScaleFigures> {
  const url = `http://${origin.h1[0]!.address}:${origin.h1[0]!.port}`
  const dispatcher = agent(lib, { connections: n, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 })
  const figures = await heldRequests(origin, key, n, n, (path) => dispatcher.request({ origin: url, path, method: 'GET' }), true)
  const originSockets = await control(origin, '/sockets')
  await dispatcher.close()
  return { ...figures, originSockets }
}

/** b. N requests queued on one origin with connections: 10, the origin holding the first ten. */
async function queued (lib: Library, origin: ScaleOrigin, n: number, key: string): Promise<ScaleFigures> {
  const connections = 10
  const url = `http://${origin.h1[0]!.address}:${origin.h1[0]!.port}`
  const dispatcher = agent(lib, { connections })
  // The ten connections exist before the baseline: what grows after it is the queue alone.
  await sum(Array.from({ length: connections }, () => dispatcher.request({ origin: url, path: '/', method: 'GET' }).then(drain)))
  const figures = await heldRequests(origin, key, n, connections, (path) => dispatcher.request({ origin: url, path, method: 'GET' }), false)
  await dispatcher.close()
  return figures
}

/** Every `*.scale.test` name is one of the origin's loopback addresses, by the number in it. */
function lookupFor (origin: ScaleOrigin) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    const address = origin.h1[Number(hostname.slice(1, -HOST_SUFFIX.length)) % origin.h1.length]!.address
    if (options.all === true) callback(null, [{ address, family: 4 }])
    else callback(null, address, 4)
  }
}

function originUrl (origin: ScaleOrigin, i: number): string {
  return `http://o${i}${HOST_SUFFIX}:${origin.h1[i % origin.h1.length]!.port}`
}

/**
 * c. N distinct origins through one Agent, one request each, a few at a time; the origin closes
 * every connection, so what stays afterwards is the Agent's bookkeeping for origins it no longer uses.
 */
async function origins (lib: Library, origin: ScaleOrigin, n: number, _key: string): Promise<ScaleFigures> {
  const concurrency = 16
  const options = { connect: { lookup: lookupFor(origin) } }
  const dispatcher = agent(lib, options)
  const before = await settledMemory()
  const cpu = process.cpuUsage()
  let next = 0
  let completed = 0
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++
      // Read before adding: `completed += await ...` would add to a value read before the wait.
      const ok = await dispatcher.request({ origin: originUrl(origin, i), path: '/close', method: 'GET' }).then(drain)
      completed += ok
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const cpuUsPerUnit = cpuPerUnit(cpu, n)
  // Let the last sockets' close events run before measuring what is retained.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const after = await settledMemory()
  await dispatcher.close()
  return { units: n, ...perUnit(before, after, n), cpuUsPerUnit, completed }
}

/** d. N concurrent HTTP/2 streams on one session, held open by the origin until all are open. */
async function h2 (lib: Library, origin: ScaleOrigin, n: number, key: string): Promise<ScaleFigures> {
  const url = `https://localhost:${origin.h2Port}`
  const client = h2Client(lib, url, n)
  // The session exists before the baseline: what grows after it is the streams.
  await client.request({ path: '/', method: 'GET' }).then(drain)
  const figures = await heldRequests(origin, key, n, n, (path) => client.request({ path, method: 'GET' }), false)
  await client.close()
  return figures
}

const SCENARIOS = { idle, queued, origins, h2 }
/**
 * The most units a warm-up runs. Up to this many, the warm-up is as large as the measured run, so
 * the memory the JIT compilers and the allocator touched at that size is in the baseline: glibc
 * keeps freed memory mapped, and a compile job's peak would otherwise count as the units' RSS.
 */
const WARM_UP_UNITS_MAX = 10_000

async function main (): Promise<void> {
  const [lib, scenario, size, originJson] = process.argv.slice(2)
  if (lib !== 'conduit' && lib !== 'undici') throw new TypeError(`unknown library ${String(lib)}`)
  const run = SCENARIOS[scenario as keyof typeof SCENARIOS]
  if (run === undefined) throw new TypeError(`unknown scenario ${String(scenario)}`)
  const origin = JSON.parse(originJson!) as ScaleOrigin
  const n = Number(size)
  // A run of the same scenario first, on its own dispatcher, so that compiled code, lazily loaded
  // modules and the allocator's high-water mark are in the measured run's baseline.
  await run(lib, origin, Math.min(n, WARM_UP_UNITS_MAX), `${scenario}-${process.pid}-warm-up`)
  const figures = await run(lib, origin, n, `${scenario}-${process.pid}`)
  process.stdout.write(JSON.stringify(figures) + '\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
