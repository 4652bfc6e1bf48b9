/**
 * The HTTP/2 body-integrity stress scenario: thousands of concurrent GETs through one session
 * whose server allows 100 streams at a time, every body checked against its SHA-256. Body sizes
 * vary by path, and some exceed the stream's flow-control window (256 KiB by default), so both
 * small answers (HEADERS and DATA read together) and long flow-controlled ones are covered.
 */

import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import http2 from 'node:http2'
import { Writable } from 'node:stream'
import { Client, fetch, interceptors, cacheStores } from '../../../src/index.js'
import type { Connector, Dispatcher } from '../../../src/index.js'
import { startH2cServer, startH2sServer } from '../../helpers/h2-server.js'
import type { H2TestServer } from '../../helpers/h2-server.js'
import { trustTestCa } from '../../helpers/servers.js'
import { relayConnector } from './relay-connector.js'

/** Concurrent requests in one run. */
export const STRESS_REQUESTS = 10_000
/** Streams the server allows at once. */
export const SERVER_STREAMS = 100
/** A run that has not settled every request by then counts the rest as hung. */
const RUN_DEADLINE_MS = 90_000

/** Deterministic bytes the bodies are cut from (an LCG, so a shifted or mixed body is noticed). */
const SOURCE = (() => {
  const buf = Buffer.alloc(400_000)
  let x = 0x2545f491
  for (let i = 0; i < buf.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    buf[i] = x >>> 24
  }
  return buf
})()

/** The body of `/n`: 1 to 4096 bytes, every 100th 70 kB, every 1000th 300 kB (over the window). */
function bodyFor (n: number): Buffer {
  const size = n % 1000 === 999 ? 300_000 : n % 100 === 50 ? 70_000 : 1 + ((n * 7919) % 4096)
  const offset = (n * 131) % (SOURCE.length - size)
  return SOURCE.subarray(offset, offset + size)
}

function sha256 (data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

/** Starts an h2c or TLS server that answers `/n` with {@link bodyFor}(n), cacheable, in two writes. */
function startStressServer (tls: boolean): Promise<H2TestServer> {
  const handler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void => {
    const body = bodyFor(Number(String(headers[':path']).slice(1)))
    if (stream.destroyed) return
    stream.respond({ ':status': 200, 'content-length': body.length, 'cache-control': 'max-age=60' })
    const half = body.length >> 1
    stream.write(body.subarray(0, half))
    stream.end(body.subarray(half))
  }
  const settings = { maxConcurrentStreams: SERVER_STREAMS }
  // A roomy session memory: node:http2 refuses new streams (ENHANCE_YOUR_CALM) when the bodies it
  // holds for 100 flow-controlled streams exceed its default 10 MB.
  return tls
    ? startH2sServer(handler, { settings, maxSessionMemory: 256 })
    : startH2cServer(handler, settings, { maxSessionMemory: 256 })
}

/** How one API fetches `/n` and returns the body bytes. */
type Fetcher = (n: number) => Promise<Buffer>

/** What one run saw. */
interface StressResult {
  ok: number
  wrong: number
  empty: number
  failed: number
  hung: number
  /** The first failures, for the assertion message. */
  errors: string[]
}

/** Runs `requests` concurrent fetches of `/0` ... and checks every body. */
async function runStress (fetcher: Fetcher, requests = STRESS_REQUESTS): Promise<StressResult> {
  const result: StressResult = { ok: 0, wrong: 0, empty: 0, failed: 0, hung: 0, errors: [] }
  let settled = 0
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((resolve) => { timer = setTimeout(resolve, RUN_DEADLINE_MS) })
  const all = Promise.all(Array.from({ length: requests }, async (_, n) => {
    try {
      const body = await fetcher(n)
      const expected = bodyFor(n)
      if (body.length === 0) result.empty++
      else if (body.length !== expected.length || sha256(body) !== sha256(expected)) result.wrong++
      else result.ok++
    } catch (err) {
      result.failed++
      if (result.errors.length < 5) result.errors.push(String(err))
    } finally {
      settled++
    }
  }))
  await Promise.race([all, deadline])
  clearTimeout(timer)
  result.hung = requests - settled
  return result
}

/** The APIs the scenario runs through, each given the Client (one session) under test. */
const apis: Record<string, (client: Client, origin: string) => Fetcher> = {
  'request()': (client) => async (n) => {
    const { body } = await client.request({ path: `/${n}`, method: 'GET' })
    return Buffer.from(await body.arrayBuffer())
  },
  'stream()': (client) => async (n) => {
    const chunks: Buffer[] = []
    await client.stream({ path: `/${n}`, method: 'GET' }, () => new Writable({
      write (chunk: Buffer, _encoding, callback) { chunks.push(chunk); callback() }
    }))
    return Buffer.concat(chunks)
  },
  'fetch()': (client, origin) => async (n) => {
    const res = await fetch(`${origin}/${n}`, { dispatcher: client })
    return Buffer.from(await res.arrayBuffer())
  },
  'a composed cache + retry stack': (client) => {
    const composed: Dispatcher = client.compose(
      interceptors.cache({ store: new cacheStores.MemoryCacheStore() }),
      interceptors.retry({ maxRetries: 2 })
    )
    return async (n) => {
      const { body } = await composed.request({ path: `/${n}`, method: 'GET' })
      return Buffer.from(await body.arrayBuffer())
    }
  }
}

/** A Client of one HTTP/2 session to `server`, over `connector` or the built-in one. */
function stressClient (server: H2TestServer, tls: boolean, connector?: Connector): Client {
  return new Client(server.origin, tls
    ? { allowH2: true, connect: connector ?? trustTestCa }
    : { h2c: true, ...(connector === undefined ? {} : { connect: connector }) })
}

/** Runs `api` through a fresh Client and checks every body, and that one session carried them all. */
async function checkEveryBody (server: H2TestServer, tls: boolean, api: (client: Client, origin: string) => Fetcher, connector?: Connector): Promise<void> {
  const client = stressClient(server, tls, connector)
  after(() => client.destroy())
  const sessions = server.sessions
  const result = await runStress(api(client, server.origin))
  assert.deepEqual(result, { ok: STRESS_REQUESTS, wrong: 0, empty: 0, failed: 0, hung: 0, errors: [] })
  assert.equal(server.sessions - sessions, 1, 'one session carried every request')
}

/** The ways a stress file can send its requests: one per API over a relayed socket, and request() over the built-in connector. */
export type StressCase = 'request()' | 'stream()' | 'fetch()' | 'a composed cache + retry stack' | 'built-in connector'

/**
 * One stress run as a test file of its own (each file gets the runner's whole time limit), for
 * h2c or TLS. Over a relayed (JavaScript) socket node:http2 reports a stream's body before its
 * head; over the built-in connector's socket it does not on every Node version. Both must
 * deliver every body.
 */
export function describeStress (tls: boolean, which: StressCase): void {
  describe(`HTTP/2 ${tls ? 'over TLS' : 'h2c'}: ${STRESS_REQUESTS} concurrent requests through one session of a server allowing ${SERVER_STREAMS} streams`, async () => {
    const server = await startStressServer(tls)
    after(() => server.close())
    if (which === 'built-in connector') {
      it('delivers every body whole through request() (built-in connector)', () => checkEveryBody(server, tls, apis['request()']!))
    } else {
      it(`delivers every body whole through ${which} (relayed socket)`, () => checkEveryBody(server, tls, apis[which]!, relayConnector))
    }
  })
}
