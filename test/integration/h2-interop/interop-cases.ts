/**
 * The interop case table: one suite per independent HTTP/2 server (nginx, nghttpd, h2o, a
 * python3-h2 script, node:http2), each case a line of {@link CASES} run against every server
 * through the public API (`Client`/`Agent` with `allowH2` over TLS or `useH2c` in cleartext;
 * `request()`, `stream()`, `fetch()`), asserting what a user observes: status, headers, body bytes
 * and trailers. A server's own behaviour (what trailers it sends, how it goes away) is part of its
 * {@link InteropTarget}, so each case states what that server does.
 */

import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent, Client, fetch } from '../../../src/index.js'
import type { ClientOptions } from '../../../src/index.js'
import { trustTestCa } from '../../helpers/servers.js'
import { checksummedBody } from '../helpers/checksummed-body.js'
import { CONCURRENT_STREAMS, HELLO, interopSite, manyFile, sha256 } from './site.js'
import type { InteropSite } from './site.js'

/** A started server of the table. */
export interface InteropOrigin {
  /** `https://localhost:PORT` or, for h2c, `http://127.0.0.1:PORT`. */
  origin: string
  /** A graceful reload (for {@link InteropTarget.goaway} `'reload'`). */
  reload?: () => void
  /** A stop and a start on the same port (for {@link InteropTarget.goaway} `'restart'`). */
  restart?: () => Promise<void>
  stop: () => Promise<void>
}

/** One server of the table and what it does where servers differ. */
export interface InteropTarget {
  /** The server, as test titles name it. */
  name: string
  /** HTTP/2 over TLS (ALPN), or h2c with prior knowledge. */
  tls: boolean
  /** Starts the server serving `site`'s files, `POST /echo` answered with the request body. */
  start: (site: InteropSite) => Promise<InteropOrigin>
  /** The trailers the server sends after `POST /echo` answered `body` (`{}`: it sends none). */
  echoTrailers: (body: Buffer) => Record<string, string>
  /**
   * How the server goes away: `'reload'` is a graceful reload ({@link InteropOrigin.reload}) while
   * a download is in flight; `'scripted'` is a GOAWAY whose last-stream-id covers two of four
   * held `/goaway-` streams (see python_h2_server.py); `'restart'`, for a server with no graceful
   * reload, is the process stopped and started again between two requests.
   */
  goaway: 'reload' | 'scripted' | 'restart'
}

/** Every wait on a server is bounded: a stuck case fails instead of hanging the run. */
const CASE_TIMEOUT_MS = 60_000
/** How long the reload case waits for the client to move to a new connection. */
const RELOAD_SWITCH_MS = 15_000
const POLL_MS = 25

/** The options a Client or Agent needs for the target: the test CA, or h2c prior knowledge. */
function clientOptions (target: InteropTarget): ClientOptions {
  return target.tls ? { allowH2: true, connect: trustTestCa } : { useH2c: true }
}

/** Counts the connections conduit opens to `origin` (the `conduit:client:connected` channel). */
function connectionCounter (origin: string): { count: () => number, stop: () => void } {
  const host = new URL(origin).host
  let count = 0
  const listener = (message: unknown): void => {
    if ((message as { connectParams: { host: string } }).connectParams.host === host) count++
  }
  diagnosticsChannel.subscribe('conduit:client:connected', listener)
  return { count: () => count, stop: () => diagnosticsChannel.unsubscribe('conduit:client:connected', listener) }
}

