// Real sockets under a fake clock installed after conduit was imported: the transport, the pools,
// HTTP/2, WebSocket, EventSource and the cache interceptor run to completion under
// @sinonjs/fake-timers and under node:test's mock.timers, and the timers meant to follow the
// test's clock (retry backoff, the cache's freshness) move only when the test moves it.
import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import FakeTimers from '@sinonjs/fake-timers'
import { Agent, Client, EventSource, Pool, WebSocket, fetch, interceptors, cacheStores } from '../../src/index.js'
import { startHttpServer, startTcpServer, trustTestCa } from '../helpers/servers.js'
import { startWsEchoServer } from '../helpers/ws-server.js'
import { undici } from '../helpers/undici-reference.js'
import { respond, startH2sServer } from '../helpers/h2-server.js'

// Taken before any test installs a clock: how the tests themselves wait for I/O.
const realImmediate = globalThis.setImmediate
const realTimeout = globalThis.setTimeout
const turn = (): Promise<void> => new Promise((resolve) => realImmediate(resolve))
const pause = (ms: number): Promise<void> => new Promise((resolve) => realTimeout(resolve, ms))

async function until (condition: () => boolean): Promise<void> {
  while (!condition()) await turn()
}

/** A fake clock as a test sees it: installed, moved by hand, removed at the end. */
interface FakeClock {
  /** Moves the clock `ms` forward, running what falls due. */
  tick: (ms: number) => void
}

type InstallClock = (t: TestContext) => FakeClock

function sinonClock (t: TestContext, toFake?: FakeTimers.FakeMethod[]): FakeClock {
  const clock = FakeTimers.install({ now: Date.now(), ...(toFake === undefined ? {} : { toFake }) })
  t.after(() => clock.uninstall())
  return { tick: (ms) => { clock.tick(ms) } }
}

/**
 * Each clock twice: as conduit's tests use it (everything it can fake), and faking the timers and
 * `Date` only, which undici also survives (it looks setImmediate and queueMicrotask up when it
 * runs, so it stops when those are faked).
 */
const clocks: Array<[string, InstallClock, InstallClock]> = [
  ['@sinonjs/fake-timers',
    // Everything sinon can fake but process.nextTick, which Node's own streams look up at call time.
    (t) => sinonClock(t, ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date', 'queueMicrotask', 'performance', 'hrtime']),
    (t) => sinonClock(t, ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'])],
  ['node:test mock.timers', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'setImmediate', 'Date'], now: Date.now() })
    return { tick: (ms) => { t.mock.timers.tick(ms) } }
  }, (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() })
    return { tick: (ms) => { t.mock.timers.tick(ms) } }
  }]
]

function sse (res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  res.end(body)
}

/** A server counting what it served, each answer `version N` with `cacheControl`; and a cached GET of `/`. */
async function cachedOrigin (t: TestContext, cacheControl: string, install: () => FakeClock): Promise<{ served: () => number, get: () => Promise<string>, clock: FakeClock }> {
  let served = 0
  const server = await startHttpServer((req, res) => {
    served++
    res.setHeader('cache-control', cacheControl)
    res.end(`version ${served}`)
  })
  t.after(() => server.close())
  const clock = install()
  const agent = new Agent().compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore() }))
  t.after(() => agent.close())
  const get = async (): Promise<string> => await (await agent.request({ origin: server.origin, path: '/', method: 'GET' })).body.text()
  return { served: () => served, get, clock }
}

