import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Pool } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

describe('Pool', () => {
  it('opens at most `connections` connections and queues the other requests', async (t) => {
    const server = await startHttpServer((req, res) => setImmediate(() => res.end(req.url)))
    const pool = new Pool(server.origin, { connections: 2 })
    t.after(async () => { await pool.close(); await server.close() })
    const bodies = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const { body } = await pool.request({ path: `/${i}`, method: 'GET' })
      return await body.text()
    }))
    assert.deepEqual(bodies, Array.from({ length: 10 }, (_, i) => `/${i}`))
    assert.equal(server.connections, 2)
    assert.equal(pool.clientCount, 2)
  })

  it('returns false from dispatch when saturated and emits drain once it can take more', async (t) => {
    const server = await startHttpServer((req, res) => setImmediate(() => res.end('x')))
    const pool = new Pool(server.origin, { connections: 1 })
    t.after(async () => { await pool.close(); await server.close() })
    const first = new RecordingHandler()
    const second = new RecordingHandler()
    assert.equal(pool.dispatch({ path: '/', method: 'GET' }, first), false)
    assert.equal(pool.dispatch({ path: '/', method: 'GET' }, second), false)
    const drained = new Promise<unknown[]>((resolve) => pool.once('drain', (...args: unknown[]) => resolve(args)))
    await Promise.all([first.done, second.done])
    const [origin, targets] = await drained
    assert.equal(String(origin), `${server.origin}/`)
    assert.equal((targets as Dispatcher[])[0], pool)
    assert.deepEqual(second.events, ['start', 'response', 'data', 'end'])
  })

  it('builds its clients with the factory and forwards their events with itself first in targets', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const made: Client[] = []
    const pool = new Pool(server.origin, { factory: (origin, opts) => { const c = new Client(origin, opts); made.push(c); return c } })
    t.after(async () => { await pool.close(); await server.close() })
    const connected = new Promise<Dispatcher[]>((resolve) => pool.once('connect', (_origin: URL, targets: Dispatcher[]) => resolve(targets)))
    await (await pool.request({ path: '/', method: 'GET' })).body.text()
    const targets = await connected
    assert.equal(made.length, 1)
    assert.deepEqual(targets, [pool, made[0]])
  })

  it('destroy(err) fails queued requests with that error', async (t) => {
    const server = await startHttpServer(() => {})
    const pool = new Pool(server.origin, { connections: 1 })
    t.after(() => server.close())
    const running = pool.request({ path: '/1', method: 'GET' })
    const queued = pool.request({ path: '/2', method: 'GET' })
    assert.equal(pool.pending, 1)
    await pool.destroy(new Error('pool gone'))
    await assert.rejects(running, { message: 'pool gone' })
    await assert.rejects(queued, { message: 'pool gone' })
    await assert.rejects(pool.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('close() lets queued requests finish first', async (t) => {
    const server = await startHttpServer((req, res) => setImmediate(() => res.end(req.url)))
    const pool = new Pool(server.origin, { connections: 1 })
    t.after(() => server.close())
    const a = pool.request({ path: '/a', method: 'GET' })
    const b = pool.request({ path: '/b', method: 'GET' })
    const closing = pool.close()
    assert.equal(await (await a).body.text(), '/a')
    assert.equal(await (await b).body.text(), '/b')
    await closing
    await assert.rejects(pool.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('rejects a bad connections option naming the value', () => {
    assert.throws(() => new Pool('http://127.0.0.1:1', { connections: 1.5 }), { code: 'LIB_ERR_INVALID_ARG', message: 'Pool: connections must be a non-negative integer or null, got 1.5' })
    assert.throws(() => new Pool('http://127.0.0.1:1', { factory: 'x' as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'Pool: factory must be a function, got "x"' })
  })
})
