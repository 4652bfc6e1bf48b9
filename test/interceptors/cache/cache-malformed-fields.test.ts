import { it } from 'node:test'
import assert from 'node:assert/strict'
import { setupCache, freezeDate, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'

describeWithEachStore('interceptors.cache(): malformed Age and Cache-Control', (makeStore) => {
  for (const type of ['shared', 'private'] as const) {
    it(`treats a response whose Age lists "7200, 0" as 7200 seconds old, so max-age=3600 is stale (${type})`, async (t) => {
      freezeDate(t)
      const store = makeStore(t)
      const { send, count } = await setupCache(t, (_req, res) => {
        stamp(res, 'max-age=3600')
        res.setHeader('age', '7200, 0')
        res.setHeader('etag', '"a"')
        res.end('aged')
      }, { store, type })
      await send()
      await store.settled()
      const second = await send()
      assert.equal(second.body, 'aged')
      assert.equal(count(), 2)
      assert.match(String(second.headers['cache-status']), /fwd=stale/)
    })

    it(`does not reuse a response on a max-age written with spaces around "=" (${type})`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, (_req, res) => {
        stamp(res, 'max-age = 3600')
        res.setHeader('etag', '"a"')
        res.end('spaced')
      }, { store, type })
      await send()
      await store.settled()
      await send()
      assert.equal(count(), 2)
    })
  }

  // RFC 9111 §5.1: an Age that is not a non-negative integer is ignored; parameters after the
  // first value are not part of it.
  for (const [age, atLeast] of [['abc', 0], ['-7200', 0], ['7200.0', 0], ['10;src=edge', 10]] as const) {
    it(`serves a response with "Age: ${age}" fresh, as ${atLeast} seconds old or more`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, (_req, res) => {
        stamp(res, 'max-age=3600')
        res.setHeader('age', age)
        res.end('young')
      }, { store })
      await send()
      await store.settled()
      const hit = await send()
      assert.equal(hit.body, 'young')
      assert.equal(count(), 1)
      assert.ok(Number(hit.headers.age) >= atLeast && Number(hit.headers.age) < 3600)
    })
  }
})
