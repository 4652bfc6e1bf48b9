/**
 * BalancedPool and RoundRobinPool through undici and conduit against the same local servers:
 * which upstream or connection serves each request, the upstream list as it is edited, load
 * figures, composition with interceptors, and the errors for bad upstreams.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { both, caught } from './harness.js'
import type { Lib } from './harness.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

let servers: TestServer[]
let origins: string[]
/** An origin nothing listens on (a port opened and closed again). */
let refusing: string

before(async () => {
  servers = await Promise.all([0, 1, 2].map((i) => startHttpServer((req, res) => {
    req.resume()
    // The client's port tells connections apart; the server's index tells upstreams apart.
    res.end(`${i} ${req.socket.remotePort}`)
  })))
  origins = servers.map((s) => s.origin)
  const spare = net.createServer()
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve))
  refusing = `http://127.0.0.1:${(spare.address() as net.AddressInfo).port}`
  await new Promise((resolve) => spare.close(resolve))
})
after(() => Promise.all(servers.map((s) => s.close())))

/** Sends `count` GETs one after the other; records the answering upstream, or the error's shape. */
async function sequence (dispatcher: any, count: number): Promise<unknown[]> {
  const seen: unknown[] = []
  for (let i = 0; i < count; i++) {
    const outcome = await caught(async () => {
      const { body } = await dispatcher.request({ path: '/', method: 'GET' })
      return (await body.text()).split(' ')[0]
    })
    seen.push('value' in outcome ? outcome.value : outcome)
  }
  return seen
}

