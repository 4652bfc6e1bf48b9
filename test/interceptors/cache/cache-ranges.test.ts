import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { setupCache, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'
import { AsyncTestStore } from '../../stores/async-test-store.js'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz'

/** An origin that answers single byte ranges itself, as a range-capable server does. */
function rangeOrigin (state: { etag: string, body: string, ignoreRange?: boolean }): http.RequestListener {
  return (req, res) => {
    stamp(res, 'max-age=600')
    res.setHeader('etag', state.etag)
    res.setHeader('content-type', 'text/plain')
    const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '')
    if (match === null || state.ignoreRange === true) {
      res.end(state.body)
      return
    }
    const start = Number(match[1])
    const end = match[2] === '' ? state.body.length - 1 : Math.min(Number(match[2]), state.body.length - 1)
    res.statusCode = 206
    res.setHeader('content-range', `bytes ${start}-${end}/${state.body.length}`)
    res.end(state.body.slice(start, end + 1))
  }
}

describeWithEachStore('interceptors.cache(): Range requests and partial content', (makeStore) => {
  async function withStoredAlphabet (t: Parameters<typeof makeStore>[0], type: 'shared' | 'private' = 'shared', etag = '"alpha"') {
    const store = makeStore(t)
    const setup = await setupCache(t, rangeOrigin({ etag, body: ALPHABET }), { store, type })
    await setup.send()
    await store.settled()
    return setup
  }

  for (const type of ['shared', 'private'] as const) {
    it(`answers a single range from the complete stored response with a 206 (${type})`, async (t) => {
      const { send, count } = await withStoredAlphabet(t, type)
      const answer = await send('/', { headers: { range: 'bytes=2-5' } })
      assert.equal(answer.status, 206)
      assert.equal(answer.body, 'cdef')
      assert.equal(answer.headers['content-range'], 'bytes 2-5/26')
      assert.equal(answer.headers['content-length'], '4')
      assert.equal(answer.headers['content-type'], 'text/plain')
      assert.match(String(answer.headers['cache-status']), /^conduit; hit; ttl=\d+$/)
      assert.equal(count(), 1)
    })
  }

  it('answers a suffix range and an open-ended range', async (t) => {
    const { send, count } = await withStoredAlphabet(t)
    const suffix = await send('/', { headers: { range: 'bytes=-3' } })
    assert.equal(suffix.body, 'xyz')
    assert.equal(suffix.headers['content-range'], 'bytes 23-25/26')
    const open = await send('/', { headers: { range: 'bytes=20-' } })
    assert.equal(open.body, 'uvwxyz')
    const clipped = await send('/', { headers: { range: 'bytes=24-100' } })
    assert.equal(clipped.body, 'yz')
    assert.equal(count(), 1)
  })

  it('answers several ranges with multipart/byteranges', async (t) => {
    const { send, count } = await withStoredAlphabet(t)
    const answer = await send('/', { headers: { range: 'bytes=0-1, 24-' } })
    assert.equal(answer.status, 206)
    const type = String(answer.headers['content-type'])
    const boundary = /^multipart\/byteranges; boundary=(.+)$/.exec(type)?.[1]
    assert.ok(boundary !== undefined, type)
    assert.equal(answer.headers['content-length'], String(Buffer.byteLength(answer.body)))
    assert.equal(answer.body,
      `--${boundary}\r\ncontent-type: text/plain\r\ncontent-range: bytes 0-1/26\r\n\r\nab\r\n` +
      `--${boundary}\r\ncontent-type: text/plain\r\ncontent-range: bytes 24-25/26\r\n\r\nyz\r\n` +
      `--${boundary}--\r\n`)
    assert.equal(count(), 1)
  })

  it('answers 416 with the complete length when no range is satisfiable', async (t) => {
    const { send, count } = await withStoredAlphabet(t)
    const answer = await send('/', { headers: { range: 'bytes=26-30' } })
    assert.equal(answer.status, 416)
    assert.equal(answer.headers['content-range'], 'bytes */26')
    assert.equal(answer.body, '')
    assert.equal(count(), 1)
  })

  it('serves the full stored response for a Range it cannot read', async (t) => {
    const { send, count } = await withStoredAlphabet(t)
    for (const range of ['bytes=5-2', 'items=0-1', 'bytes=x-y']) {
      const answer = await send('/', { headers: { range } })
      assert.equal(answer.status, 200, range)
      assert.equal(answer.body, ALPHABET)
    }
    assert.equal(count(), 1)
  })

  it('applies the range only when If-Range names the stored response by its strong ETag', async (t) => {
    const { send, count } = await withStoredAlphabet(t)
    const matching = await send('/', { headers: { range: 'bytes=0-2', 'if-range': '"alpha"' } })
    assert.equal(matching.status, 206)
    assert.equal(matching.body, 'abc')
    const other = await send('/', { headers: { range: 'bytes=0-2', 'if-range': '"beta"' } })
    assert.equal(other.status, 200)
    assert.equal(other.body, ALPHABET)
    assert.equal(count(), 1)
  })

  it('never applies If-Range with a weak ETag', async (t) => {
    const { send } = await withStoredAlphabet(t, 'shared', 'W/"alpha"')
    const answer = await send('/', { headers: { range: 'bytes=0-2', 'if-range': 'W/"alpha"' } })
    assert.equal(answer.status, 200)
    assert.equal(answer.body, ALPHABET)
  })

  for (const type of ['shared', 'private'] as const) {
    it(`stores 206 parts and combines them into a complete response once they cover it (${type})`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, rangeOrigin({ etag: '"alpha"', body: ALPHABET }), { store, type })
      const first = await send('/', { headers: { range: 'bytes=0-9' } })
      assert.equal(first.status, 206)
      assert.equal(first.body, 'abcdefghij')
      assert.match(String(first.headers['cache-status']), /fwd=miss; fwd-status=206; stored/)
      const second = await send('/', { headers: { range: 'bytes=8-' } })
      assert.equal(second.body, 'ijklmnopqrstuvwxyz')
      await store.settled()
      const whole = await send()
      assert.equal(whole.status, 200)
      assert.equal(whole.body, ALPHABET)
      assert.equal(whole.headers['content-length'], '26')
      assert.equal(whole.headers['content-range'], undefined)
      assert.match(String(whole.headers['cache-status']), /hit/)
      const range = await send('/', { headers: { range: 'bytes=12-13' } })
      assert.equal(range.body, 'mn')
      assert.equal(count(), 2)
    })
  }

  it('answers a range the stored partial response covers, and sends on one it does not', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, rangeOrigin({ etag: '"alpha"', body: ALPHABET }), { store })
    await send('/', { headers: { range: 'bytes=0-9' } })
    await store.settled()
    const inside = await send('/', { headers: { range: 'bytes=2-5' } })
    assert.equal(inside.status, 206)
    assert.equal(inside.body, 'cdef')
    assert.equal(inside.headers['content-range'], 'bytes 2-5/26')
    assert.match(String(inside.headers['cache-status']), /^conduit; hit; ttl=\d+$/)
    assert.equal(count(), 1)
    const beyond = await send('/', { headers: { range: 'bytes=5-15' } })
    assert.equal(beyond.body, 'fghijklmnop')
    // Several ranges are left to the origin (this one answers them with the whole body).
    const several = await send('/', { headers: { range: 'bytes=0-1,3-4' } })
    assert.equal(several.body, ALPHABET)
    assert.equal(count(), 3)
  })

  it('answers a ranged only-if-cached request with nothing stored with a 504, without the origin', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, rangeOrigin({ etag: '"alpha"', body: ALPHABET }), { store })
    const answer = await send('/', { headers: { range: 'bytes=0-1' }, cacheMode: 'only-if-cached' })
    assert.equal(answer.status, 504)
    assert.equal(count(), 0)
  })

  it('does not combine parts whose ETags differ', async (t) => {
    const state = { etag: '"one"', body: ALPHABET }
    const store = makeStore(t)
    const { send, count } = await setupCache(t, rangeOrigin(state), { store })
    await send('/', { headers: { range: 'bytes=0-12' } })
    state.etag = '"two"'
    await send('/', { headers: { range: 'bytes=13-' } })
    await store.settled()
    const whole = await send()
    assert.match(String(whole.headers['cache-status']), /fwd=miss/)
    assert.equal(count(), 3)
  })

  it('does not store a 206 without a strong ETag', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, rangeOrigin({ etag: 'W/"weak"', body: ALPHABET }), { store })
    const part = await send('/', { headers: { range: 'bytes=0-25' } })
    assert.doesNotMatch(String(part.headers['cache-status']), /stored/)
    await store.settled()
    await send()
    assert.equal(count(), 2)
  })

  for (const contentRange of ['bytes 0-1/*', 'bytes 0-5/3', 'items 0-1/26', 'junk']) {
    it(`passes on a 206 with Content-Range "${contentRange}" without storing it`, async (t) => {
      const store = makeStore(t)
      const { send, count } = await setupCache(t, (_req, res) => {
        stamp(res, 'max-age=600')
        res.setHeader('etag', '"alpha"')
        res.statusCode = 206
        res.setHeader('content-range', contentRange)
        res.end('ab')
      }, { store })
      const first = await send('/', { headers: { range: 'bytes=0-1' } })
      assert.equal(first.status, 206)
      assert.equal(first.body, 'ab')
      assert.doesNotMatch(String(first.headers['cache-status']), /stored/)
      await store.settled()
      await send('/', { headers: { range: 'bytes=0-1' } })
      assert.equal(count(), 2)
    })
  }

  it('stores a 200 that answers a ranged request as the complete response', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, rangeOrigin({ etag: '"alpha"', body: ALPHABET, ignoreRange: true }), { store })
    const answer = await send('/', { headers: { range: 'bytes=0-1' } })
    assert.equal(answer.status, 200)
    await store.settled()
    assert.equal((await send('/', { headers: { range: 'bytes=0-1' } })).body, 'ab')
    assert.equal(count(), 1)
  })
})

describe('interceptors.cache(): ranges with a custom store that knows nothing of them', () => {
  it('stores, joins and serves parts through a store that only implements get, createWriteStream and delete asynchronously', async (t) => {
    const store = new AsyncTestStore()
    const { send, count } = await setupCache(t, rangeOrigin({ etag: '"alpha"', body: ALPHABET }), { store })
    assert.equal((await send('/', { headers: { range: 'bytes=0-12' } })).body, 'abcdefghijklm')
    assert.equal((await send('/', { headers: { range: 'bytes=13-' } })).body, 'nopqrstuvwxyz')
    const whole = await send()
    assert.equal(whole.body, ALPHABET)
    assert.match(String(whole.headers['cache-status']), /hit/)
    assert.equal((await send('/', { headers: { range: 'bytes=-2' } })).body, 'yz')
    assert.equal(count(), 2)
  })
})
