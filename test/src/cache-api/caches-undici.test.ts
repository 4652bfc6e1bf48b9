import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../../helpers/undici-reference.js'
import { Request, Response, caches } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { runCacheScript } from './cache-api-script.js'
import type { CacheApi } from './cache-api-script.js'

describe('caches: the same sequence of Cache API operations through undici and conduit', () => {
  let server: TestServer
  before(async () => {
    server = await startHttpServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]
      if (path === '/empty') {
        res.writeHead(204, { 'x-served': 'yes' }).end()
      } else if (path === '/body') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`body of ${req.url ?? ''}`)
      } else if (path === '/redirect') {
        res.writeHead(302, { location: '/empty' }).end()
      } else if (path === '/partial') {
        res.writeHead(206, { 'content-range': 'bytes 0-1/10' }).end('pa')
      } else if (path === '/vary-star') {
        res.writeHead(200, { vary: '*' }).end('any')
      } else {
        res.writeHead(404).end('not here')
      }
    })
  })
  after(async () => { await server.close() })

  it('gives the same transcript', async () => {
    const theirs = await runCacheScript(undici as unknown as CacheApi, server.origin, 'undici')
    const ourRun = await runCacheScript({ caches, Request, Response } as unknown as CacheApi, server.origin, 'conduit')
    // Through JSON both, so an absent value and an undefined one read the same.
    const renamed = JSON.parse(JSON.stringify(theirs).replaceAll('undici-', 'conduit-')) as unknown[]
    const ours = JSON.parse(JSON.stringify(ourRun)) as unknown[]
    assert.equal(ours.length, renamed.length)
    for (let i = 0; i < ours.length; i++) assert.deepEqual(ours[i], renamed[i], `step ${i}`)
  })

  it('add and addAll store fetched bodies (conduit reads them; undici 7 never settles here)', async () => {
    const cache = await caches.open('conduit-bodies')
    await cache.add(`${server.origin}/body?1`)
    await cache.addAll([`${server.origin}/body?2`, new Request(`${server.origin}/body?3`)])
    const texts = await Promise.all((await cache.matchAll()).map(async (response) => await response.text()))
    assert.deepEqual(texts, ['body of /body?1', 'body of /body?2', 'body of /body?3'])
    const again = await cache.match(`${server.origin}/body?1`)
    assert.equal(again?.headers.get('content-type'), 'text/plain')
    assert.equal(await again?.text(), 'body of /body?1')
    assert.equal(await caches.delete('conduit-bodies'), true)
  })

  it('a failed addAll leaves the cache as it was, for every Cache object of that name', async () => {
    const cache = await caches.open('conduit-atomic')
    await cache.add(`${server.origin}/body?kept`)
    await assert.rejects(cache.addAll([`${server.origin}/body?x`, `${server.origin}/body?x`]), { name: 'InvalidStateError' })
    await assert.rejects(cache.addAll([`${server.origin}/body?y`, `${server.origin}/missing`]), TypeError)
    const reopened = await caches.open('conduit-atomic')
    assert.deepEqual((await reopened.keys()).map((request) => request.url), [`${server.origin}/body?kept`])
    assert.equal(await caches.delete('conduit-atomic'), true)
  })
})
