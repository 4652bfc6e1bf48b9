// EventSource against real local servers: the processing model (open, messages, reconnection
// with retry and Last-Event-ID, failure), dispatchers, bad input, and undici's EventSource on
// the same scenarios.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { undici } from '../../helpers/undici-reference.js'
import { Agent, errors, EventSource, ProxyAgent } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'

type Source = InstanceType<typeof EventSource> | InstanceType<typeof undici.EventSource>
type Make = (url: string, init?: Record<string, unknown>) => Source

const ours: Make = (url, init) => new EventSource(url, init as never)
const theirs: Make = (url, init) => new undici.EventSource(url, init as never)

function sse (res: http.ServerResponse, body: string, end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  if (end) res.end(body)
  else res.write(body)
}

/** Everything a listener sees, in order, until `until` says stop (then the source is closed). */
function record (source: Source, until: (log: string[]) => boolean, names: string[] = []): Promise<string[]> {
  const log: string[] = []
  return new Promise((resolve) => {
    const note = (entry: string): void => {
      log.push(entry)
      if (until(log)) {
        source.close()
        resolve(log)
      }
    }
    source.addEventListener('open', () => note(`open ${source.readyState}`))
    source.addEventListener('error', () => note(`error ${source.readyState}`))
    for (const type of ['message', ...names]) {
      source.addEventListener(type, (e) => {
        const m = e as MessageEvent
        note(`${m.type} ${JSON.stringify(m.data)} id=${m.lastEventId} origin=${m.origin === new URL(source.url).origin}`)
      })
    }
  })
}

/** Runs `run` with undici's EventSource, then with conduit's, against one server; returns both results and each run's requests. */
async function both (t: { after: (fn: () => Promise<void>) => void }, handler: http.RequestListener, run: (make: Make, origin: string) => Promise<unknown>): Promise<{ ours: unknown, theirs: unknown, requests: Array<TestServer['requests']> }> {
  const server = await startHttpServer(handler)
  t.after(() => server.close())
  const theirResult = await run(theirs, server.origin)
  const theirRequests = server.requests.splice(0)
  const ourResult = await run(ours, server.origin)
  return { ours: ourResult, theirs: theirResult, requests: [theirRequests, server.requests.splice(0)] }
}

describe('EventSource (differential against undici)', () => {
  it('opens, delivers messages and named events with their IDs, as undici does', async (t) => {
    const result = await both(t, (req, res) => sse(res, ': hi\n\nid: 1\ndata: one\n\nevent: tick\ndata: two\ndata: lines\n\ndata: three\r\n\r\n', false), async (make, origin) => {
      const source = make(`${origin}/stream`)
      assert.equal(source.readyState, 0)
      return record(source, (log) => log.length === 4, ['tick'])
    })
    assert.deepEqual(result.ours, result.theirs)
    assert.deepEqual(result.ours, ['open 1', 'message "one" id=1 origin=true', 'tick "two\\nlines" id=1 origin=true', 'message "three" id=1 origin=true'])
    for (const requests of result.requests) {
      assert.equal(requests[0]!.headers.accept, 'text/event-stream')
      assert.equal(requests[0]!.headers['last-event-id'], undefined)
    }
  })

  it('reconnects after the server\'s retry: delay, sending Last-Event-ID', async (t) => {
    let n = 0
    const result = await both(t, (req, res) => {
      // Odd requests start a run (the first of each library's two), even ones are its reconnection.
      n++
      if (n % 2 === 1) sse(res, 'retry: 20\nid: 41\ndata: first\n\n')
      else sse(res, 'data: again\n\n', false)
    }, async (make, origin) => record(make(`${origin}/r`), (log) => log.length === 4))
    assert.deepEqual(result.ours, result.theirs)
    assert.deepEqual(result.ours, ['open 1', 'message "first" id=41 origin=true', 'error 0', 'open 1'])
    for (const requests of result.requests) assert.equal(requests[1]!.headers['last-event-id'], '41')
  })

  it('fails for good on a wrong content type, a 204 and a 500: one error, CLOSED, no reconnection', async (t) => {
    for (const [status, type] of [[200, 'text/plain'], [204, 'text/event-stream'], [500, 'text/event-stream']] as const) {
      const result = await both(t, (req, res) => { res.writeHead(status, { 'content-type': type }); res.end(status === 204 ? undefined : 'data: x\n\n') }, async (make, origin) => {
        const log = await record(make(`${origin}/f`), (l) => l.length === 1)
        await new Promise((resolve) => setTimeout(resolve, 50))
        return log
      })
      assert.deepEqual(result.ours, result.theirs, `${status} ${type}`)
      assert.deepEqual(result.ours, ['error 2'])
      assert.deepEqual(result.requests.map((r) => r.length), [1, 1])
    }
  })

  it('a refused connection is reestablished: error with CONNECTING, then it tries again', async (t) => {
    const closed = await startHttpServer(() => {})
    const origin = closed.origin
    await closed.close()
    // undici's reconnection timer does not hold the process open; this one does, for both.
    const keepAlive = setInterval(() => {}, 1000)
    t.after(() => clearInterval(keepAlive))
    for (const make of [ours, theirs]) {
      const source = make(`${origin}/down`, { node: { reconnectionTime: 10 } })
      const log = await record(source, (l) => l.length === 2)
      assert.deepEqual(log, ['error 0', 'error 0'])
      assert.equal(source.readyState, 2)
    }
  })
})

