import { it } from 'node:test'
import assert from 'node:assert/strict'
import { setupCache, freezeDate, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'

const LAST_MODIFIED = 'Mon, 02 Jan 2023 10:00:00 GMT'

describeWithEachStore('interceptors.cache(): the request\'s own preconditions', (makeStore) => {
  async function setup (t: Parameters<typeof makeStore>[0], type: 'shared' | 'private' = 'shared') {
    const store = makeStore(t)
    const setup = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=600')
      res.setHeader('etag', 'W/"v1"')
      res.setHeader('last-modified', LAST_MODIFIED)
      res.setHeader('content-type', 'text/plain')
      res.setHeader('x-extra', 'kept out of the 304')
      res.end('the body')
    }, { store, type })
    await setup.send()
    await store.settled()
    return setup
  }

  for (const type of ['shared', 'private'] as const) {
    it(`answers a matching If-None-Match with a 304 from a fresh stored response, without the origin (${type})`, async (t) => {
      const { send, count } = await setup(t, type)
      const answer = await send('/', { headers: { 'if-none-match': '"other", "v1"' } })
      assert.equal(answer.status, 304)
      assert.equal(answer.body, '')
      assert.equal(answer.headers.etag, 'W/"v1"')
      assert.equal(answer.headers['cache-control'], 'max-age=600')
      assert.equal(answer.headers['x-extra'], undefined)
      assert.match(String(answer.headers['cache-status']), /^conduit; hit; ttl=\d+$/)
      assert.equal(count(), 1)
    })
  }

  it('compares entity tags weakly: a strong tag in the request matches a weak stored one', async (t) => {
    const { send, count } = await setup(t)
    assert.equal((await send('/', { headers: { 'if-none-match': '"v1"' } })).status, 304)
    assert.equal((await send('/', { headers: { 'if-none-match': '*' } })).status, 304)
    assert.equal(count(), 1)
  })

  it('serves the full stored response when If-None-Match names no stored tag', async (t) => {
    const { send, count } = await setup(t)
    const answer = await send('/', { headers: { 'if-none-match': '"v0", W/"v2"' } })
    assert.equal(answer.status, 200)
    assert.equal(answer.body, 'the body')
    assert.equal(answer.headers['x-extra'], 'kept out of the 304')
    assert.equal(count(), 1)
  })

  it('answers If-Modified-Since no earlier than Last-Modified with a 304, and an earlier one with the full response', async (t) => {
    const { send, count } = await setup(t)
    const same = await send('/', { headers: { 'if-modified-since': LAST_MODIFIED } })
    assert.equal(same.status, 304)
    assert.equal(same.headers.etag, 'W/"v1"')
    const earlier = await send('/', { headers: { 'if-modified-since': 'Sun, 01 Jan 2023 10:00:00 GMT' } })
    assert.equal(earlier.status, 200)
    assert.equal(earlier.body, 'the body')
    const invalid = await send('/', { headers: { 'if-modified-since': 'yesterday' } })
    assert.equal(invalid.status, 200)
    assert.equal(count(), 1)
  })

  it('lets If-None-Match take precedence over If-Modified-Since', async (t) => {
    const { send, count } = await setup(t)
    const answer = await send('/', { headers: { 'if-none-match': '"nope"', 'if-modified-since': 'Tue, 01 Jan 2030 00:00:00 GMT' } })
    assert.equal(answer.status, 200)
    assert.equal(answer.body, 'the body')
    assert.equal(count(), 1)
  })

  it('sends the request to the origin unchanged when the stored response is stale', async (t) => {
    freezeDate(t)
    const { send, count, server } = await setup(t)
    t.mock.timers.tick(601_000)
    const answer = await send('/', { headers: { 'if-none-match': '"mine"' } })
    assert.equal(answer.status, 200)
    assert.equal(server.requests[1].headers['if-none-match'], '"mine"')
    assert.equal(count(), 2)
  })

  it('answers a conditional HEAD from the stored GET response with a 304 when methods lists HEAD', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=600')
      res.setHeader('etag', '"h"')
      res.end('body')
    }, { store, methods: ['GET', 'HEAD'] })
    await send()
    await store.settled()
    const head = await send('/', { method: 'HEAD', headers: { 'if-none-match': '"h"' } })
    assert.equal(head.status, 304)
    assert.equal(count(), 1)
  })

  it('leaves If-Match and If-Unmodified-Since to the origin', async (t) => {
    const { send, count } = await setup(t)
    await send('/', { headers: { 'if-match': 'W/"v1"' } })
    await send('/', { headers: { 'if-unmodified-since': LAST_MODIFIED } })
    assert.equal(count(), 3)
  })
})
