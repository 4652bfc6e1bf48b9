import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { BalancedPool, Pool, RoundRobinPool, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

async function text (dispatcher: Dispatcher, path = '/'): Promise<string> {
  const { body } = await dispatcher.request({ path, method: 'GET' })
  return await body.text()
}

async function named (t: { after: (fn: () => Promise<void>) => void }, count: number): Promise<TestServer[]> {
  const servers = await Promise.all(Array.from({ length: count }, (_, i) => startHttpServer((req, res) => setImmediate(() => res.end(`${i}`)))))
  t.after(async () => { await Promise.all(servers.map((s) => s.close())) })
  return servers
}

describe('BalancedPool', () => {
  it('queues requests while every upstream is busy and emits drain once one can take more', async (t) => {
    const [server] = await named(t, 1)
    const pool = new BalancedPool(server!.origin, { connections: 1 })
    t.after(() => pool.close())
    const first = new RecordingHandler()
    const second = new RecordingHandler()
    assert.equal(pool.dispatch({ path: '/', method: 'GET' }, first), false)
    assert.equal(pool.dispatch({ path: '/', method: 'GET' }, second), false)
    assert.equal(pool.pending, 1)
    const drained = new Promise<unknown[]>((resolve) => pool.once('drain', (...args: unknown[]) => resolve(args)))
    await Promise.all([first.done, second.done])
    const [, targets] = await drained
    assert.equal((targets as Dispatcher[])[0], pool)
    assert.deepEqual(second.events, ['start', 'response', 'data', 'end'])
  })

  it('passes its upstreams\' events up with itself, the upstream pool and the client as targets', async (t) => {
    const [server] = await named(t, 1)
    const pool = new BalancedPool(server!.origin)
    t.after(() => pool.close())
    const connected = new Promise<Dispatcher[]>((resolve) => pool.once('connect', (_origin: URL, targets: Dispatcher[]) => resolve(targets)))
    await text(pool)
    const targets = await connected
    assert.equal(targets[0], pool)
    assert.equal(targets[1], pool.getUpstream(server!.origin))
    assert.ok(targets[1] instanceof Pool)
    assert.equal(targets.length, 3)
  })

  it('close() lets queued requests and those of a removed upstream finish; destroy(err) fails what is queued', async (t) => {
    const [a, b] = await named(t, 2)
    const pool = new BalancedPool([a!.origin, b!.origin], { connections: 1 })
    const answers = [text(pool), text(pool), text(pool), text(pool)]
    pool.removeUpstream(a!.origin)
    assert.deepEqual(pool.upstreams, [b!.origin])
    await pool.close()
    assert.deepEqual((await Promise.all(answers)).sort(), ['0', '1', '1', '1'])
    assert.equal(pool.destroyed, true)

    const hanging = await startHttpServer(() => {})
    t.after(() => hanging.close())
    const doomed = new BalancedPool(hanging.origin, { connections: 1 })
    const running = doomed.request({ path: '/', method: 'GET' })
    const queued = doomed.request({ path: '/', method: 'GET' })
    await doomed.destroy(new Error('fleet gone'))
    await assert.rejects(running, { message: 'fleet gone' })
    await assert.rejects(queued, { message: 'fleet gone' })
    await assert.rejects(doomed.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('builds each upstream with the factory it is given, with its options', async (t) => {
    const [a, b] = await named(t, 2)
    const made: Array<[string, unknown]> = []
    const pool = new BalancedPool([a!.origin, b!.origin], {
      connections: 2,
      factory: (origin, opts) => { made.push([origin, opts.connections]); return new Pool(origin, opts) }
    })
    t.after(() => pool.close())
    assert.deepEqual(made, [[a!.origin, 2], [b!.origin, 2]])
    assert.deepEqual([await text(pool), await text(pool)].sort(), ['0', '1'])
  })

  it('fails a queued request whose signal aborts, without waiting for an upstream', async (t) => {
    const hanging = await startHttpServer(() => {})
    const pool = new BalancedPool(hanging.origin, { connections: 1 })
    t.after(async () => { await pool.destroy(); await hanging.close() })
    void pool.request({ path: '/', method: 'GET' }).catch(() => {})
    const controller = new AbortController()
    const queued = pool.request({ path: '/', method: 'GET', signal: controller.signal })
    assert.equal(pool.pending, 1)
    controller.abort(new Error('not any more'))
    await assert.rejects(queued, { message: 'not any more' })
    assert.equal(pool.pending, 0)
  })

  it('rejects bad weights and factories, naming the value', () => {
    assert.throws(() => new BalancedPool([], { maxWeightPerServer: 1.5 }), { code: 'LIB_ERR_INVALID_ARG', message: /1\.5/ })
    assert.throws(() => new BalancedPool([], { factory: 'pool' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /"pool"/ })
    assert.throws(() => new BalancedPool([], null as never), { code: 'LIB_ERR_INVALID_ARG', message: /null/ })
  })
})

describe('RoundRobinPool', () => {
  it('replaces a connection older than clientTtl, measured with the clock it is given', async (t) => {
    const server = await startHttpServer((req, res) => res.end(String(req.socket.remotePort)))
    let now = 0
    const pool = new RoundRobinPool(server.origin, { clientTtl: 1000, now: () => now })
    t.after(async () => { await pool.close(); await server.close() })
    const first = await text(pool)
    assert.equal(await text(pool), first)
    now = 1001
    const second = await text(pool)
    assert.notEqual(second, first)
    assert.equal(pool.clientCount, 1)
  })

  it('works composed with interceptors, requests taking its origin', async (t) => {
    let hits = 0
    const server = await startHttpServer((req, res) => { hits++; res.setHeader('cache-control', 'max-age=60'); res.end('cached') })
    const pool = new RoundRobinPool(server.origin).compose(interceptors.cache())
    t.after(async () => { await pool.close(); await server.close() })
    assert.deepEqual([await text(pool), await text(pool)], ['cached', 'cached'])
    assert.equal(hits, 1)
  })

  it('rejects a bad clientTtl or clock, naming the value', () => {
    assert.throws(() => new RoundRobinPool('http://127.0.0.1:1', { clientTtl: -5 }), { code: 'LIB_ERR_INVALID_ARG', message: /-5/ })
    assert.throws(() => new RoundRobinPool('http://127.0.0.1:1', { now: 5 as never }), { code: 'LIB_ERR_INVALID_ARG', message: /5/ })
  })
})
