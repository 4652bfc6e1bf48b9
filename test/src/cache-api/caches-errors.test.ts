import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Request, Response, caches } from '../../../src/index.js'

describe('caches: refusals say what was refused', () => {
  it('Cache and CacheStorage cannot be constructed directly', async () => {
    const cache = await caches.open('errors-construct')
    const CacheClass = cache.constructor as new () => unknown
    const StorageClass = caches.constructor as new () => unknown
    assert.throws(() => new CacheClass(), /Cache: Illegal constructor/)
    assert.throws(() => new StorageClass(), /CacheStorage: Illegal constructor/)
    assert.equal(Object.prototype.toString.call(cache), '[object Cache]')
    assert.equal(Object.prototype.toString.call(caches), '[object CacheStorage]')
    await caches.delete('errors-construct')
  })

  it('put names the method and URL, the status, the Vary and the body state it refuses', async () => {
    const cache = await caches.open('errors-put')
    await assert.rejects(cache.put(new Request('http://h.test/a', { method: 'POST' }), new Response('x')), { name: 'TypeError', message: /only GET requests to http or https URLs can be stored, got POST http:\/\/h\.test\/a/ })
    await assert.rejects(cache.put('ftp://h.test/a', new Response('x')), { name: 'TypeError', message: /got GET ftp:\/\/h\.test\/a/ })
    await assert.rejects(cache.put('http://h.test/a', new Response('x', { status: 206 })), { name: 'TypeError', message: /206/ })
    await assert.rejects(cache.put('http://h.test/a', new Response('x', { headers: { vary: '*' } })), { name: 'TypeError', message: /Vary: \*/ })
    await assert.rejects(cache.put('http://h.test/a', 'not a response' as unknown as Response), { name: 'TypeError', message: /response must be a Response, got "not a response"/ })
    const used = new Response('x')
    await used.text()
    await assert.rejects(cache.put('http://h.test/a', used), { name: 'TypeError', message: /already used or locked/ })
    await assert.rejects(cache.match('http://h.test/a', 'yes' as never), { name: 'TypeError', message: /options must be an object, got "yes"/ })
    assert.deepEqual(await cache.keys(), [])
    await caches.delete('errors-put')
  })

  it('a stored request does not change when the caller changes its Request afterwards', async () => {
    const cache = await caches.open('errors-copy')
    const request = new Request('http://h.test/v', { headers: { accept: 'text/html' } })
    await cache.put(request, new Response('html', { headers: { vary: 'Accept' } }))
    request.headers.set('accept', 'application/json')
    assert.equal(await (await cache.match(new Request('http://h.test/v', { headers: { accept: 'text/html' } })))?.text(), 'html')
    assert.equal((await cache.keys())[0]?.headers.get('accept'), 'text/html')
    await caches.delete('errors-copy')
  })
})
