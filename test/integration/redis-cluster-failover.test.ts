import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Cluster } from 'ioredis'
import { keyLayout, urlKey } from '../../stores/redis/key-layout.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startRedisCluster } from '../helpers/redis-cluster.js'
import type { TestRedisCluster } from '../helpers/redis-cluster.js'
import { checksummedBody } from './helpers/checksummed-body.js'
import type http from 'node:http'

const childScript = fileURLToPath(new URL('./redis-cluster-failover-child.js', import.meta.url))
const HOSTS = 4
const URLS = 200
const TRAFFIC_MS = 60_000
const RESHARD_AT_MS = 15_000
const KILL_AT_MS = 30_000
const RESHARDED_SLOTS = 300

interface Report { total: number, failed: number, failures: string[], wrong: number, hits: Array<[number, string]> }

let cluster: TestRedisCluster
let origin: TestServer<http.Server>

before(async () => {
  cluster = await startRedisCluster(1000)
  origin = await startHttpServer((req, res) => {
    res.writeHead(200, { 'cache-control': 'max-age=5', 'content-type': 'text/plain' })
    res.end(checksummedBody(req.url ?? ''))
  })
})

after(async () => {
  await origin?.close()
  await cluster?.close()
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Node id and served slot ranges of a primary, from its own CLUSTER NODES line. */
async function describePrimary (port: number): Promise<{ id: string, slots: Array<[number, number]> }> {
  const line = (await cluster.cli(port, 'CLUSTER', 'NODES')).split('\n').find((l) => l.includes('myself')) ?? ''
  const fields = line.split(' ')
  const slots = fields.slice(8).filter((f) => /^\d+(-\d+)?$/.test(f)).map((f) => {
    const [low, high = low] = f.split('-')
    return [Number(low), Number(high)] as [number, number]
  })
  return { id: fields[0] ?? '', slots }
}

describe('RedisCacheStore on a Redis Cluster under failover and resharding', () => {
  it('serves 60 s of traffic from 4 processes through a reshard and a killed primary: 0 failed requests, 0 wrong bodies', async () => {
    const prefix = `failover:${process.pid}:`
    const children: ChildProcess[] = []
    const reports: Report[] = []
    try {
      const ready: Array<Promise<void>> = []
      const exits: Array<Promise<void>> = []
      for (let i = 0; i < HOSTS; i++) {
        const child = fork(childScript, [JSON.stringify(cluster.startupNodes), prefix, origin.origin, String(URLS), String(TRAFFIC_MS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
        children.push(child)
        ready.push(new Promise((resolve) => child.on('message', (m) => { if (m === 'ready') resolve() })))
        exits.push(new Promise((resolve) => child.once('exit', () => resolve())))
        child.on('message', (m: Report | string) => { if (typeof m === 'object') reports.push(m) })
      }
      await Promise.all(ready)
      const start = Date.now()
      for (const child of children) child.send('go')

      const [a, b, c] = await cluster.primaryPorts() as [number, number, number]
      await sleep(RESHARD_AT_MS)
      const from = await describePrimary(a)
      const to = await describePrimary(b)
      await cluster.cliTool('--cluster', 'reshard', `127.0.0.1:${a}`, '--cluster-from', from.id, '--cluster-to', to.id,
        '--cluster-slots', String(RESHARDED_SLOTS), '--cluster-yes')
      const moved = (await describePrimary(b)).slots.reduce((n, [low, high]) => n + high - low + 1, 0) -
        to.slots.reduce((n, [low, high]) => n + high - low + 1, 0)
      assert.equal(moved, RESHARDED_SLOTS)

      await sleep(Math.max(0, start + KILL_AT_MS - Date.now()))
      const killedSlots = (await describePrimary(c)).slots
      await cluster.kill(c)
      const killedAt = Date.now()
      await cluster.waitHealthy()
      await Promise.all(exits)

      assert.equal(reports.length, HOSTS)
      const total = reports.reduce((n, r) => n + r.total, 0)
      const failed = reports.reduce((n, r) => n + r.failed, 0)
      const wrong = reports.reduce((n, r) => n + r.wrong, 0)
      assert.ok(total > 0)
      assert.equal(failed, 0, `failed requests, e.g. ${reports.flatMap((r) => r.failures).slice(0, 5).join('; ')}`)
      assert.equal(wrong, 0)

      // Hits on URLs the killed primary served, once its replica took over.
      const admin = new Cluster(cluster.startupNodes.filter((n) => n.port !== c))
      const layout = keyLayout(prefix, true)
      const onKilled = new Set<string>()
      try {
        for (let i = 0; i < URLS; i++) {
          const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', urlKey(layout, origin.origin, `/item/${i}`)))
          if (killedSlots.some(([low, high]) => slot >= low && slot <= high)) onKilled.add(`/item/${i}`)
        }
      } finally {
        admin.disconnect()
      }
      const later = reports.flatMap((r) => r.hits).filter(([at, path]) => at >= killedAt && onKilled.has(path)).map(([at]) => at)
      assert.ok(later.length > 0, 'no hit on the failed-over slots after the failover')
      const hits = reports.reduce((n, r) => n + r.hits.length, 0)
      console.log(`failover: ${total} requests, ${hits} hits; first hit on the killed primary's slots ${Math.min(...later) - killedAt} ms after the SIGKILL`)
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  })
})
