import { it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { setupCache, stamp, until } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'
import type { SettlingStore } from './cache-store-matrix.js'

const CONCURRENT = 50

/** A server that holds every response until `release()`, so all requests are in flight together. */
function heldOrigin (cacheControl: string): { handler: http.RequestListener, release: () => void } {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => { release = resolve })
  return {
    release,
    handler: (req, res) => {
      void released.then(() => {
        stamp(res, cacheControl)
        res.setHeader('content-type', 'text/plain')
        res.end(`body for ${req.url}`)
      })
    }
  }
}

async function allLookedUp (store: SettlingStore, count: number): Promise<void> {
  await until(() => store.answeredGets >= count)
}

describeWithEachStore('interceptors.cache(): collapsing concurrent misses', (makeStore) => {
  for (const type of ['shared', 'private'] as const) {
    it(`sends ${CONCURRENT} identical concurrent requests to the origin once when the response is storable (${type})`, async (t) => {
      const store = makeStore(t)
      const origin = heldOrigin('max-age=600')
      const { send, count } = await setupCache(t, origin.handler, { store, type })
      const answers = Array.from({ length: CONCURRENT }, () => send('/popular'))
      await allLookedUp(store, CONCURRENT)
      await until(() => count() >= 1)
      origin.release()
      const responses = await Promise.all(answers)
      assert.equal(count(), 1)
      for (const response of responses) {
        assert.equal(response.status, 200)
        assert.equal(response.body, 'body for /popular')
      }
      const statuses = responses.map((r) => String(r.headers['cache-status']))
      assert.equal(statuses.filter((s) => s.includes('fwd=miss')).length, 1)
      assert.equal(statuses.filter((s) => /; hit; /.test(s)).length, CONCURRENT - 1)
    })
  }

  it('lets every request go to the origin when the response turns out not storable', async (t) => {
    const store = makeStore(t)
    const origin = heldOrigin('no-store')
    const { send, count } = await setupCache(t, origin.handler, { store })
    const answers = Array.from({ length: 10 }, () => send('/personal'))
    await allLookedUp(store, 10)
    await until(() => count() >= 1)
    origin.release()
    const responses = await Promise.all(answers)
    assert.equal(count(), 10)
    for (const response of responses) assert.equal(response.body, 'body for /personal')
  })

  it('does not collapse requests for different URLs', async (t) => {
    const store = makeStore(t)
    const origin = heldOrigin('max-age=600')
    const { send, count } = await setupCache(t, origin.handler, { store })
    const answers = ['/a', '/b', '/a', '/b'].map((path) => send(path))
    await allLookedUp(store, 4)
    await until(() => count() >= 2)
    origin.release()
    const bodies = (await Promise.all(answers)).map((r) => r.body)
    assert.deepEqual(bodies, ['body for /a', 'body for /b', 'body for /a', 'body for /b'])
    assert.equal(count(), 2)
  })

  it('fails a waiting request that is aborted, without disturbing the others', async (t) => {
    const store = makeStore(t)
    const origin = heldOrigin('max-age=600')
    const { send, count } = await setupCache(t, origin.handler, { store })
    const leader = send('/slow')
    const controller = new AbortController()
    const follower = send('/slow', { signal: controller.signal })
    await allLookedUp(store, 2)
    controller.abort()
    await assert.rejects(follower, (err: Error & { name: string }) => {
      assert.equal(err.name, 'AbortError')
      return true
    })
    origin.release()
    assert.equal((await leader).body, 'body for /slow')
    assert.equal(count(), 1)
  })
})
