import { it } from 'node:test'
import assert from 'node:assert/strict'
import { fetch } from '../../src/index.js'
import { setupCache, stamp } from './cache-test-helpers.js'
import { describeWithEachStore } from './cache-store-matrix.js'

const TOKEN = 'Bearer Qz8rLm2'

/** Every way a caller may write the header: any case, flat array, nested pairs, an iterable. */
const AUTHORIZATION_FORMS: Array<[string, unknown]> = [
  ['an object with Authorization', { Authorization: TOKEN }],
  ['a flat array', ['AUTHORIZATION', TOKEN]],
  ['an array value', { authorization: [TOKEN] }],
  ['a Map', new Map([['Authorization', TOKEN]])]
]

describeWithEachStore('interceptors.cache(): responses to requests with Authorization (RFC 9111 section 3.5)', (makeStore) => {
  it('never serves a response to a request with Authorization to a request without it, unless the response allows shared caching', async (t) => {
    const store = makeStore(t)
    const { send, count } = await setupCache(t, (req, res) => {
      stamp(res, req.url?.startsWith('/public') === true ? 'public, max-age=60' : 'max-age=60')
      res.end(`for ${req.headers.authorization ?? 'anyone'}`)
    }, { store })
    for (const [form, headers] of AUTHORIZATION_FORMS) {
      const path = `/private-${form.replaceAll(' ', '-')}`
      assert.equal((await send(path, { headers })).body, `for ${TOKEN}`, form)
      await store.settled()
      assert.equal((await send(path)).body, 'for anyone', `${form}: the response to the authorized request was served`)
    }
    assert.equal(count(), AUTHORIZATION_FORMS.length * 2)
    // With public, the origin allows it: the stored response is served to anyone.
    await send('/public', { headers: { authorization: TOKEN } })
    await store.settled()
    assert.equal((await send('/public')).body, `for ${TOKEN}`)
    assert.equal(count(), AUTHORIZATION_FORMS.length * 2 + 1)
  })

  it('applies the same rule to fetch() through the cache', async (t) => {
    const store = makeStore(t)
    const { server, dispatcher, count } = await setupCache(t, (req, res) => {
      stamp(res, 'max-age=60')
      res.end(`for ${req.headers.authorization ?? 'anyone'}`)
    }, { store })
    const first = await fetch(`${server.origin}/f`, { dispatcher, headers: { Authorization: TOKEN } })
    assert.equal(await first.text(), `for ${TOKEN}`)
    await store.settled()
    const second = await fetch(`${server.origin}/f`, { dispatcher })
    assert.equal(await second.text(), 'for anyone')
    assert.equal(count(), 2)
  })
})
