/**
 * One HTTP/2 benchmark client process: `node h2-client.js <conduit|undici|node-http2> <origin> <path> <requests> <concurrency>`.
 * Opens one Client with allowH2 (one session), keeps `concurrency` streams in flight, reads each
 * body with 'data' events, and prints `{ reqPerSec, cpuUsPerReq }` as JSON.
 * @module
 */

import http2 from 'node:http2'
import { fileURLToPath } from 'node:url'
import { measureInFlight } from './in-flight.js'
import type { Readable } from 'node:stream'
import { Client as ConduitClient } from '../../src/index.js'
import { Client as UndiciClient } from '../../test/helpers/undici-reference.js'
import { caCrt } from '../../test/helpers/certs.js'

/** The part of a Client the HTTP/2 benchmark uses: conduit's and undici's alike. */
export interface H2BenchClient {
  request (opts: { path: string, method: string }): Promise<{ statusCode: number, body: Readable }>
  close (): Promise<void>
}

/**
 * node:http2 itself, one session and one stream per request with nothing around it: the floor
 * under both clients, which are built on it. Not a drop-in for either (no queue, no timers, no
 * handler), so it only says how much of a client's cost per request is node:http2's.
 */
function nodeHttp2 (origin: string, streams: number, windows: H2Windows = CLIENT_WINDOWS): H2BenchClient {
  const session = http2.connect(origin, { ca: caCrt, peerMaxConcurrentStreams: streams, settings: { enablePush: false, initialWindowSize: windows.stream } })
  session.once('connect', () => session.setLocalWindowSize(windows.connection))
  return {
    request: ({ path, method }) => new Promise((resolve, reject) => {
      const stream = session.request({ ':method': method, ':path': path })
      stream.once('response', (headers) => resolve({ statusCode: Number(headers[':status']), body: stream }))
      stream.once('error', reject)
    }),
    close: () => new Promise<void>((resolve) => session.close(resolve))
  }
}

/** Receive windows a client advertises: per stream and for the whole session, bytes. */
export interface H2Windows { stream: number, connection: number }

/** The windows conduit and undici 8 open by default (256 KiB per stream, 512 KiB per session). */
const CLIENT_WINDOWS: H2Windows = { stream: 262_144, connection: 524_288 }

/** HTTP/2's initial window, which a client that never enlarges its windows keeps: 64 KiB − 1. */
export const FIXED_64K_WINDOWS: H2Windows = { stream: 65_535, connection: 65_535 }

/**
 * One Client of `impl` (conduit or undici) with allowH2 to `origin`, or a bare node:http2
 * session (`node-http2`): one session, with room for `streams` in flight (100 by default).
 * `windows`, when given, are the receive windows the client is told to advertise (conduit's
 * `h2Options`, node:http2's settings); undici is always left at its own.
 */
export function open (impl: string, origin: string, streams = 100, windows?: H2Windows): H2BenchClient {
  // Under valgrind on a busy machine the TLS handshake can take seconds: no connect timeout may
  // cut an instruction-counting run short.
  const options = { allowH2: true, connect: { ca: caCrt }, connectTimeout: 300_000, pipelining: streams, maxConcurrentStreams: Math.max(100, streams) }
  if (impl === 'conduit') {
    const h2Options = windows === undefined ? {} : { h2Options: { initialWindowSize: windows.stream, connectionWindowSize: windows.connection } }
    return new ConduitClient(origin, { ...options, ...h2Options }) as unknown as H2BenchClient
  }
  if (impl === 'undici') return new UndiciClient(origin, options) as unknown as H2BenchClient
  if (impl === 'node-http2') return nodeHttp2(origin, options.maxConcurrentStreams, windows)
  throw new TypeError(`unknown client ${impl}`)
}

/** One GET of `path`, its body drained with 'data' events; resolves with the body's length. */
export function one (client: H2BenchClient, path: string): Promise<number> {
  return client.request({ path, method: 'GET' }).then((res) => new Promise<number>((resolve, reject) => {
    if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`))
    let bytes = 0
    res.body.on('data', (chunk: Buffer) => { bytes += chunk.length })
    res.body.on('end', () => resolve(bytes))
    res.body.on('error', reject)
  }))
}

async function main (): Promise<void> {
  const [impl, origin, path, requests, concurrency] = process.argv.slice(2)
  const client = open(impl!, origin!)
  const figures = await measureInFlight(Number(requests), Number(concurrency), 200, () => one(client, path!))
  await client.close()
  process.stdout.write(JSON.stringify(figures) + '\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
