import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import diagnosticsChannel from 'node:diagnostics_channel'
import fc from 'fast-check'
import { Agent, Client, DecoratorHandler, ProxyAgent, interceptors } from '../../../src/index.js'
import type { DispatchController, IncomingHeaders, Interceptor, RequestTimings, TimingPhases } from '../../../src/index.js'
import { phasesOf, TIMESTAMP_COUNT } from '../../../src/observability/request-timings.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'
import { respond, startH2sServer } from '../../helpers/h2-server.js'
import { caCrt } from '../../helpers/certs.js'

const PHASES = ['wait', 'dns', 'tcp', 'tls', 'request', 'firstByte', 'download'] as const

/** The phases are all ≥ 0 and add up to `total`, within floating-point rounding. */
function assertPhasesSum (phases: TimingPhases): void {
  for (const name of [...PHASES, 'total'] as const) assert.ok(phases[name] >= 0, `${name} is ${phases[name]}`)
  const sum = PHASES.reduce((acc, name) => acc + phases[name], 0)
  assert.ok(Math.abs(sum - phases.total) < 1e-6, `phases add up to ${sum}, total is ${phases.total}`)
}

/** The timestamps that happened come in the order the request lived them. */
function assertOrder (t: RequestTimings): void {
  const order = [t.queued, t.dnsStart, t.dnsEnd, t.tcpStart, t.tcpEnd, t.tlsStart, t.tlsEnd, t.socketAssigned, t.requestHeadSent, t.requestBodySent, t.responseStart, t.responseEnd]
  const seen = order.filter((x): x is number => x !== null)
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `timestamp ${i} (${seen[i]}) is before ${seen[i - 1]}: ${JSON.stringify(t)}`)
}

/** A complete request's timings: every timestamp a request always has is there, in order, and phases add up. */
function assertComplete (t: RequestTimings): void {
  assert.equal(t.complete, true)
  for (const name of ['socketAssigned', 'requestHeadSent', 'requestBodySent', 'responseStart', 'responseEnd'] as const) {
    assert.equal(typeof t[name], 'number', `${name} missing`)
  }
  assertOrder(t)
  assertPhasesSum(t.phases)
  assert.ok(t.phases.total <= t.responseEnd! - t.queued + 1e-9)
}

function assertReused (t: RequestTimings): void {
  assert.equal(t.reusedSocket, true)
  for (const name of ['dnsStart', 'dnsEnd', 'tcpStart', 'tcpEnd', 'tlsStart', 'tlsEnd'] as const) assert.equal(t[name], null, name)
  assert.equal(t.phases.dns, 0)
  assert.equal(t.phases.tcp, 0)
  assert.equal(t.phases.tls, 0)
}