describe('BalancedPool compared with undici', () => {
  it('spreads requests over its upstreams in the same order', async () => {
    const seen = await both(async (lib) => {
      const pool = new lib.BalancedPool(origins)
      try { return await sequence(pool, 12) } finally { await pool.close() }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit.slice(0, 3).sort(), ['0', '1', '2'])
  })

  it('sends fewer requests to an upstream that refuses connections, in the same order', async () => {
    const seen = await both(async (lib) => {
      const pool = new lib.BalancedPool([origins[0], refusing, origins[1]])
      try { return await sequence(pool, 40) } finally { await pool.close() }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    const refused = seen.conduit.filter((outcome) => typeof outcome === 'object').length
    assert.ok(refused > 0 && refused < 40 / 3, `refused ${refused} of 40`)
  })

  it('lowers the weight of an upstream that breaks its connections and picks the next in the same order', async (t) => {
    // Sockets destroyed under a request are socket errors: each one costs the upstream a penalty,
    // and every upstream's next turn follows from the weights, in both libraries.
    const resetting = await startHttpServer((req) => { req.socket.destroy() })
    t.after(() => resetting.close())
    const seen = await both(async (lib) => {
      const pool = new lib.BalancedPool([origins[0], resetting.origin, origins[1]])
      try { return await sequence(pool, 40) } finally { await pool.close() }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    const failed = seen.conduit.filter((outcome) => typeof outcome === 'object')
    assert.ok(failed.length > 0 && failed.length < 40 / 3, `failed ${failed.length} of 40`)
    assert.deepEqual(failed[0], { error: 'SocketError', code: 'LIB_ERR_SOCKET' })
  })

  it('gives an upstream that recovers from connection errors its turns back in the same order', async (t) => {
    let broken = 0
    const recovering = await startHttpServer((req, res) => {
      // The first four requests of each run break their connections, the others are answered.
      if (++broken <= 4) req.socket.destroy()
      else res.end('recovered')
    })
    t.after(() => recovering.close())
    const seen = await both(async (lib) => {
      broken = 0
      const pool = new lib.BalancedPool([origins[0], recovering.origin, origins[1]], { errorPenalty: 30 })
      try { return await sequence(pool, 30) } finally { await pool.close() }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.equal(seen.conduit.filter((outcome) => typeof outcome === 'object').length, 4)
    assert.ok(seen.conduit.slice(-6).includes('recovered'), 'the recovered upstream takes turns again')
  })

  it('adds, finds and removes upstreams the same way', async () => {
    const seen = await both(async (lib) => {
      const pool = new lib.BalancedPool(origins[0])
      const steps: unknown[] = [pool.upstreams]
      steps.push(pool.addUpstream(origins[1]) === pool, pool.addUpstream(`${origins[1]}/`).upstreams)
      steps.push(pool.getUpstream(origins[1]) instanceof lib.Pool, pool.getUpstream(origins[2]))
      steps.push(pool.removeUpstream(origins[0]).upstreams)
      // undici 7.30 may still pick the removed upstream and fail with ClientClosedError (see
      // docs/undici-differences.md, "undici 7 and undici 8"), so only conduit's answers are looked at.
      const afterRemoval = await sequence(pool, 3)
      steps.push(pool.removeUpstream(origins[2]).upstreams)
      await pool.close()
      steps.push(pool.closed, pool.destroyed)
      return { steps, afterRemoval }
    })
    assert.deepEqual(seen.conduit.steps, seen.undici.steps)
    assert.deepEqual(seen.conduit.afterRemoval, ['1', '1', '1'])
  })

  it('reports the same load figures and works composed with interceptors', async () => {
    const seen = await both(async (lib) => {
      const pool = new lib.BalancedPool(origins)
      const composed = pool.compose(lib.interceptors.retry(), lib.interceptors.dump())
      const statuses = await Promise.all([0, 1, 2, 3, 4, 5].map(async () => (await composed.request({ path: '/', method: 'GET' })).statusCode))
      const stats = pool.stats
      const shape = { keys: Object.keys(stats).filter((key) => key !== 'free').sort(), connected: stats.connected, size: stats.size, running: stats.running }
      await composed.close()
      return { statuses, shape, destroyed: pool.destroyed }
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('fails a request with BalancedPoolMissingUpstreamError when it has no upstream', async () => {
    const seen = await both(async (lib) => {
      const pool = new lib.BalancedPool()
      try { return await sequence(pool, 1) } finally { await pool.close() }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, [{ error: 'MissingUpstreamError', code: 'LIB_ERR_BPL_MISSING_UPSTREAM' }])
  })

  it('rejects an upstream that is not an http(s) origin with InvalidArgumentError, naming it', async () => {
    // A string that is no URL at all is an InvalidArgumentError too, where undici lets the URL
    // parser's TypeError through (see docs/undici-differences.md); it is checked below.
    const bad = ['ftp://127.0.0.1:21', `${'http://127.0.0.1:1'}/path`]
    const seen = await both(async (lib) => Promise.all(bad.flatMap((upstream) => [
      caught(async () => new lib.BalancedPool(upstream)),
      caught(async () => new lib.BalancedPool().addUpstream(upstream)),
      caught(async () => new lib.BalancedPool().removeUpstream(upstream))
    ])))
    assert.deepEqual(seen.conduit, seen.undici)
    const { BalancedPool, errors } = await import('../../src/index.js')
    for (const upstream of [...bad, 'not a url']) {
      assert.throws(() => new BalancedPool(upstream), (err: Error) => err instanceof errors.InvalidArgumentError && err.message.includes(JSON.stringify(upstream)))
    }
    assert.throws(() => new BalancedPool('http://user:secret@127.0.0.1:1/x'), (err: Error) => !err.message.includes('secret'))
    assert.throws(() => new BalancedPool([], { errorPenalty: -1 }), (err: Error) => err instanceof errors.InvalidArgumentError && err.message.includes('-1'))
  })
})

async function portOf (pool: any): Promise<string> {
  const { body } = await pool.request({ path: '/', method: 'GET' })
  return (await body.text()).split(' ')[1]!
}

/** Sends `count` GETs at once; returns how many each connection served, largest first, and the connections. */
async function spread (pool: any, count: number): Promise<{ perConnection: number[] }> {
  const ports = await Promise.all(Array.from({ length: count }, async () => {
    const { body } = await pool.request({ path: '/', method: 'GET' })
    return (await body.text()).split(' ')[1]
  }))
  const counts = new Map<string, number>()
  for (const port of ports) counts.set(port!, (counts.get(port!) ?? 0) + 1)
  return { perConnection: [...counts.values()].sort((a, b) => b - a) }
}

describe('RoundRobinPool compared with undici', () => {
  it('opens up to `connections` for concurrent requests, then takes them in turn', async () => {
    const seen = await both(async (lib: Lib) => {
      const pool = new lib.RoundRobinPool(origins[0], { connections: 3 })
      try {
        // Which connection finishes first is up to the machine, so the burst is seen only by its count.
        const burst = (await spread(pool, 9)).perConnection.length
        const turns: string[] = []
        for (let i = 0; i < 9; i++) turns.push(await portOf(pool))
        const order = [...new Set(turns)]
        return { burst, turns: turns.map((port) => order.indexOf(port)), stats: Object.keys(pool.stats).sort(), clients: pool.stats.connected }
      } finally { await pool.close() }
    })
    // undici 7.30 leaves one connection of the burst out of the later turns (see
    // docs/undici-differences.md, "undici 7 and undici 8"); everything else is compared.
    const { turns, ...rest } = seen.conduit
    const { turns: undiciTurns, ...undiciRest } = seen.undici
    assert.deepEqual(rest, undiciRest)
    assert.deepEqual(turns, [0, 1, 2, 0, 1, 2, 0, 1, 2])
    assert.equal(undiciTurns.length, turns.length)
  })

  it('rejects bad options and origins with InvalidArgumentError', async () => {
    const seen = await both(async (lib: Lib) => [
      await caught(async () => new lib.RoundRobinPool('ftp://127.0.0.1:21')),
      await caught(async () => new lib.RoundRobinPool(origins[0], { connections: -1 })),
      await caught(async () => new lib.RoundRobinPool(origins[0], { factory: 'nope' }))
    ])
    assert.deepEqual(seen.conduit, seen.undici)
  })
})
