import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import { Agent, interceptors } from '../../src/index.js'
import type { ComposedDispatcher, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders, Interceptor } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'
import type { TestProxy } from '../helpers/http-proxy.js'
import { freePort } from '../helpers/free-port.js'

/** Records every hook a dispatch reaches, and resolves once the dispatch is over. */
class HookRecorder implements DispatchHandler {
  readonly infos: number[] = []
  readonly bodySent: string[] = []
  statusCode = 0
  body = ''
  trailers: IncomingHeaders | null = null
  upgraded: { statusCode: number, socket: Duplex } | null = null
  error: Error | null = null
  readonly done: Promise<void>
  #resolve!: () => void

  constructor () {
    this.done = new Promise((resolve) => { this.#resolve = resolve })
  }

  onRequestStart (_controller: DispatchController): void {}
  onResponseInformation (_controller: DispatchController, statusCode: number): void { this.infos.push(statusCode) }
  onBodySent (chunk: Uint8Array | string): void { this.bodySent.push(Buffer.from(chunk).toString()) }
  onRequestUpgrade (_controller: DispatchController, statusCode: number, _headers: IncomingHeaders, socket: Duplex): void {
    this.upgraded = { statusCode, socket }
    this.#resolve()
  }

  onResponseStart (_controller: DispatchController, statusCode: number): void { this.statusCode = statusCode }
  onResponseData (_controller: DispatchController, chunk: Buffer): void { this.body += chunk.toString() }
  onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    this.trailers = trailers
    this.#resolve()
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.error = error
    this.#resolve()
  }
}

async function run (dispatcher: ComposedDispatcher, opts: DispatchOptions): Promise<HookRecorder> {
  const recorder = new HookRecorder()
  dispatcher.dispatch(opts, recorder)
  await recorder.done
  return recorder
}

describe('every interceptor conduit ships, composed over a real Agent', async () => {
  let server: TestServer
  let proxy: TestProxy
  let dir: string
  let closedOrigin: string

  before(async () => {
    server = await startHttpServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        if (req.url === '/info') {
          res.writeEarlyHints({ link: '</style.css>; rel=preload' })
          res.writeHead(200, { 'cache-control': 'no-store', 'content-length': '5' }).end('hello')
        } else if (req.url === '/trailers') {
          res.writeHead(200, { 'cache-control': 'no-store', trailer: 'x-checksum' })
          res.write('chunked')
          res.addTrailers({ 'x-checksum': 'abc' })
          res.end()
        } else {
          res.writeHead(200, { 'cache-control': 'no-store' }).end(`got ${Buffer.concat(chunks).toString()}`)
        }
      })
    })
    server.server.on('upgrade', (_req, socket: Duplex) => {
      socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n')
    })
    proxy = await startHttpProxy()
    dir = await mkdtemp(join(tmpdir(), 'conduit-hooks-'))
    closedOrigin = `http://127.0.0.1:${await freePort()}`
  })

  after(async () => {
    await proxy.close()
    await server.close()
    await rm(dir, { recursive: true, force: true })
  })

  // Each order is listed so that every interceptor is outermost or innermost at least once.
  const all = (n: number): Record<string, Interceptor> => ({
    cache: interceptors.cache(),
    retry: interceptors.retry({ maxRetries: 1, minTimeout: 1, maxTimeout: 1 }),
    proxy: interceptors.proxy({ uri: proxy.url, proxyTunnel: true }),
    snapshot: interceptors.snapshot({ mode: 'record', snapshotPath: join(dir, `snapshots-${n}.json`) }),
    debug: interceptors.debug({ logger: () => {} }),
    deadline: interceptors.deadline({ timeoutMs: 60_000 }),
    circuitBreaker: interceptors.circuitBreaker(),
    rateLimit: interceptors.rateLimit({ rate: 1000, maxConcurrent: 8 }),
    // A copy of every idempotent request goes at once, so two attempts race in each test.
    hedge: interceptors.hedge({ delayMs: 0 })
  })
  const orders = [
    ['cache', 'retry', 'proxy', 'snapshot', 'hedge', 'deadline', 'circuitBreaker', 'rateLimit', 'debug'],
    ['debug', 'rateLimit', 'snapshot', 'proxy', 'circuitBreaker', 'retry', 'hedge', 'deadline', 'cache'],
    ['retry', 'debug', 'cache', 'hedge', 'snapshot', 'rateLimit', 'deadline', 'circuitBreaker', 'proxy'],
    ['proxy', 'cache', 'debug', 'deadline', 'retry', 'circuitBreaker', 'rateLimit', 'hedge', 'snapshot'],
    ['hedge', 'snapshot', 'cache', 'proxy', 'retry', 'debug', 'rateLimit', 'circuitBreaker', 'deadline'],
    ['circuitBreaker', 'deadline', 'proxy', 'hedge', 'cache', 'retry', 'snapshot', 'debug', 'rateLimit']
  ]

  for (const [n, order] of orders.entries()) {
    describe(`in the order ${order.join(', ')}`, () => {
      let dispatcher: ComposedDispatcher
      let agent: Agent

      before(() => {
        const made = all(n)
        agent = new Agent()
        dispatcher = agent.compose(order.map((name) => made[name]!))
      })

      after(async () => { await dispatcher.close() })

      it('delivers 1xx information to the handler and to request()\'s onInfo', async () => {
        const recorder = await run(dispatcher, { origin: server.origin, path: '/info', method: 'GET' })
        assert.equal(recorder.error, null)
        assert.deepEqual(recorder.infos, [103])
        assert.equal(recorder.body, 'hello')
        const infos: number[] = []
        const res = await dispatcher.request({ origin: server.origin, path: '/info', method: 'GET', onInfo: ({ statusCode }) => infos.push(statusCode) })
        assert.equal(await res.body.text(), 'hello')
        assert.deepEqual(infos, [103])
      })

      it('reports the request body as it is sent', async () => {
        const recorder = await run(dispatcher, { origin: server.origin, path: '/echo', method: 'POST', body: 'ping' })
        assert.equal(recorder.error, null)
        assert.equal(recorder.body, 'got ping')
        assert.equal(recorder.bodySent.join(''), 'ping')
      })

      it('hands over the socket of an upgrade', async () => {
        const recorder = await run(dispatcher, { origin: server.origin, path: '/socket', method: 'GET', upgrade: 'echo' })
        assert.equal(recorder.error, null)
        assert.equal(recorder.upgraded?.statusCode, 101)
        recorder.upgraded?.socket.destroy()
      })

      it('delivers the trailers of a chunked response', async () => {
        const recorder = await run(dispatcher, { origin: server.origin, path: '/trailers', method: 'GET' })
        assert.equal(recorder.error, null)
        assert.equal(recorder.body, 'chunked')
        assert.deepEqual(recorder.trailers, { 'x-checksum': 'abc' })
      })

      it('delivers a failure as one error', async () => {
        const recorder = await run(dispatcher, { origin: closedOrigin, path: '/', method: 'GET' })
        assert.ok(recorder.error instanceof Error)
        assert.equal(recorder.statusCode, 0)
        assert.equal(recorder.trailers, null)
      })
    })
  }
})
