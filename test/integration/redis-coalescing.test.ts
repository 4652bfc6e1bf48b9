import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type http from 'node:http'
import { startHttpServer } from '../helpers/servers.js'
import { startRedisServer } from '../helpers/redis-server.js'
import type { TestRedis } from '../helpers/redis-server.js'
import { startRedisCluster } from '../helpers/redis-cluster.js'
import type { TestRedisCluster } from '../helpers/redis-cluster.js'

const childScript = fileURLToPath(new URL('./redis-coalescing-child.js', import.meta.url))
const BODY = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => i % 251))
const DIGEST = createHash('sha256').update(BODY).digest('hex')
// Long enough for every host to have sent its requests before the origin answers the first.
const HOLD_AFTER_DISPATCH_MS = 500
// The lease runs from the first miss, the hold from the last host's dispatch: on a loaded machine
// eight processes can take seconds to dispatch, and a lease that expires before the origin answers
// lets a second host fetch, which is the design, not a failure to coalesce. Only the scenario
// about a dead leaseholder needs the lease to run out.
const LEASE_MS = 30_000
const TAKEOVER_LEASE_MS = 1500

interface Result { status: number, length: number, digest: string }

let cluster: TestRedisCluster
let redis: TestRedis
let prefixes = 0

before(async () => {
  cluster = await startRedisCluster()
  redis = await startRedisServer()
})

after(async () => {
  await cluster?.close()
  await redis?.close()
})

interface Scenario {
  connection: object
  hosts: number
  requests: number
  /** Response headers of the origin. */
  headers: http.OutgoingHttpHeaders
  /** Kill the host whose request reaches the origin first, before it is answered. */
  killLeaseholder?: boolean
}

/**
 * Runs `hosts` forked processes that each send `requests` concurrent requests for one cold URL,
 * and returns what the origin saw and what every surviving host got.
 */
async function run (s: Scenario): Promise<{ originRequests: number, results: Result[], killed: number }> {
  const children: ChildProcess[] = []
  let released!: () => void
  const release = new Promise<void>((resolve) => { released = resolve })
  let originRequests = 0
  let killed = 0
  const origin = await startHttpServer((req, res) => {
    originRequests++
    const host = Number(req.headers['x-host'])
    if (s.killLeaseholder === true && originRequests === 1) {
      killed++
      children[host]?.kill('SIGKILL')
      return
    }
    void release.then(() => {
      res.writeHead(200, { 'content-length': BODY.length, ...s.headers })
      res.end(BODY)
    })
  })
  try {
    const prefix = `coalesce:${process.pid}:${++prefixes}:`
    const url = `${origin.origin}/cold`
    const results: Result[] = []
    const exits: Array<Promise<void>> = []
    const ready: Array<Promise<void>> = []
    const dispatched: Array<Promise<void>> = []
    for (let i = 0; i < s.hosts; i++) {
      const child = fork(childScript, [JSON.stringify(s.connection), prefix, url, String(s.requests), String(i), String(s.killLeaseholder === true ? TAKEOVER_LEASE_MS : LEASE_MS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      children.push(child)
      exits.push(new Promise((resolve) => child.once('exit', () => resolve())))
      ready.push(new Promise((resolve) => child.on('message', (m) => { if (m === 'ready') resolve() })))
      dispatched.push(new Promise((resolve) => child.on('message', (m) => { if (m === 'dispatched') resolve() })))
      child.on('message', (m: { results?: Result[] }) => { if (m.results !== undefined) results.push(...m.results) })
    }
    await Promise.all(ready)
    for (const child of children) child.send('go')
    await Promise.all(dispatched)
    setTimeout(released, HOLD_AFTER_DISPATCH_MS)
    await Promise.all(exits)
    return { originRequests, results, killed }
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await origin.close()
  }
}

function assertAllFull (results: Result[], expected: number): void {
  assert.equal(results.length, expected)
  for (const result of results) {
    assert.deepEqual(result, { status: 200, length: BODY.length, digest: DIGEST })
  }
}

const cacheable = { 'cache-control': 'max-age=60' }

describe('miss coalescing across processes', () => {
  it('8 processes x 50 requests for one cold URL on a Redis Cluster: the origin sees one request', async () => {
    const { originRequests, results } = await run({ connection: { cluster: cluster.startupNodes }, hosts: 8, requests: 50, headers: cacheable })
    assert.equal(originRequests, 1)
    assertAllFull(results, 400)
  })

  it('on a Redis Cluster, with the leaseholder killed mid-fetch, the origin sees at most 2 and every other client gets the full body', async () => {
    const { originRequests, results, killed } = await run({ connection: { cluster: cluster.startupNodes }, hosts: 8, requests: 50, headers: cacheable, killLeaseholder: true })
    assert.equal(killed, 1)
    assert.ok(originRequests <= 2, `the origin saw ${originRequests} requests`)
    assertAllFull(results, 350)
  })

  it('works on a single Redis server too', async () => {
    const { originRequests, results } = await run({ connection: { url: redis.url }, hosts: 4, requests: 25, headers: cacheable })
    assert.equal(originRequests, 1)
    assertAllFull(results, 100)
  })

  it('frees the waiters when the response is not storable: each fetches its own, none waits out its timeout', async () => {
    // The waiters' timeout is a minute: finishing at all means they were told the fetch stored nothing.
    const { originRequests, results } = await run({ connection: { cluster: cluster.startupNodes }, hosts: 4, requests: 10, headers: { 'cache-control': 'no-store' } })
    assert.ok(originRequests > 1, `the origin saw ${originRequests} requests`)
    assertAllFull(results, 40)
  })
})
