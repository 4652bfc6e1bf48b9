/**
 * Client, Pool and Agent through undici and conduit against one server: constructor options,
 * events and their arguments, stats, closed/destroyed, maxOrigins, and requests after close.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { both, caught, errorShape } from './harness.js'
import type { Lib } from './harness.js'
import { startCompatServer } from './compat-server.js'
import type { TestServer } from '../helpers/servers.js'

let server: TestServer

before(async () => { server = await startCompatServer() })
after(() => server.close())

async function get (dispatcher: any, path = '/echo', origin = server.origin): Promise<number> {
  const res = await dispatcher.request({ origin, path, method: 'GET' })
  await res.body.text()
  return res.statusCode
}

/** Records every dispatcher event as [name, origin string, number of targets, error shape]. */
function recordEvents (dispatcher: any): unknown[] {
  const events: unknown[] = []
  for (const name of ['connect', 'disconnect', 'connectionError', 'drain']) {
    dispatcher.on(name, (origin: URL, targets: unknown[], err?: Error) => {
      events.push([name, String(origin), targets.length, err === undefined ? null : errorShape(err).error])
    })
  }
  return events
}

describe('Client, Pool and Agent compared with undici', () => {
  it('take an origin as a string, a URL or a URL-like object', async () => {
    const seen = await both(async (lib: Lib) => {
      const results = []
      for (const origin of [server.origin, new URL(server.origin), { protocol: 'http:', hostname: '127.0.0.1', port: server.port }]) {
        const client = new lib.Client(origin)
        results.push(await get(client))
        await client.close()
      }
      results.push(await caught(async () => new lib.Client('ftp://127.0.0.1')))
      results.push(await caught(async () => new lib.Client(`${server.origin}/path`)))
      return results
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('emit connect and disconnect with the same arguments, from a Client, a Pool and an Agent', async () => {
    const seen = await both(async (lib: Lib) => {
      const all = []
      for (const make of [() => new lib.Client(server.origin), () => new lib.Pool(server.origin), () => new lib.Agent()]) {
        const dispatcher = make()
        const events = recordEvents(dispatcher)
        await get(dispatcher)
        await dispatcher.close()
        all.push(events.filter((e) => (e as string[])[0] !== 'drain'))
      }
      return all
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('emit connectionError for an origin that refuses connections', async () => {
    const seen = await both(async (lib: Lib) => {
      const agent = new lib.Agent()
      const events = recordEvents(agent)
      const outcome = await caught(get(agent, '/', 'http://127.0.0.1:1'))
      await agent.close()
      return { outcome, events }
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('report stats per origin, and closed/destroyed', async () => {
    const seen = await both(async (lib: Lib) => {
      const agent = new lib.Agent()
      const client = new lib.Client(server.origin)
      const pool = new lib.Pool(server.origin, { connections: 2 })
      await Promise.all([get(agent), get(client), get(pool)])
      // undici counts a connected idle Pool client as not free once it was busy; conduit counts it free.
      const { free: _free, ...poolStats } = pool.stats
      const stats = { agent: agent.stats, client: { ...client.stats }, pool: poolStats }
      const flags = [agent.closed, agent.destroyed]
      const closing = agent.close()
      flags.push(agent.closed)
      await closing
      const destroying = client.destroy()
      flags.push(client.destroyed)
      await destroying
      await pool.close()
      const perOrigin = Object.fromEntries(Object.entries(stats.agent).map(([origin, s]) => [origin, { ...(s as object), free: undefined }]))
      return { stats: JSON.parse(JSON.stringify({ ...stats, agent: perOrigin })), flags }
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('refuse a new origin beyond maxOrigins with the same error, and a bad maxOrigins', async () => {
    const seen = await both(async (lib: Lib) => {
      const agent = new lib.Agent({ maxOrigins: 1 })
      const first = await get(agent)
      const second = await caught(get(agent, '/', `http://localhost:${server.port}`))
      const again = await get(agent)
      await agent.close()
      const bad = [0, -1, 'x'].map((maxOrigins) => { try { return new lib.Agent({ maxOrigins }) && 'accepted' } catch (err) { return errorShape(err) } })
      return { first, second, again, bad }
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('fail requests after destroy with the same errors', async () => {
    const seen = await both(async (lib: Lib) => {
      const results = []
      for (const make of [() => new lib.Client(server.origin), () => new lib.Pool(server.origin), () => new lib.Agent()]) {
        const destroyed = make()
        await destroyed.destroy()
        results.push(await caught(get(destroyed)))
        results.push(await caught(destroyed.close()))
      }
      return results
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('count a dispatcher that finished closing as destroyed, with the same errors and flags', async () => {
    const seen = await both(async (lib: Lib) => {
      const results = []
      for (const make of [() => new lib.Client(server.origin), () => new lib.Pool(server.origin), () => new lib.Agent()]) {
        const dispatcher = make()
        await get(dispatcher)
        const closing = dispatcher.close()
        results.push({ closedWhileClosing: dispatcher.closed, destroyedWhileClosing: dispatcher.destroyed })
        results.push(await caught(get(dispatcher)))
        await closing
        results.push({ closed: dispatcher.closed, destroyed: dispatcher.destroyed })
        results.push(await caught(get(dispatcher)))
        results.push(await caught(dispatcher.close()))
        // undici resolves null, conduit undefined (both type as void): only settling is compared.
        results.push(await caught(dispatcher.destroy().then(() => 'resolved')))
      }
      return results
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('fail requests in flight with the destroy error', async () => {
    const seen = await both(async (lib: Lib) => {
      const client = new lib.Client(server.origin)
      const pending = caught(get(client, '/hang'))
      setTimeout(() => client.destroy(new RangeError('shutting down')), 20)
      return pending
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { error: 'RangeError', code: undefined })
  })

  it('apply headersTimeout and bodyTimeout options of the constructor', async () => {
    const seen = await both(async (lib: Lib) => {
      const client = new lib.Client(server.origin, { headersTimeout: 30, bodyTimeout: 30 })
      const outcome = await caught(get(client, '/hang'))
      await client.destroy()
      return outcome
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('refuse the same bad constructor options', async () => {
    const seen = await both(async (lib: Lib) => {
      const bad = [{ headersTimeout: -5 }, { keepAliveTimeout: 'x' }, { connect: 5 }, { socketPath: 7 }, { maxHeaderSize: 0 }]
      return bad.map((options) => { try { return new lib.Client(server.origin, options) && 'accepted' } catch (err) { return errorShape(err) } })
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('send requests through compose() interceptors in the same order, skipping null entries', async () => {
    const seen = await both(async (lib: Lib) => {
      const order: string[] = []
      const tag = (name: string) => (dispatch: any) => (opts: any, handler: any) => {
        order.push(name)
        return dispatch({ ...opts, headers: { ...opts.headers, [`x-${name}`]: '1' } }, handler)
      }
      const agent = new lib.Agent()
      const composed = agent.compose(tag('a'), null, tag('b'), undefined)
      const res = await composed.request({ origin: server.origin, path: '/echo', method: 'GET' })
      const body = await res.body.json()
      await agent.close()
      return { order, a: body.headers['x-a'], b: body.headers['x-b'] }
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })
})
