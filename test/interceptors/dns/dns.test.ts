import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, errors, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { freePort } from '../../helpers/free-port.js'
import { startHttpsServer, trustTestCa } from '../../helpers/servers.js'
import type { TLSSocket } from 'node:tls'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'

type Record = { address: string, family: 4 | 6, ttl: number, port?: number }

/** An HTTP server on `host` that answers with its own name and records the Host header it saw. */
async function serverOn (host: string, name: string): Promise<{ port: number, hosts: string[], close: () => Promise<void> }> {
  const hosts: string[] = []
  const server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '')
    res.end(name)
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    hosts,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

/** A lookup function answering `records` for every name, counting its calls. */
function fixedLookup (records: Record[]): { lookup: (origin: URL, options: unknown, cb: (err: Error | null, addresses: Record[]) => void) => void, calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    lookup: (origin, _options, cb) => {
      calls.push(origin.hostname)
      cb(null, records.map((r) => ({ ...r })))
    }
  }
}

async function text (dispatcher: Dispatcher, origin: string, dns?: object): Promise<string> {
  const { body } = await dispatcher.request({ origin, path: '/', method: 'GET', ...(dns === undefined ? {} : { dns }) })
  return await body.text()
}

describe('interceptors.dns()', () => {
  it('resolves through the lookup function once per maxTTL and sends the original Host', async (t) => {
    const server = await serverOn('127.0.0.1', 'v4')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const { lookup, calls } = fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000 }])
    const dispatcher = agent.compose(interceptors.dns({ lookup }))
    for (let i = 0; i < 3; i++) assert.equal(await text(dispatcher, `http://service.test:${server.port}`), 'v4')
    assert.deepEqual(calls, ['service.test'])
    assert.deepEqual(server.hosts, Array(3).fill(`service.test:${server.port}`))
  })

  it('spreads requests round-robin over the addresses of a family', async (t) => {
    const a = await serverOn('127.0.0.1', 'a')
    const b = await serverOn('127.0.0.1', 'b')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await a.close(); await b.close() })
    const { lookup } = fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000, port: a.port }, { address: '127.0.0.1', family: 4, ttl: 60_000, port: b.port }])
    const dispatcher = agent.compose(interceptors.dns({ lookup, dualStack: false }))
    const seen: string[] = []
    for (let i = 0; i < 4; i++) seen.push(await text(dispatcher, 'http://service.test'))
    assert.deepEqual(seen, ['a', 'b', 'a', 'b'])
  })

  it('alternates between 127.0.0.1 and ::1 with dualStack, and keeps to one family without it', async (t) => {
    const v4 = await serverOn('127.0.0.1', 'v4')
    const v6 = await serverOn('::1', 'v6')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await v4.close(); await v6.close() })
    const records: Record[] = [{ address: '127.0.0.1', family: 4, ttl: 60_000, port: v4.port }, { address: '::1', family: 6, ttl: 60_000, port: v6.port }]
    const dual = agent.compose(interceptors.dns({ lookup: fixedLookup(records).lookup }))
    const seen: string[] = []
    for (let i = 0; i < 4; i++) seen.push(await text(dual, 'http://dual.test'))
    assert.deepEqual(seen, ['v4', 'v6', 'v4', 'v6'])
    const onlyV6 = agent.compose(interceptors.dns({ lookup: fixedLookup(records).lookup, dualStack: false, affinity: 6 }))
    assert.deepEqual([await text(onlyV6, 'http://six.test'), await text(onlyV6, 'http://six.test')], ['v6', 'v6'])
    // A request may choose its own affinity.
    assert.equal(await text(dual, 'http://dual.test', { affinity: 6, dualStack: false }), 'v6')
  })

  it('fails over to ::1 when 127.0.0.1 refuses the connection, and back the other way', async (t) => {
    const v6 = await serverOn('::1', 'v6')
    const v4 = await serverOn('127.0.0.1', 'v4')
    const closedPort = await freePort()
    const agent = new Agent()
    t.after(async () => { await agent.close(); await v6.close(); await v4.close() })
    const toV6 = agent.compose(interceptors.dns({
      affinity: 4,
      lookup: fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000, port: closedPort }, { address: '::1', family: 6, ttl: 60_000, port: v6.port }]).lookup
    }))
    assert.equal(await text(toV6, 'http://failover.test'), 'v6')
    assert.deepEqual(v6.hosts, ['failover.test'])
    const toV4 = agent.compose(interceptors.dns({
      affinity: 6,
      lookup: fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000, port: v4.port }, { address: '::1', family: 6, ttl: 60_000, port: closedPort }]).lookup
    }))
    assert.equal(await text(toV4, 'http://failover.test'), 'v4')
  })

  it('does not fail over without dualStack: the refusal reaches the caller', async (t) => {
    const closedPort = await freePort()
    const agent = new Agent()
    t.after(() => agent.close())
    const dispatcher = agent.compose(interceptors.dns({
      dualStack: false,
      lookup: fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000, port: closedPort }, { address: '::1', family: 6, ttl: 60_000, port: closedPort }]).lookup
    }))
    await assert.rejects(dispatcher.request({ origin: 'http://refused.test', path: '/', method: 'GET' }), { code: 'ECONNREFUSED' })
  })

  it('resolves again once maxTTL has passed', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 })
    const server = await serverOn('127.0.0.1', 'ok')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const { lookup, calls } = fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000 }])
    const dispatcher = agent.compose(interceptors.dns({ lookup, maxTTL: 500 }))
    await text(dispatcher, `http://ttl.test:${server.port}`)
    t.mock.timers.tick(400)
    await text(dispatcher, `http://ttl.test:${server.port}`)
    assert.equal(calls.length, 1)
    t.mock.timers.tick(200)
    await text(dispatcher, `http://ttl.test:${server.port}`)
    assert.equal(calls.length, 2)
  })

  it('uses a custom pick and storage, and passes host names through unresolved once the storage is full', async (t) => {
    const server = await serverOn('127.0.0.1', 'ok')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const picked: string[] = []
    const { lookup, calls } = fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000 }])
    const dispatcher = agent.compose(interceptors.dns({
      lookup,
      maxItems: 1,
      pick: (origin, records) => { picked.push(origin.hostname); return records.records[4]!.ips[0]! }
    }))
    await text(dispatcher, `http://first.test:${server.port}`)
    assert.deepEqual(picked, ['first.test'])
    // 'localhost' is not resolved by the interceptor any more; the transport resolves it.
    assert.equal(await text(dispatcher, `http://localhost:${server.port}`), 'ok')
    assert.deepEqual(calls, ['first.test'])
    const entries = new Map<string, unknown>()
    const storage = {
      get size () { return entries.size },
      get: (name: string) => (entries.get(name) as never) ?? null,
      set: (name: string, records: unknown) => { entries.set(name, records) },
      delete: (name: string) => { entries.delete(name) },
      full: () => false
    }
    const stored = agent.compose(interceptors.dns({ lookup, storage }))
    await text(stored, `http://stored.test:${server.port}`)
    assert.deepEqual([...entries.keys()], ['stored.test'])
  })

  it('resolves localhost with the system lookup by default', async (t) => {
    const server = await serverOn('127.0.0.1', 'ok')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.dns({ affinity: 4, dualStack: false }))
    assert.equal(await text(dispatcher, `http://localhost:${server.port}`), 'ok')
    assert.deepEqual(server.hosts, [`localhost:${server.port}`])
  })

  it('fails the request with the lookup error, or an InformationalError when nothing was found', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const failing = agent.compose(interceptors.dns({ lookup: (_o, _opts, cb) => cb(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' })) }))
    await assert.rejects(failing.request({ origin: 'http://missing.test', path: '/', method: 'GET' }), { code: 'ENOTFOUND', message: 'no such host' })
    const empty = agent.compose(interceptors.dns({ lookup: (_o, _opts, cb) => cb(null, []) }))
    await assert.rejects(empty.request({ origin: 'http://empty.test', path: '/', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.InformationalError)
      assert.equal((err as errors.InformationalError).code, 'LIB_ERR_INFO')
      assert.match(err.message, /no addresses found for empty\.test/)
      return true
    })
  })

  it('leaves requests to an IP address alone', async (t) => {
    const server = await serverOn('127.0.0.1', 'ok')
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const { lookup, calls } = fixedLookup([])
    assert.equal(await text(agent.compose(interceptors.dns({ lookup })), `http://127.0.0.1:${server.port}`), 'ok')
    assert.deepEqual(calls, [])
  })

  it('refuses bad options naming the value', async (t) => {
    assert.throws(() => interceptors.dns({ maxTTL: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: 'dns(): maxTTL must be a non-negative integer (milliseconds), got -1' })
    assert.throws(() => interceptors.dns({ maxItems: 0 }), { message: 'dns(): maxItems must be a positive integer, got 0' })
    assert.throws(() => interceptors.dns({ affinity: 5 as never }), { message: 'dns(): affinity must be 4 or 6, got 5' })
    assert.throws(() => interceptors.dns({ dualStack: 'yes' as never }), { message: 'dns(): dualStack must be a boolean, got "yes"' })
    assert.throws(() => interceptors.dns({ lookup: 'dns' as never }), { message: 'dns(): lookup must be a function, got "dns"' })
    assert.throws(() => interceptors.dns({ pick: 1 as never }), { message: 'dns(): pick must be a function, got 1' })
    assert.throws(() => interceptors.dns({ storage: {} as never }), { message: 'dns(): storage must be an object with get, set, delete and full methods (no get), got [object Object]' })
    const agent = new Agent()
    t.after(() => agent.close())
    await assert.rejects(agent.compose(interceptors.dns()).request({ origin: 'http://x.test', path: '/', method: 'GET', dns: { affinity: 7 as 4 } }), { code: 'LIB_ERR_INVALID_ARG', message: 'dns(): affinity must be 4 or 6, got 7' })
  })

  it('logs resolutions and failovers under NODE_DEBUG=conduit:dns', async () => {
    const script = `
      import http from 'node:http'
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      const server = http.createServer((req, res) => res.end('ok'))
      await new Promise((resolve) => server.listen(0, '::1', resolve))
      const port = server.address().port
      const lookup = (origin, options, cb) => cb(null, [{ address: '127.0.0.1', family: 4, ttl: 1000 }, { address: '::1', family: 6, ttl: 1000 }])
      const agent = new Agent()
      const { body } = await agent.compose(interceptors.dns({ lookup, affinity: 4 })).request({ origin: 'http://log.test:' + port, path: '/', method: 'GET' })
      await body.text()
      await agent.close()
      server.close()
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit:dns')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /CONDUIT:DNS \d+: resolved log\.test to 127\.0\.0\.1, ::1/)
    assert.match(stderr, /CONDUIT:DNS \d+: http:\/\/127\.0\.0\.1:\d+ refused log\.test:\d+ \(ECONNREFUSED\); trying http:\/\/\[::1\]:\d+/)
  })
})

describe('interceptors.dns() over HTTPS', () => {
  it('opens the connection to the address with the host name as TLS server name', async (t) => {
    const names: Array<string | false | null> = []
    const server = await startHttpsServer((req, res) => {
      names.push((req.socket as TLSSocket).servername)
      res.end('secure')
    })
    const agent = new Agent({ connect: trustTestCa })
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.dns({ lookup: fixedLookup([{ address: '127.0.0.1', family: 4, ttl: 60_000 }]).lookup }))
    assert.equal(await text(dispatcher, `https://localhost:${server.port}`), 'secure')
    assert.deepEqual(names, ['localhost'])
  })

  it('refuses a servername that is not a non-empty string, naming it', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: 'https://127.0.0.1:1', path: '/', method: 'GET', servername: 5 as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'servername must be a non-empty string, got 5' })
  })
})