describe('request timings', () => {
  it('phasesOf: any timestamps, in order or not, give phases ≥ 0 that add up to the total', () => {
    const stamp = fc.oneof(fc.double({ min: 0, max: 1e7, noNaN: true }), fc.constant(-1), fc.constant(Number.NaN))
    fc.assert(fc.property(fc.double({ min: 0, max: 1e7, noNaN: true }), fc.array(stamp, { minLength: TIMESTAMP_COUNT - 1, maxLength: TIMESTAMP_COUNT - 1 }), (queued, rest) => {
      const phases = phasesOf([queued, ...rest])
      assertPhasesSum(phases)
      const reached = Math.max(queued, ...rest.filter((t) => Number.isFinite(t) && t >= 0))
      assert.ok(Math.abs(phases.total - (reached - queued)) < 1e-6)
    }))
  })

  it('phasesOf: a monotone sequence gives each phase as the gap between its two timestamps', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: TIMESTAMP_COUNT, maxLength: TIMESTAMP_COUNT }), (gaps) => {
      const stamps: number[] = []
      let t = 0
      for (const g of gaps) stamps.push(t += g)
      const phases = phasesOf(stamps)
      assertPhasesSum(phases)
      assert.ok(Math.abs(phases.dns - (stamps[2]! - stamps[1]!)) < 1e-6)
      assert.ok(Math.abs(phases.download - (stamps[10]! - stamps[9]!)) < 1e-6)
    }))
  })

  it('HTTP/1.1: a new connection has tcp and no dns for an address; the next request reuses it', async (t) => {
    const server = await startHttpServer((req, res) => { req.resume(); req.on('end', () => res.end('hello')) })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const first = await agent.request({ origin: server.origin, path: '/', method: 'POST', body: 'payload' })
    const live = first.timings!
    assert.equal(await first.body.text(), 'hello')
    assertComplete(live)
    assert.equal(live.reusedSocket, false)
    assert.equal(live.dnsStart, null, 'an address needs no lookup')
    assert.equal(typeof live.tcpStart, 'number')
    assert.equal(typeof live.tcpEnd, 'number')
    assert.equal(live.tlsStart, null)
    assert.equal(live.phases.dns, 0)
    const second = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    await second.body.text()
    assertComplete(second.timings!)
    assertReused(second.timings!)
    assert.equal(JSON.parse(JSON.stringify(second.timings)).reusedSocket, true)
  })

  it('a host name is looked up: dns, tcp and tls in order over TLS', async (t) => {
    const server = await startHttpsServer((_req, res) => res.end('secure'))
    const agent = new Agent({ connect: { ...trustTestCa, allowH2: false } })
    t.after(async () => { await agent.close(); await server.close() })
    const { body, timings } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await body.text(), 'secure')
    assertComplete(timings!)
    assert.equal(typeof timings!.dnsStart, 'number', 'localhost is looked up')
    assert.equal(typeof timings!.dnsEnd, 'number')
    assert.equal(typeof timings!.tlsStart, 'number')
    assert.equal(typeof timings!.tlsEnd, 'number')
    assert.ok(timings!.tlsEnd! >= timings!.tlsStart! && timings!.tlsStart! >= timings!.tcpEnd!)
  })

  it('a slow origin: the waits before the head and between chunks land in firstByte and download, in order', async (t) => {
    const server = await startHttpServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write('a')
        setTimeout(() => res.end('b'), 30)
      }, 30)
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const chunks: Buffer[] = []
    let factoryTimings: RequestTimings | null = null
    await client.stream({ path: '/', method: 'GET' }, (data) => {
      factoryTimings = data.timings
      assert.equal(data.timings!.complete, false)
      assert.equal(typeof data.timings!.responseStart, 'number')
      return new Writable({ write (chunk: Buffer, _e, done) { chunks.push(chunk); done() } })
    })
    assert.equal(Buffer.concat(chunks).toString(), 'ab')
    assertComplete(factoryTimings!)
    assert.ok(factoryTimings!.responseEnd! >= factoryTimings!.responseStart!)
  })

  it('through a proxy tunnel: reaching the proxy counts as tcp, then the target TLS handshake', async (t) => {
    const target = await startHttpsServer((_req, res) => res.end('tunnelled'))
    const proxy = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxy.url, requestTls: { ca: caCrt } })
    t.after(async () => { await agent.close(); await proxy.close(); await target.close() })
    const { body, timings } = await agent.request({ origin: target.origin, path: '/', method: 'GET' })
    assert.equal(await body.text(), 'tunnelled')
    assertComplete(timings!)
    assert.equal(timings!.reusedSocket, false)
    assert.equal(typeof timings!.tcpStart, 'number')
    assert.equal(typeof timings!.tlsEnd, 'number')
    assert.ok(proxy.requests.some((r) => r.method === 'CONNECT'))
  })

  it('HTTP/2: the session\'s first stream carries its setup, later streams reuse it', async (t) => {
    const server = await startH2sServer((stream) => respond(stream, 200, 'h2'))
    const agent = new Agent({ connect: trustTestCa, allowH2: true })
    t.after(async () => { await agent.close(); await server.close() })
    const first = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await first.body.text(), 'h2')
    assertComplete(first.timings!)
    assert.equal(first.timings!.reusedSocket, false)
    assert.equal(typeof first.timings!.tlsEnd, 'number')
    const more = await Promise.all([1, 2].map(async () => {
      const { body, timings } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
      await body.text()
      return timings!
    }))
    for (const timings of more) {
      assertComplete(timings)
      assertReused(timings)
    }
    assert.equal(server.sessions, 1)
  })

  it('with interceptors.dns() the name is resolved before the connection: no dns phase, the rest in order', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('resolved'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.dns({ lookup: (_name, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4, ttl: 60_000 }]) }))
    const { body, timings } = await dispatcher.request({ origin: `http://service.test:${server.port}`, path: '/', method: 'GET' })
    assert.equal(await body.text(), 'resolved')
    assertComplete(timings!)
    assert.equal(timings!.dnsStart, null)
  })

  it('an interceptor reads them from the controller; conduit\'s diagnostics messages carry them, undici\'s do not', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('seen'))
    const agent = new Agent()
    const seen: Array<RequestTimings | null | undefined> = []
    const read: Array<{ channel: string, timings: unknown }> = []
    const onConduit = (message: unknown): void => { read.push({ channel: 'conduit', timings: (message as { timings?: unknown }).timings }) }
    const onUndici = (message: unknown): void => { read.push({ channel: 'undici', timings: (message as { timings?: unknown }).timings }) }
    diagnosticsChannel.subscribe('conduit:request:trailers', onConduit)
    diagnosticsChannel.subscribe('undici:request:trailers', onUndici)
    t.after(async () => {
      diagnosticsChannel.unsubscribe('conduit:request:trailers', onConduit)
      diagnosticsChannel.unsubscribe('undici:request:trailers', onUndici)
      await agent.close()
      await server.close()
    })
    class Watch extends DecoratorHandler {
      override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
        seen.push(controller.timings)
        super.onResponseEnd(controller, trailers)
      }
    }
    const watch: Interceptor = (dispatch) => (opts, handler) => dispatch(opts, new Watch(handler))
    const dispatcher = agent.compose(watch, interceptors.retry())
    const { body, timings } = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await body.text(), 'seen')
    assertComplete(timings!)
    assert.equal(seen.length, 1)
    assertComplete(seen[0]!)
    const conduit = read.find((r) => r.channel === 'conduit')
    assert.ok(conduit !== undefined)
    assertComplete(conduit.timings as RequestTimings)
    assert.equal(read.find((r) => r.channel === 'undici')?.timings, undefined)
  })

  it('a WebSocket handshake: its response ends with its head', async (t) => {
    const server = await startHttpServer((_req, res) => res.end())
    server.server.on('upgrade', (_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n')
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    let timings: RequestTimings | null | undefined
    const upgraded = new Promise<void>((resolve, reject) => {
      client.dispatch({ path: '/', method: 'GET', upgrade: 'websocket' }, {
        onRequestUpgrade (controller, statusCode, _headers, socket) {
          assert.equal(statusCode, 101)
          timings = controller.timings
          socket.destroy()
          resolve()
        },
        onResponseError (_c, err) { reject(err) }
      })
    })
    await upgraded
    assertComplete(timings!)
    assert.equal(timings!.responseEnd, timings!.responseStart)
    assert.equal(timings!.phases.download, 0)
  })

  it('a WebSocket handshake an HTTP/2 session cannot carry goes over HTTP/1.1 with its own connection\'s setup', async (t) => {
    const server = await startH2sServer((stream) => respond(stream, 200, 'h2'), { allowHTTP1: true })
    server.server.on('upgrade', (_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n')
    })
    const client = new Client(server.origin, { allowH2: true, connect: trustTestCa })
    t.after(async () => { await client.close(); await server.close() })
    const { body } = await client.request({ path: '/', method: 'GET' })
    assert.equal(await body.text(), 'h2')
    const timings = await new Promise<RequestTimings | null | undefined>((resolve, reject) => {
      client.dispatch({ path: '/', method: 'GET', upgrade: 'websocket' }, {
        onRequestUpgrade (controller, _statusCode, _headers, socket) {
          socket.destroy()
          resolve(controller.timings)
        },
        onResponseError (_c, err) { reject(err) }
      })
    })
    assertComplete(timings!)
    assert.equal(timings!.reusedSocket, false)
    assert.equal(typeof timings!.tlsEnd, 'number')
  })

  it('a mock reply has no timings', async (t) => {
    const { MockAgent } = await import('../../../src/index.js')
    const mock = new MockAgent()
    mock.disableNetConnect()
    mock.get('http://mocked.test').intercept({ path: '/' }).reply(200, 'mocked')
    t.after(() => mock.close())
    const { body, timings } = await mock.request({ origin: 'http://mocked.test', path: '/', method: 'GET' })
    assert.equal(await body.text(), 'mocked')
    assert.equal(timings, null)
    await once(body, 'close').catch(() => {})
  })
})
