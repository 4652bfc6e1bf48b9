import { it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, fetch, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
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

  it('reads a malformed or self-contradicting permission as absent, so the response to an authorized request reaches nobody else', async (t) => {
    const store = makeStore(t)
    const MALFORMED_PERMISSIONS = [
      'public =',
      'public=1, max-age=60',
      'must-revalidate=1, max-age=60',
      'public\u00a0, max-age=60',
      'public, private\u00a0, max-age=60',
      'public, no-store\u00a0, max-age=60',
      'public, private=" authorization", max-age=60',
      'public, max-age=60, no-cache="Authorization"',
      's-maxage=abc, max-age=60',
      's-maxage=60, s-maxage=0',
      'public, max-age=60, max-age=0'
    ]
    const { send, count } = await setupCache(t, (req, res) => {
      stamp(res, MALFORMED_PERMISSIONS[Number(req.url?.slice(1))])
      res.end(`for ${req.headers.authorization ?? 'anyone'}`)
    }, { store })
    for (const [index, cacheControl] of MALFORMED_PERMISSIONS.entries()) {
      assert.equal((await send(`/${index}`, { headers: { authorization: TOKEN } })).body, `for ${TOKEN}`, cacheControl)
      await store.settled()
      assert.equal((await send(`/${index}`)).body, 'for anyone', `${cacheControl}: the response to the authorized request was served`)
    }
    assert.equal(count(), MALFORMED_PERMISSIONS.length * 2)
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

  for (const order of ['redirect outside the cache', 'the cache outside redirect'] as const) {
    it(`stores nothing under the first URL when a request with credentials was redirected (${order}), as undici`, async (t) => {
      const store = makeStore(t)
      const other = await startHttpServer((req, res) => { stamp(res, 'public, max-age=60'); res.end('elsewhere') })
      const server = await startHttpServer((req, res) => {
        if (req.url === '/me') { res.writeHead(302, { location: `/profile/${String(req.headers.authorization ?? req.headers.cookie ?? 'anyone')}` }); res.end(); return }
        if (req.url === '/away') { res.writeHead(302, { location: `${other.origin}/x` }); res.end(); return }
        stamp(res, 'public, max-age=60')
        res.end(`profile ${req.url ?? ''}`)
      })
      const agent = new Agent()
      t.after(async () => { await agent.close(); await server.close(); await other.close() })
      const layers = [interceptors.redirect({ maxRedirections: 2 }), interceptors.cache({ store })]
      const dispatcher = agent.compose(...(order === 'redirect outside the cache' ? layers : layers.reverse()))
      const get = async (path: string, headers: Record<string, string> = {}): Promise<string> => {
        const res = await dispatcher.request({ origin: server.origin, path, method: 'GET', headers })
        const text = await res.body.text()
        await store.settled()
        return text
      }
      assert.equal(await get('/me', { authorization: 'alice' }), 'profile /profile/alice')
      assert.equal(await get('/me'), 'profile /profile/anyone')
      assert.doesNotMatch(await get('/me', { cookie: 'bob' }), /alice/)
      // A hop through another origin is never stored under the first URL either: /away reaches the server each time.
      assert.equal(await get('/away'), 'elsewhere')
      assert.equal(await get('/away'), 'elsewhere')
      assert.equal(server.requests.filter((r) => r.url === '/away').length, 2)
    })
  }

  it('stores the answer of a redirect chain under the first URL only when each redirect was storable and fresh itself, as undici', async (t) => {
    const store = makeStore(t)
    const server = await startHttpServer((req, res) => {
      const policy = new URL(req.url ?? '/', 'http://x').searchParams.get('redirect')
      if (policy !== null) {
        if (policy !== 'none') res.setHeader('cache-control', policy)
        res.writeHead(302, { location: '/target' })
        res.end()
        return
      }
      stamp(res, 'public, max-age=60')
      res.end('target')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 2 }), interceptors.cache({ store }))
    const served: Record<string, number> = {}
    for (const policy of ['none', 'private, max-age=60', 'no-store, max-age=60', 'max-age=0', 'max-age=60']) {
      const path = `/start?redirect=${encodeURIComponent(policy)}`
      for (let i = 0; i < 2; i++) {
        const res = await dispatcher.request({ origin: server.origin, path, method: 'GET' })
        assert.equal(await res.body.text(), 'target')
        await store.settled()
      }
      served[policy] = server.requests.filter((r) => r.url === path).length
    }
    // Only the fresh, storable redirect lets the second request be answered from the cache.
    assert.deepEqual(served, { none: 2, 'private, max-age=60': 2, 'no-store, max-age=60': 2, 'max-age=0': 2, 'max-age=60': 1 })
  })
})