for (const [name, install, installTimersAndDate] of clocks) {
  describe(`Under a fake clock (${name}) installed after importing conduit`, () => {
    it('answers requests through a Client, a Pool, an Agent and fetch, reusing kept-alive connections', async (t) => {
      const server = await startHttpServer((req, res) => res.end(`hello ${req.url}`))
      t.after(() => server.close())
      install(t)
      const client = new Client(server.origin)
      const pool = new Pool(server.origin, { connections: 2 })
      const agent = new Agent()
      t.after(async () => { await client.close(); await pool.close(); await agent.close() })

      for (const path of ['/a', '/b']) {
        const { statusCode, body } = await client.request({ path, method: 'GET' })
        assert.equal(statusCode, 200)
        assert.equal(await body.text(), `hello ${path}`)
      }
      const pooled = await Promise.all(Array.from({ length: 6 }, async (_, i) => {
        const { body } = await pool.request({ path: `/p${i}`, method: 'POST', body: 'x'.repeat(i) })
        return await body.text()
      }))
      assert.deepEqual(pooled, Array.from({ length: 6 }, (_, i) => `hello /p${i}`))
      const response = await fetch(`${server.origin}/f`, { dispatcher: agent })
      assert.equal(await response.text(), 'hello /f')
      assert.equal(server.connections, 1 + 2 + 1)
    })

    it('answers a request as undici answers it when timers and Date are faked', async (t) => {
      const server = await startHttpServer((req, res) => res.end(`hello ${req.url}`))
      t.after(() => server.close())
      installTimersAndDate(t)
      const ask = async (lib: { Client: new (origin: string) => { request: (o: { path: string, method: string }) => Promise<{ statusCode: number, body: { text: () => Promise<string> } }>, close: () => Promise<void> } }): Promise<[number, string]> => {
        const client = new lib.Client(server.origin)
        const { statusCode, body } = await client.request({ path: '/same', method: 'GET' })
        const text = await body.text()
        await client.close()
        return [statusCode, text]
      }
      const theirs = await ask(undici as never)
      const ours = await ask({ Client } as never)
      assert.deepEqual(ours, theirs)
      assert.deepEqual(ours, [200, 'hello /same'])
    })

    it('answers HTTP/2 requests negotiated by ALPN', async (t) => {
      const server = await startH2sServer((stream, headers) => respond(stream, 200, `h2 ${String(headers[':path'])}`))
      t.after(() => server.close())
      install(t)
      const client = new Client(server.origin, { connect: trustTestCa })
      t.after(() => client.close())
      const bodies = await Promise.all(['/x', '/y', '/z'].map(async (path) => {
        const { body } = await client.request({ path, method: 'GET' })
        return await body.text()
      }))
      assert.deepEqual(bodies, ['h2 /x', 'h2 /y', 'h2 /z'])
      assert.equal(server.sessions, 1)
    })

    it('still times out a silent server on the runtime\'s clock', async (t) => {
      const server = await startTcpServer(() => {})
      t.after(() => server.close())
      install(t)
      const client = new Client(server.origin, { headersTimeout: 50 })
      t.after(() => client.destroy())
      await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_HEADERS_TIMEOUT' })
    })

    it('closes an idle kept-alive connection on the runtime\'s clock', async (t) => {
      const server = await startHttpServer((req, res) => res.end('ok'))
      t.after(() => server.close())
      install(t)
      // node:http hints `Keep-Alive: timeout=5`; the cap makes the client's own 50 ms the idle time.
      const client = new Client(server.origin, { keepAliveTimeout: 50, keepAliveMaxTimeout: 50 })
      t.after(() => client.close())
      const gone = new Promise<void>((resolve) => client.once('disconnect', () => resolve()))
      await (await client.request({ path: '/', method: 'GET' })).body.text()
      await gone
      assert.equal(client.connected, false)
    })

    it('exchanges WebSocket messages and completes the closing handshake', async (t) => {
      const server = await startWsEchoServer()
      t.after(() => server.close())
      install(t)
      const ws = new WebSocket(server.url)
      const received: string[] = []
      const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve((e as CloseEvent).code)))
      ws.addEventListener('open', () => { ws.send('one'); ws.send('two') })
      ws.addEventListener('message', (e) => {
        received.push(String((e as MessageEvent).data))
        if (received.length === 2) ws.close(1000)
      })
      assert.equal(await closed, 1000)
      assert.deepEqual(received, ['one', 'two'])
    })

    it('delivers EventSource events and reconnects after the stream ends', async (t) => {
      let connections = 0
      const server = await startHttpServer((req, res) => {
        connections++
        sse(res, `retry: 20\nid: ${connections}\ndata: event ${connections}\n\n`)
      })
      t.after(() => server.close())
      install(t)
      const source = new EventSource(`${server.origin}/events`)
      t.after(() => source.close())
      const events: string[] = []
      await new Promise<void>((resolve) => {
        source.addEventListener('message', (e) => {
          events.push(`${(e as MessageEvent).lastEventId}: ${String((e as MessageEvent).data)}`)
          if (events.length === 2) resolve()
        })
      })
      source.close()
      assert.deepEqual(events, ['1: event 1', '2: event 2'])
      assert.equal(server.requests[1]!.headers['last-event-id'], '1')
    })

    it('serves the cache\'s fresh response, and ages it only when the test moves the clock', async (t) => {
      const { served, get, clock } = await cachedOrigin(t, 'max-age=60', () => install(t))
      assert.equal(await get(), 'version 1')
      assert.equal(await get(), 'version 1')
      assert.equal(served(), 1)
      clock.tick(61_000)
      assert.equal(await get(), 'version 2')
      assert.equal(served(), 2)
    })

    it('revalidates a stale response in the background while serving it', async (t) => {
      const { served, get, clock } = await cachedOrigin(t, 'max-age=1, stale-while-revalidate=600', () => install(t))
      assert.equal(await get(), 'version 1')
      clock.tick(2_000)
      assert.equal(await get(), 'version 1')
      await until(() => served() === 2)
      // The background answer lands in the store; the next request reads it without the origin.
      let body = await get()
      while (body !== 'version 2') {
        await pause(5)
        body = await get()
      }
      assert.equal(served(), 2)
    })

    it('waits out retry backoff on the test\'s clock', async (t) => {
      let served = 0
      const server = await startHttpServer((req, res) => {
        served++
        res.statusCode = served === 1 ? 503 : 200
        res.end(`attempt ${served}`)
      })
      t.after(() => server.close())
      const clock = install(t)
      const agent = new Agent().compose(interceptors.retry({ minTimeout: 10_000, maxRetries: 1 }))
      t.after(() => agent.close())
      let settled = false
      const pending = agent.request({ origin: server.origin, path: '/', method: 'GET' }).finally(() => { settled = true })
      await until(() => served === 1)
      // Ten real seconds would time the test out: only the fake clock can end this backoff.
      await pause(50)
      assert.equal(settled, false)
      assert.equal(served, 1)
      while (!settled) {
        clock.tick(10_000)
        await pause(5)
      }
      const { statusCode, body } = await pending
      assert.equal(statusCode, 200)
      assert.equal(await body.text(), 'attempt 2')
    })
  })
}
