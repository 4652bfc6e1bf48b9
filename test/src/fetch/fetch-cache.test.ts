import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../../src/dispatcher/agent.js'
import type { ComposedDispatcher } from '../../../src/dispatcher/dispatcher.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { cache } from '../../../interceptors/cache/index.js'
import { MemoryCacheStore } from '../../../stores/memory-cache-store.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

describe('fetch init.cache with a cache interceptor', () => {
  let server: TestServer
  let agent: Agent
  let cached: ComposedDispatcher
  let hits: Record<string, number>

  beforeEach(async () => {
    hits = {}
    server = await startHttpServer((req, res) => {
      const path = req.url ?? '/'
      hits[path] = (hits[path] ?? 0) + 1
      if (path === '/fresh') {
        res.setHeader('cache-control', 'max-age=600')
        res.setHeader('etag', '"f1"')
        if (req.headers['if-none-match'] === '"f1"') {
          res.statusCode = 304
          res.end()
          return
        }
        res.end(`fresh ${hits[path]}`)
      } else if (path === '/stale') {
        res.setHeader('cache-control', 'max-age=0')
        res.setHeader('etag', '"v1"')
        if (req.headers['if-none-match'] === '"v1"') {
          res.statusCode = 304
          res.end()
          return
        }
        res.end(`stale ${hits[path]}`)
      } else {
        res.end('other')
      }
    })
    agent = new Agent()
    cached = agent.compose(cache({ store: new MemoryCacheStore(), type: 'private' }))
  })
  afterEach(async () => {
    await agent.close()
    await server.close()
  })

  const get = async (path: string, init: object = {}): Promise<{ status: number, text: string }> => {
    const response = await fetch(`${server.origin}${path}`, { dispatcher: cached, ...init })
    return { status: response.status, text: await response.text() }
  }

  it("'default' serves a fresh stored response without the network", async () => {
    assert.equal((await get('/fresh')).text, 'fresh 1')
    assert.equal((await get('/fresh')).text, 'fresh 1')
    assert.equal(hits['/fresh'], 1)
  })

  it("'no-store' bypasses the cache in both directions", async () => {
    assert.equal((await get('/fresh', { cache: 'no-store' })).text, 'fresh 1')
    assert.equal((await get('/fresh')).text, 'fresh 2')
    assert.equal((await get('/fresh', { cache: 'no-store' })).text, 'fresh 3')
    assert.equal(hits['/fresh'], 3)
  })

  it("'reload' goes to the network and stores the new response", async () => {
    await get('/fresh')
    assert.equal((await get('/fresh', { cache: 'reload' })).text, 'fresh 2')
    assert.equal((await get('/fresh')).text, 'fresh 2')
    assert.equal(hits['/fresh'], 2)
  })

  it("'no-cache' revalidates a fresh stored response with the origin", async () => {
    await get('/fresh')
    const revalidated = await get('/fresh', { cache: 'no-cache' })
    assert.equal(revalidated.status, 200)
    assert.equal(revalidated.text, 'fresh 1')
    assert.equal(hits['/fresh'], 2)
    assert.equal(server.requests.at(-1)!.headers['if-none-match'], '"f1"')
  })

  it("'force-cache' uses a stale stored response without the network", async () => {
    await get('/stale')
    assert.equal((await get('/stale', { cache: 'force-cache' })).text, 'stale 1')
    assert.equal(hits['/stale'], 1)
  })

  it("'only-if-cached' answers 504 on a miss and the stored response on a hit", async () => {
    const miss = await get('/stale', { cache: 'only-if-cached', mode: 'same-origin' })
    assert.equal(miss.status, 504)
    assert.equal(hits['/stale'], undefined)
    await get('/stale')
    assert.equal((await get('/stale', { cache: 'only-if-cached', mode: 'same-origin' })).text, 'stale 1')
    assert.equal(hits['/stale'], 1)
  })

  it('sends the standard request headers for each mode', async () => {
    await get('/other', { cache: 'no-store' })
    assert.equal(server.requests.at(-1)!.headers['cache-control'], 'no-cache')
    assert.equal(server.requests.at(-1)!.headers.pragma, 'no-cache')
    await get('/other', { cache: 'no-cache' })
    assert.equal(server.requests.at(-1)!.headers['cache-control'], 'max-age=0')
  })

  it('accepts every mode harmlessly on a dispatcher without a cache', async () => {
    for (const mode of ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached']) {
      const response = await fetch(`${server.origin}/fresh`, { cache: mode as never, mode: 'same-origin', dispatcher: agent })
      assert.equal(response.status, 200, mode)
      await response.text()
    }
  })
})
