import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type http from 'node:http'
import { Agent, interceptors } from '../../../src/index.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'

/** A server whose answers wait until `release()`; `arrived` fires on each request. */
async function gatedServer (respond: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  let open!: () => void
  const gate = new Promise<void>((resolve) => { open = resolve })
  const server = await startHttpServer((req, res) => {
    server.server.emit('arrived')
    void gate.then(() => respond(req, res))
  })
  return { server, release: () => open(), arrived: () => once(server.server, 'arrived') }
}

/** Collects one dispatch's events. */
function collector (onStart?: (controller: DispatchController) => void): { handler: DispatchHandler, done: Promise<{ status: number, body: string, headers: IncomingHeaders }> } {
  let status = 0
  let headers: IncomingHeaders = {}
  const chunks: Buffer[] = []
  let resolve!: (v: { status: number, body: string, headers: IncomingHeaders }) => void
  let reject!: (e: Error) => void
  const done = new Promise<{ status: number, body: string, headers: IncomingHeaders }>((res, rej) => { resolve = res; reject = rej })
  return {
    done,
    handler: {
      onRequestStart: (controller) => onStart?.(controller),
      // conduit calls the hooks with IncomingHeaders; the hook's type also admits Node's IncomingHttpHeaders.
      onResponseStart: (_c, s, h) => { status = s; headers = h as IncomingHeaders },
      onResponseData: (_c, chunk) => { chunks.push(chunk) },
      onResponseEnd: () => resolve({ status, headers, body: Buffer.concat(chunks).toString() }),
      onResponseError: (_c, err) => reject(err)
    }
  }
}