/** Reads a body to its end and returns its bytes. */
async function bytesOf (body: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

interface CaseContext {
  target: InteropTarget
  site: InteropSite
  server: InteropOrigin
  /** A Client to the server, closed after the case. */
  client: () => Client
}

type Case = [title: string, run: (c: CaseContext) => Promise<void>]

/** The cases, one line each; every server runs all of them. */
const CASES: Case[] = [
  ['GET with request(): status, headers and body over h2', async ({ client }) => {
    const c = client()
    const res = await c.request({ path: '/hello.txt', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-length'], String(Buffer.byteLength(HELLO)))
    assert.equal(await res.body.text(), HELLO)
    assert.equal(c.protocol, 'h2')
  }],
  ['GET of a missing file answers 404 and the session stays usable', async ({ client }) => {
    const c = client()
    const missing = await c.request({ path: '/no-such-file.txt', method: 'GET' })
    assert.equal(missing.statusCode, 404)
    await missing.body.dump()
    const res = await c.request({ path: '/hello.txt', method: 'GET' })
    assert.equal(await res.body.text(), HELLO)
  }],
  ['GET 1 MiB with stream(): every byte, checksummed', async ({ client, site }) => {
    let received: Buffer[] = []
    const { statusCode } = await new Promise<{ statusCode: number }>((resolve, reject) => {
      let status = 0
      client().stream({ path: '/big.bin', method: 'GET' }, ({ statusCode }) => {
        status = statusCode
        received = []
        return new Writable({ write (chunk: Buffer, _encoding, done) { received.push(chunk); done() } })
      }, (err) => { if (err !== null) reject(err); else resolve({ statusCode: status }) })
    })
    assert.equal(statusCode, 200)
    const body = Buffer.concat(received)
    assert.equal(body.length, site.big.length)
    assert.equal(sha256(body), sha256(site.big))
  }],
  ['GET 1 MiB with fetch() through an Agent', async ({ server, target, site }) => {
    const agent = new Agent(clientOptions(target))
    after(() => agent.close())
    const res = await fetch(`${server.origin}/big.bin`, { dispatcher: agent })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-length'), String(site.big.length))
    assert.equal(sha256(Buffer.from(await res.arrayBuffer())), sha256(site.big))
  }],
  ['POST 1 MiB echoed back: the bytes both ways, and the server\'s trailers', async ({ client, target }) => {
    const upload = randomBytes(1024 * 1024 + 7)
    const res = await client().request({ path: '/echo', method: 'POST', body: upload, headers: { 'content-type': 'application/octet-stream' } })
    assert.equal(res.statusCode, 200)
    const echoed = await bytesOf(res.body)
    assert.equal(echoed.length, upload.length)
    assert.equal(sha256(echoed), sha256(upload))
    // Trailers are complete once the body has ended.
    assert.deepEqual({ ...res.trailers }, target.echoTrailers(upload))
  }],
  ['POST a streamed body with fetch(): the server gets every chunk', async ({ server, target }) => {
    const agent = new Agent(clientOptions(target))
    after(() => agent.close())
    const parts = Array.from({ length: 16 }, () => randomBytes(64 * 1024))
    const body = new ReadableStream<Uint8Array>({
      pull (controller) {
        const part = parts.shift()
        if (part === undefined) controller.close()
        else controller.enqueue(part)
      }
    })
    const expected = sha256(Buffer.concat(parts))
    const res = await fetch(`${server.origin}/echo`, { method: 'POST', body, duplex: 'half', dispatcher: agent } as RequestInit)
    assert.equal(res.status, 200)
    assert.equal(sha256(Buffer.from(await res.arrayBuffer())), expected)
  }],
  [`${CONCURRENT_STREAMS} concurrent streams on one connection, each body its own`, async ({ server, client }) => {
    const counter = connectionCounter(server.origin)
    after(() => counter.stop())
    const c = client()
    const bodies = await Promise.all(Array.from({ length: CONCURRENT_STREAMS }, async (_, i) => {
      const res = await c.request({ path: `/${manyFile(i)}`, method: 'GET' })
      assert.equal(res.statusCode, 200)
      return await res.body.text()
    }))
    assert.deepEqual(bodies, Array.from({ length: CONCURRENT_STREAMS }, (_, i) => checksummedBody(`/${manyFile(i)}`)))
    assert.equal(counter.count(), 1)
  }],
  ['GOAWAY: requests in flight finish, and the ones after go to a new connection', async (context) => {
    const { goaway } = context.target
    if (goaway === 'reload') await goawayOnReload(context)
    else if (goaway === 'scripted') await scriptedGoaway(context)
    else await requestAfterRestart(context)
  }]
]

/**
 * A graceful reload while a 16 MiB download is in flight (its first chunk read, then unread, so
 * the server cannot finish it): the download completes on the old connection, and requests made
 * after the reload succeed, until one goes on a new connection.
 */
async function goawayOnReload ({ server, client, site }: CaseContext): Promise<void> {
  assert.ok(server.reload !== undefined, 'a reload target has a reload()')
  const counter = connectionCounter(server.origin)
  after(() => counter.stop())
  const c = client()
  const download = await c.request({ path: '/large.bin', method: 'GET' })
  assert.equal(download.statusCode, 200)
  const reader = download.body[Symbol.asyncIterator]()
  const first = await reader.next()
  assert.equal(first.done, false)
  assert.equal(counter.count(), 1)
  server.reload()
  const deadline = Date.now() + RELOAD_SWITCH_MS
  let followUps = 0
  while (counter.count() < 2) {
    assert.ok(Date.now() < deadline, `no new connection within ${RELOAD_SWITCH_MS} ms of the reload (${followUps} requests on the old one)`)
    const res = await c.request({ path: '/hello.txt', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), HELLO)
    followUps++
    await sleep(POLL_MS)
  }
  // On the new connection the next request is served too.
  const onNewConnection = await c.request({ path: '/hello.txt', method: 'GET' })
  assert.equal(await onNewConnection.body.text(), HELLO)
  const chunks: Buffer[] = [first.value as Buffer]
  for (let next = await reader.next(); next.done !== true; next = await reader.next()) chunks.push(next.value as Buffer)
  const body = Buffer.concat(chunks)
  assert.equal(body.length, site.large.length)
  assert.equal(sha256(body), sha256(site.large))
  assert.equal(counter.count(), 2)
}

/**
 * A GOAWAY whose last-stream-id covers two of four streams in flight: those two are answered on
 * the old connection; the two the server never processed are sent again on a new one, as is a
 * request made afterwards.
 */
async function scriptedGoaway ({ client }: CaseContext): Promise<void> {
  const c = client()
  const paths = ['/goaway-0', '/goaway-1', '/goaway-2', '/goaway-3']
  const answers = await Promise.all(paths.map(async (path) => {
    const res = await c.request({ path, method: 'GET' })
    assert.equal(res.statusCode, 200)
    return await res.body.text()
  }))
  const connectionOf = (answer: string, path: string): number => {
    const match = /^(\S+) on connection (\d+)$/.exec(answer)
    assert.ok(match !== null && match[1] === path, `answer for ${path}: ${answer}`)
    return Number(match[2])
  }
  const connections = answers.map((answer, i) => connectionOf(answer, paths[i]!))
  const [oldOne, newOne] = [Math.min(...connections), Math.max(...connections)]
  assert.ok(newOne > oldOne, `all four answered on connection ${oldOne}`)
  assert.deepEqual([...connections].sort((a, b) => a - b), [oldOne, oldOne, newOne, newOne])
  const later = await c.request({ path: '/goaway-4', method: 'GET' })
  assert.equal(connectionOf(await later.body.text(), '/goaway-4'), newOne)
}

/**
 * The server stopped and started again on the same port between two requests of one Client: the
 * second request goes on a new connection and succeeds.
 */
async function requestAfterRestart ({ server, client }: CaseContext): Promise<void> {
  assert.ok(server.restart !== undefined, 'a restart target has a restart()')
  const counter = connectionCounter(server.origin)
  after(() => counter.stop())
  const c = client()
  const before = await c.request({ path: '/hello.txt', method: 'GET' })
  assert.equal(await before.body.text(), HELLO)
  await server.restart()
  const res = await c.request({ path: '/hello.txt', method: 'GET' })
  assert.equal(res.statusCode, 200)
  assert.equal(await res.body.text(), HELLO)
  assert.equal(counter.count(), 2)
}

/** Defines the suite of `target`: starts it once, runs every case, stops it. */
export function interopSuite (target: InteropTarget): void {
  describe(`HTTP/2 interop with ${target.name}`, { timeout: 10 * CASE_TIMEOUT_MS }, () => {
    const site = interopSite()
    // Started in a hook, not in an async describe body: a failure there must fail the run on every
    // runtime's test runner.
    let server!: InteropOrigin
    before(async () => { server = await target.start(site) })
    after(() => server?.stop())
    for (const [title, run] of CASES) {
      it(title, { timeout: CASE_TIMEOUT_MS }, async () => {
        const clients: Client[] = []
        after(() => Promise.all(clients.map((c) => c.close())))
        const client = (): Client => {
          const c = new Client(server.origin, clientOptions(target))
          clients.push(c)
          return c
        }
        await run({ target, site, server, client })
      })
    }
  })
}
