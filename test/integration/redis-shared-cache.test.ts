import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startRedisServer } from '../helpers/redis-server.js'
import type { TestRedis } from '../helpers/redis-server.js'
import type http from 'node:http'

const childScript = fileURLToPath(new URL('./redis-shared-cache-child.js', import.meta.url))

interface Reply { id: number, result?: unknown, error?: string }
interface Response { statusCode: number, body: string, cacheStatus?: string }

/** A forked process with its own Agent and RedisCacheStore, driven over IPC. */
class Host {
  #child: ChildProcess
  #next = 1
  #pending = new Map<number, { resolve: (value: unknown) => void, reject: (err: Error) => void }>()
  ready: Promise<unknown>

  constructor (redisUrl: string, keyPrefix: string) {
    this.#child = fork(childScript, [redisUrl, keyPrefix], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.ready = new Promise((resolve, reject) => this.#pending.set(0, { resolve, reject }))
    this.#child.on('message', (reply: Reply) => {
      const waiter = this.#pending.get(reply.id)
      this.#pending.delete(reply.id)
      if (reply.error !== undefined) waiter?.reject(new Error(reply.error))
      else waiter?.resolve(reply.result)
    })
    this.#child.on('exit', (code) => {
      for (const waiter of this.#pending.values()) waiter.reject(new Error(`host exited with code ${code}`))
      this.#pending.clear()
    })
  }

  call<T> (op: string, fields: Record<string, unknown> = {}): Promise<T> {
    const id = this.#next++
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      this.#child.send({ id, op, ...fields })
    })
  }

  async close (): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()))
    await this.call('close').catch(() => this.#child.kill())
    await exited
  }
}

async function eventually (what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

let redis: TestRedis
let origin: TestServer<http.Server>
let a: Host
let b: Host
const served = new Map<string, number>()

function originCount (path: string): number {
  return origin.requests.filter((request) => request.url === path).length
}

before(async () => {
  redis = await startRedisServer()
  origin = await startHttpServer((req, res) => {
    const n = (served.get(req.url ?? '') ?? 0) + 1
    served.set(req.url ?? '', n)
    const tags = new URL(req.url ?? '/', 'http://x').searchParams.get('tags')
    res.writeHead(200, { 'cache-control': 'public, max-age=600', 'content-type': 'text/plain', ...(tags === null ? {} : { 'cache-tags': tags }) })
    res.end(`${req.url} #${n}`)
  })
  const prefix = `shared:${process.pid}:`
  a = new Host(redis.url, prefix)
  b = new Host(redis.url, prefix)
  await Promise.all([a.ready, b.ready])
  await eventually('both memory tiers are active', async () => (await a.call<boolean>('tierActive')) && (await b.call<boolean>('tierActive')))
})

after(async () => {
  await Promise.all([a?.close(), b?.close()])
  await origin?.close()
  await redis?.close()
})

/** Has `host` fetch `path` and waits until the response is in Redis. */
async function fetchAndStore (host: Host, path: string): Promise<Response> {
  const response = await host.call<Response>('request', { origin: origin.origin, path })
  assert.equal(response.statusCode, 200)
  await eventually(`${path} is stored`, () => host.call<boolean>('stored', { origin: origin.origin, path }))
  return response
}

describe('one Redis cache shared by two processes', () => {
  it('serves a response cached by one process as a hit in the other, without asking the origin again', async () => {
    const first = await fetchAndStore(a, '/shared')
    const second = await b.call<Response>('request', { origin: origin.origin, path: '/shared' })
    assert.equal(second.statusCode, 200)
    assert.equal(second.body, first.body)
    assert.equal(originCount('/shared'), 1)
  })

  it('a delete in one process reaches the memory tier of the other', async () => {
    await fetchAndStore(a, '/deleted')
    await b.call<Response>('request', { origin: origin.origin, path: '/deleted' })
    await eventually('B serves /deleted from memory', () => b.call<boolean>('inMemory', { origin: origin.origin, path: '/deleted' }))
    assert.equal(originCount('/deleted'), 1)
    await a.call('delete', { origin: origin.origin, path: '/deleted' })
    await eventually('B no longer holds /deleted', async () => !(await b.call<boolean>('stored', { origin: origin.origin, path: '/deleted' })))
    const again = await b.call<Response>('request', { origin: origin.origin, path: '/deleted' })
    assert.equal(again.body, '/deleted #2')
    assert.equal(originCount('/deleted'), 2)
  })

  it('a tag invalidation in one process reaches the memory tier of the other', async () => {
    const path = '/tagged?tags=catalog,product-7'
    await fetchAndStore(a, path)
    await b.call<Response>('request', { origin: origin.origin, path })
    await eventually('B serves the tagged response from memory', () => b.call<boolean>('inMemory', { origin: origin.origin, path }))
    assert.equal(await a.call<boolean>('deleteTags', { tags: ['product-7'] }), true)
    await eventually('B no longer holds the tagged response', async () => !(await b.call<boolean>('stored', { origin: origin.origin, path })))
    const again = await b.call<Response>('request', { origin: origin.origin, path })
    assert.equal(again.statusCode, 200)
    assert.equal(originCount(path), 2)
  })

  it('keeps every request working while redis-server is killed, reports it, and shares hits again after a restart', async () => {
    await fetchAndStore(a, '/outage')
    await redis.stop()
    for (let i = 0; i < 10; i++) {
      for (const host of [a, b]) {
        const response = await host.call<Response>('request', { origin: origin.origin, path: `/outage?during=${i}` })
        assert.equal(response.statusCode, 200)
      }
    }
    await eventually('both processes reported the outage', async () => (await a.call<number>('errors')) > 0 && (await b.call<number>('errors')) > 0)

    await redis.start()
    await eventually('A stores responses again', async () => {
      await a.call<Response>('request', { origin: origin.origin, path: '/after-restart' })
      return a.call<boolean>('stored', { origin: origin.origin, path: '/after-restart' })
    })
    // B reconnects on its own schedule (its client backs off while Redis was down).
    await eventually('B reaches Redis again', async () => b.call<boolean>('stored', { origin: origin.origin, path: '/after-restart' }))
    const before = originCount('/after-restart')
    const response = await b.call<Response>('request', { origin: origin.origin, path: '/after-restart' })
    assert.equal(response.statusCode, 200)
    assert.equal(originCount('/after-restart'), before)
  })
})