describe('interceptors.deduplicate()', { timeout: 20_000 }, () => {
  it('sends 50 identical concurrent GETs to the origin once, and each caller reads its own body', async (t) => {
    const { server, release, arrived } = await gatedServer((req, res) => res.end('shared body'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate())
    const first = arrived()
    const responses = Array.from({ length: 50 }, () => dispatcher.request({ origin: server.origin, path: '/data?v=1', method: 'GET', headers: { accept: 'text/plain' } }))
    await first
    release()
    const settled = await Promise.all(responses)
    const bodies = await Promise.all(settled.map(async (r) => `${r.statusCode} ${await r.body.text()}`))
    assert.deepEqual(bodies, Array(50).fill('200 shared body'))
    assert.equal(server.requests.length, 1)
    // Each caller got its own headers object.
    settled[0]!.headers['x-mutated'] = 'yes'
    assert.equal(settled[1]!.headers['x-mutated'], undefined)
  })

  it('keeps requests that differ in path, method, headers or a listed skip header apart', async (t) => {
    const { server, release, arrived } = await gatedServer((req, res) => res.end(req.url))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate({ skipHeaderNames: ['Idempotency-Key'], methods: ['GET', 'HEAD'] }))
    const first = arrived()
    const requests = [
      dispatcher.request({ origin: server.origin, path: '/a', method: 'GET' }),
      dispatcher.request({ origin: server.origin, path: '/b', method: 'GET' }),
      dispatcher.request({ origin: server.origin, path: '/a', method: 'HEAD' }),
      dispatcher.request({ origin: server.origin, path: '/a', method: 'GET', headers: { accept: 'x' } }),
      dispatcher.request({ origin: server.origin, path: '/a', method: 'GET', headers: { 'idempotency-key': '1' } }),
      dispatcher.request({ origin: server.origin, path: '/a', method: 'GET', headers: { 'idempotency-key': '1' } }),
      dispatcher.request({ origin: server.origin, path: '/a', method: 'POST' }),
      dispatcher.request({ origin: server.origin, path: '/a', method: 'POST' })
    ]
    await first
    release()
    for (const r of await Promise.all(requests)) await r.body.text()
    assert.equal(server.requests.length, 8)
  })

  it('shares requests that differ only in an excluded header', async (t) => {
    const { server, release, arrived } = await gatedServer((req, res) => res.end('one'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate({ excludeHeaderNames: ['X-Request-Id'] }))
    const first = arrived()
    const requests = ['1', '2', '3'].map((id) => dispatcher.request({ origin: server.origin, path: '/', method: 'GET', headers: { 'x-request-id': id } }))
    await first
    release()
    for (const r of await Promise.all(requests)) assert.equal(await r.body.text(), 'one')
    assert.equal(server.requests.length, 1)
  })

  it('sends an identical request on its own once the shared answer has begun', async (t) => {
    let n = 0
    const server = await startHttpServer((req, res) => {
      res.write(`part of ${++n}`)
      setImmediate(() => res.end())
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate())
    const firstResponse = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET' })
    const second = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await firstResponse.body.text(), 'part of 1')
    assert.equal(await second.body.text(), 'part of 2')
  })

  it('lets one caller pause without holding the others back, and fails it past maxBufferSize', async (t) => {
    const big = 'x'.repeat(64 * 1024)
    const { server, release, arrived } = await gatedServer((req, res) => {
      res.write(big)
      setImmediate(() => res.end(big))
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate({ maxBufferSize: 1024 }))
    const paused = collector((controller) => controller.pause())
    const reader = collector()
    const first = arrived()
    dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, paused.handler)
    dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, reader.handler)
    const pausedFails = assert.rejects(paused.done, { code: 'LIB_ERR_ABORTED', message: /maxBufferSize \(1024 bytes\)/ })
    await first
    release()
    const read = await reader.done
    assert.equal(read.body.length, 2 * big.length)
    await pausedFails
  })

  it('delivers held data to a caller that pauses and resumes', async (t) => {
    const { server, release, arrived } = await gatedServer((req, res) => res.end('later'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate())
    let controller!: DispatchController
    const paused = collector((c) => { controller = c; c.pause() })
    const other = collector()
    const first = arrived()
    dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, other.handler)
    dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, paused.handler)
    await first
    release()
    assert.equal((await other.done).body, 'later')
    controller.resume()
    assert.equal((await paused.done).body, 'later')
  })

  it('ends only the aborting caller, and the origin request once every caller aborted', async (t) => {
    const { server, release, arrived } = await gatedServer((req, res) => res.end('done'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate())
    let abortFirst!: DispatchController
    const quitter = collector((c) => { abortFirst = c })
    const stayer = collector()
    const first = arrived()
    dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, quitter.handler)
    dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, stayer.handler)
    const quits = assert.rejects(quitter.done, { message: 'changed my mind' })
    await first
    abortFirst.abort(new Error('changed my mind'))
    await quits
    release()
    assert.equal((await stayer.done).body, 'done')

    const lonely = collector((c) => queueMicrotask(() => c.abort(new Error('bye'))))
    dispatcher.dispatch({ origin: server.origin, path: '/gone', method: 'GET' }, lonely.handler)
    await assert.rejects(lonely.done, { message: 'bye' })
  })

  it('gives every caller the error of the shared request', async (t) => {
    const { server, release, arrived } = await gatedServer((req, res) => res.socket!.destroy())
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.deduplicate())
    const first = arrived()
    const requests = [1, 2, 3].map(() => dispatcher.request({ origin: server.origin, path: '/', method: 'GET' }))
    await first
    release()
    const outcomes = await Promise.allSettled(requests)
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected'])
    assert.equal(server.requests.length, 1)
  })

  it('refuses bad options naming the value', () => {
    assert.throws(() => interceptors.deduplicate({ methods: ['POST'] }), { code: 'LIB_ERR_INVALID_ARG', message: 'deduplicate(): methods may only contain safe methods (GET, HEAD, OPTIONS, TRACE), got "POST"' })
    assert.throws(() => interceptors.deduplicate({ methods: 'GET' as never }), { message: 'deduplicate(): methods must be an array of method names, got "GET"' })
    assert.throws(() => interceptors.deduplicate({ skipHeaderNames: [1] as never }), { message: 'deduplicate(): skipHeaderNames must hold header names, got 1' })
    assert.throws(() => interceptors.deduplicate({ excludeHeaderNames: 'x' as never }), { message: 'deduplicate(): excludeHeaderNames must be an array of header names, got "x"' })
    assert.throws(() => interceptors.deduplicate({ maxBufferSize: 0 }), { message: 'deduplicate(): maxBufferSize must be a positive integer (bytes), got 0' })
    assert.throws(() => interceptors.deduplicate(null as never), { message: 'deduplicate(): options must be an object, got null' })
  })

  it('logs callers joining a request in flight under NODE_DEBUG=conduit:deduplicate', async () => {
    const script = `
      import http from 'node:http'
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      const server = http.createServer((req, res) => setImmediate(() => res.end('ok')))
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const agent = new Agent()
      const d = agent.compose(interceptors.deduplicate())
      const origin = 'http://127.0.0.1:' + server.address().port
      const all = await Promise.all([d.request({ origin, path: '/x', method: 'GET' }), d.request({ origin, path: '/x', method: 'GET' })])
      for (const r of all) await r.body.text()
      await agent.close()
      server.close()
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit:deduplicate')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /CONDUIT:DEDUPLICATE \d+: GET http:\/\/127\.0\.0\.1:\d+\/x joins the identical request in flight \(2 callers\)/)
  })
})