describe('EventSource', () => {
  it('close() stops the stream and releases the connection', async (t) => {
    const sockets: Array<import('node:net').Socket> = []
    const server = await startHttpServer((req, res) => { sockets.push(req.socket); sse(res, 'data: a\n\n', false) })
    t.after(() => server.close())
    const source = new EventSource(`${server.origin}/c`)
    const log = await record(source, (l) => l.length === 2)
    assert.deepEqual(log, ['open 1', 'message "a" id= origin=true'])
    assert.equal(source.readyState, EventSource.CLOSED)
    await new Promise<void>((resolve) => { if (sockets[0]!.destroyed) resolve(); else sockets[0]!.once('close', () => resolve()) })
    assert.equal(server.requests.length, 1)
  })

  it('a connection cut in the middle of the stream is reestablished, as undici does', async (t) => {
    let n = 0
    const server = await startHttpServer((req, res) => {
      n++
      sse(res, `id: ${n}\ndata: part ${n}\n\n`, false)
      if (n === 1) setTimeout(() => res.socket?.destroy(), 20)
    })
    t.after(() => server.close())
    const log = await record(new EventSource(`${server.origin}/cut`, { node: { reconnectionTime: 10 } }), (l) => l.length === 5)
    assert.deepEqual(log, ['open 1', 'message "part 1" id=1 origin=true', 'error 0', 'open 1', 'message "part 2" id=2 origin=true'])
    assert.equal(server.requests[1]!.headers['last-event-id'], '1')
  })

  it('follows a redirect; events carry the final origin', async (t) => {
    const target = await startHttpServer((req, res) => sse(res, 'data: moved\n\n', false))
    const start = await startHttpServer((req, res) => { res.writeHead(302, { location: `${target.origin}/s` }); res.end() })
    t.after(async () => { await target.close(); await start.close() })
    const source = new EventSource(`${start.origin}/go`)
    let origin = ''
    source.addEventListener('message', (e) => { origin = (e as MessageEvent).origin })
    await record(source, (l) => l.length === 2)
    assert.equal(origin, target.origin)
  })

  it('runs on any dispatcher: a composed Agent and a ProxyAgent', async (t) => {
    const server = await startHttpServer((req, res) => sse(res, `data: ${String(req.headers['x-via'] ?? 'direct')}\n\n`, false))
    const proxy = await startHttpProxy()
    const agent = new Agent().compose((dispatch) => (opts, handler) => dispatch({ ...opts, headers: { ...(opts.headers as Record<string, string>), 'x-via': 'interceptor' } }, handler))
    const proxied = new ProxyAgent(proxy.url)
    t.after(async () => { await server.close(); await proxy.close(); await proxied.close() })
    const viaAgent = await record(new EventSource(`${server.origin}/a`, { dispatcher: agent as unknown as Dispatcher }), (l) => l.length === 2)
    assert.equal(viaAgent[1], 'message "interceptor" id= origin=true')
    const viaProxy = await record(new EventSource(`${server.origin}/p`, { node: { dispatcher: proxied } }), (l) => l.length === 2)
    assert.equal(viaProxy[1], 'message "direct" id= origin=true')
    assert.ok(proxy.requests.some((r) => r.url.includes(String(server.port))), 'the stream went through the proxy')
  })

  it('an event over maxEventSize fails the connection instead of growing without end', async (t) => {
    const server = await startHttpServer((req, res) => sse(res, 'data: ' + 'x'.repeat(64 * 1024), false))
    t.after(() => server.close())
    const source = new EventSource(`${server.origin}/big`, { node: { maxEventSize: 1024 } })
    assert.deepEqual(await record(source, (l) => l.length === 2), ['open 1', 'error 2'])
  })

  it('the onX attributes set and replace one listener each', async (t) => {
    const server = await startHttpServer((req, res) => sse(res, 'data: a\n\n', false))
    t.after(() => server.close())
    const source = new EventSource(`${server.origin}/h`)
    const seen: string[] = []
    source.onmessage = () => { seen.push('first') }
    source.onmessage = () => { seen.push('second') }
    assert.equal(typeof source.onmessage, 'function')
    await record(source, (l) => l.length === 2)
    assert.deepEqual(seen, ['second'])
    source.onmessage = null
    assert.equal(source.onmessage, null)
  })

  it('has the standard constants, url and withCredentials', () => {
    assert.deepEqual([EventSource.CONNECTING, EventSource.OPEN, EventSource.CLOSED], [0, 1, 2])
    const source = new EventSource('http://127.0.0.1:9/x?y', { withCredentials: 1 as unknown as boolean })
    assert.deepEqual([source.CONNECTING, source.OPEN, source.CLOSED], [0, 1, 2])
    assert.equal(source.url, 'http://127.0.0.1:9/x?y')
    assert.equal(source.withCredentials, true)
    source.close()
    assert.equal(source.readyState, 2)
  })

  it('bad input: a clear error naming the value, before anything is sent', () => {
    assert.throws(() => new (EventSource as any)(), TypeError)
    assert.throws(() => new EventSource('not a url'), (err: unknown) => err instanceof DOMException && err.name === 'SyntaxError' && err.message.includes('not a url'))
    assert.throws(() => new EventSource('http://u:secret@[bad/'), (err: unknown) => err instanceof DOMException && !err.message.includes('secret'))
    assert.throws(() => new EventSource('http://127.0.0.1:9/', { dispatcher: {} as Dispatcher }), errors.InvalidArgumentError)
    assert.throws(() => new EventSource('http://127.0.0.1:9/', { node: { reconnectionTime: -1 } }), /reconnectionTime.*-1/)
    assert.throws(() => new EventSource('http://127.0.0.1:9/', { node: { maxEventSize: 0 } }), /maxEventSize.*0/)
    assert.throws(() => new EventSource('http://127.0.0.1:9/', 5 as never), TypeError)
  })
})
