import { it } from 'node:test'
import assert from 'node:assert/strict'
import { setupCache, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'

describeWithEachStore('interceptors.cache(): Set-Cookie and other fields kept out of the store', (makeStore) => {
  it('stores a response that sets a cookie in a private cache, cookie included', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=600')
      res.setHeader('set-cookie', ['session=abc; HttpOnly', 'theme=dark'])
      res.end('mine')
    }, { store, type: 'private' })
    await send()
    await store.settled()
    const hit = await send()
    assert.deepEqual(hit.headers['set-cookie'], ['session=abc; HttpOnly', 'theme=dark'])
    assert.match(String(hit.headers['cache-status']), /hit/)
    assert.equal(count(), 1)
  })

  it('does not store a response that sets a cookie in a shared cache', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, (_req, res) => {
      stamp(res, 'public, max-age=600')
      res.setHeader('set-cookie', 'session=abc')
      res.end('per user')
    }, { store })
    const first = await send()
    assert.equal(first.headers['set-cookie'], 'session=abc')
    assert.doesNotMatch(String(first.headers['cache-status']), /stored/)
    await store.settled()
    await send()
    assert.equal(count(), 2)
  })

  for (const directive of ['private="set-cookie"', 'no-cache="set-cookie"']) {
    it(`stores the response without its cookie in a shared cache when ${directive} withholds it`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, (_req, res) => {
        stamp(res, `max-age=600, ${directive}`)
        res.setHeader('set-cookie', 'session=abc')
        res.end('shared part')
      }, { store })
      await send()
      await store.settled()
      const hit = await send()
      assert.equal(hit.body, 'shared part')
      assert.equal(hit.headers['set-cookie'], undefined)
      assert.equal(count(), 1)
    })
  }

  it('never serves a stored response holding a cookie from a shared cache, even one a private cache wrote', async (t) => {
    const store = makeStore(t)
    const handler = (_req: unknown, res: import('node:http').ServerResponse): void => {
      stamp(res, 'max-age=600')
      res.setHeader('set-cookie', 'session=abc')
      res.end('x')
    }
    const writer = await setupCache(t, handler, { store, type: 'private' })
    await writer.send()
    await store.settled()
    const reader = await setupCache(t, handler, { store })
    const answer = await reader.send()
    assert.match(String(answer.headers['cache-status']), /fwd=miss/)
    assert.equal(reader.count(), 1)
  })

  it('keeps hop-by-hop fields, fields Connection names and Proxy-Authenticate out of the stored response', async (t) => {
    const store = makeStore(t)
    const { send } = await setupCache(t, (_req, res) => {
      stamp(res, 'max-age=600')
      res.setHeader('connection', 'x-hop')
      res.setHeader('x-hop', 'one hop')
      res.setHeader('proxy-authenticate', 'Basic realm="p"')
      res.setHeader('keep-alive', 'timeout=5')
      res.setHeader('x-end-to-end', 'kept')
      res.end('x')
    }, { store, type: 'private' })
    await send()
    await store.settled()
    const hit = await send()
    assert.match(String(hit.headers['cache-status']), /hit/)
    assert.equal(hit.headers['x-hop'], undefined)
    assert.equal(hit.headers['proxy-authenticate'], undefined)
    assert.equal(hit.headers['keep-alive'], undefined)
    assert.equal(hit.headers['x-end-to-end'], 'kept')
  })
})
