import { it } from 'node:test'
import assert from 'node:assert/strict'
import { fetch } from '../../../src/index.js'
import { setupCache, freezeDate, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'

const STRICT_CASES = [
  { directives: 'max-age=10, must-revalidate', detail: 'must-revalidate', types: ['shared', 'private'] },
  { directives: 'max-age=10, proxy-revalidate', detail: 'proxy-revalidate', types: ['shared'] },
  { directives: 's-maxage=10', detail: 's-maxage', types: ['shared'] },
  { directives: 'no-cache', detail: 'no-cache', types: ['shared', 'private'] }
] as const

describeWithEachStore('interceptors.cache(): a stale response that must be revalidated, with the origin unreachable', (makeStore) => {
  for (const { directives, detail, types } of STRICT_CASES) {
    for (const type of types) {
      it(`answers 504 with cache-status detail=${detail} instead of serving "${directives}" stale (${type})`, async (t) => {
        freezeDate(t)
        const store = makeStore(t)
        const { send, server, count } = await setupCache(t, (_req, res) => {
          stamp(res, directives)
          res.setHeader('etag', '"x"')
          res.end('stored body')
        }, { store, type })
        await send()
        await store.settled()
        await server.close()
        t.mock.timers.tick(20_000)
        const answer = await send()
        assert.equal(answer.status, 504)
        assert.equal(answer.body, '')
        assert.match(String(answer.headers['cache-status']), new RegExp(`^conduit; fwd=stale; ttl=-?\\d+; detail=${detail}$`))
        assert.equal(count(), 1)
      })
    }
  }

  it('gives fetch users the 504, not a TypeError', async (t) => {
    freezeDate(t)
    const store = makeStore(t)
    const { send, server, dispatcher } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, must-revalidate')
      res.setHeader('etag', '"x"')
      res.end('stored body')
    }, { store })
    await send()
    await store.settled()
    const url = `${server.origin}/`
    await server.close()
    t.mock.timers.tick(20_000)
    const response = await fetch(url, { dispatcher })
    assert.equal(response.status, 504)
    assert.equal(response.statusText, 'Gateway Timeout')
    assert.match(String(response.headers.get('cache-status')), /detail=must-revalidate/)
    assert.equal(await response.text(), '')
  })

  it('passes the connection error on for a stale response that may be served stale but has no stale-if-error', async (t) => {
    freezeDate(t)
    const store = makeStore(t)
    const { send, server } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=10, proxy-revalidate')
      res.setHeader('etag', '"x"')
      res.end('stored body')
    }, { store, type: 'private' })
    await send()
    await store.settled()
    await server.close()
    t.mock.timers.tick(20_000)
    await assert.rejects(send(), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ECONNREFUSED')
      return true
    })
  })
})
