import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { MockPool } from '../../../src/mock/mock-pool.js'
import { MockClient } from '../../../src/mock/mock-client.js'
import { ORIGIN, req, offline } from './mock-agent-helpers.js'

describe('MockAgent: get() and intercept().reply()', () => {
  it('answers a matching request with the registered status, body and headers', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/users', method: 'GET' }).reply(200, 'hello', { headers: { 'X-Test': 'yes' } })
    const res = await req(agent, { origin: ORIGIN, path: '/users', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.statusMessage, 'OK')
    assert.equal(res.headers['x-test'], 'yes')
    assert.equal(await res.body.text(), 'hello')
  })

  it('returns the same pool for the same origin, however it is spelled', (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get('http://Example.ORG:80')
    assert.ok(pool instanceof MockPool)
    assert.equal(agent.get('http://example.org'), pool)
    assert.equal(agent.get(new URL('http://example.org/some/path')), pool)
  })

  it('gives MockClients when the agent has a single connection', (t) => {
    const agent = offline({ connections: 1 })
    t.after(() => agent.close())
    assert.ok(agent.get(ORIGIN) instanceof MockClient)
  })

  it('reports stats and pipelining as undici\'s mocks do: connected, nothing in flight', (t) => {
    const single = offline({ connections: 1 })
    const pooled = offline()
    t.after(() => Promise.all([single.close(), pooled.close()]))
    const client = single.get(ORIGIN) as MockClient
    assert.deepEqual(client.stats, { connected: true, pending: 0, running: 0, size: 0 })
    assert.equal(client.pipelining, 1)
    assert.deepEqual((pooled.get(ORIGIN) as MockPool).stats, { connected: 1, free: 0, pending: 0, queued: 0, running: 0, size: 0 })
  })

  it('answers through a MockPool built directly, and forgets a closed pool', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = new MockPool(ORIGIN, { agent })
    pool.intercept({ path: '/direct' }).reply(200, 'direct')
    const res = await pool.request({ path: '/direct', method: 'GET' })
    assert.equal(await res.body.text(), 'direct')
    assert.throws(() => new MockPool(ORIGIN, {} as never), { code: 'LIB_ERR_INVALID_ARG', message: /opts\.agent must be a dispatcher/ })
    const registered = agent.get(ORIGIN)
    await registered.close()
    assert.notEqual(agent.get(ORIGIN), registered)
    await assert.rejects(registered.request({ path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('serves origins matched by a RegExp or a function', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(/^http:\/\/127\.0\.0\.1:/).intercept({ path: '/a' }).reply(200, 'by regexp')
    agent.get((origin: string) => origin.endsWith(':7')).intercept({ path: '/b' }).reply(200, 'by function')
    assert.equal(await (await req(agent, { origin: 'http://127.0.0.1:5', path: '/a' })).body.text(), 'by regexp')
    assert.equal(await (await req(agent, { origin: 'http://localhost:7', path: '/b' })).body.text(), 'by function')
  })

  it('reads every reply body kind through text, json, bytes and arrayBuffer', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: '/string' }).reply(200, 'text')
    pool.intercept({ path: '/json' }).reply(200, { a: [1, 2] })
    pool.intercept({ path: '/buffer' }).reply(200, Buffer.from([0, 255, 1]))
    pool.intercept({ path: '/uint8' }).reply(200, new Uint8Array([7, 8]))
    pool.intercept({ path: '/arraybuffer' }).reply(200, new Uint8Array([9, 10]).buffer)
    pool.intercept({ path: '/function' }).reply(200, (opts: { path: string }) => `path was ${opts.path}`)
    pool.intercept({ path: '/promise' }).reply(200, async () => ({ late: true }))
    pool.intercept({ path: '/stream' }).reply(200, Readable.from(['a', 'b', 'c']))
    pool.intercept({ path: '/empty' }).reply(204)
    const get = async (path: string) => (await req(agent, { origin: ORIGIN, path })).body
    assert.equal(await (await get('/string')).text(), 'text')
    assert.deepEqual(await (await get('/json')).json(), { a: [1, 2] })
    assert.deepEqual([...await (await get('/buffer')).bytes()], [0, 255, 1])
    assert.deepEqual([...new Uint8Array(await (await get('/uint8')).arrayBuffer())], [7, 8])
    assert.deepEqual([...await (await get('/arraybuffer')).bytes()], [9, 10])
    assert.equal(await (await get('/function')).text(), 'path was /function')
    assert.deepEqual(await (await get('/promise')).json(), { late: true })
    assert.equal(await (await get('/stream')).text(), 'abc')
    assert.equal(await (await get('/empty')).text(), '')
  })

  it('builds the reply from a callback that sees the request', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/echo', method: 'POST' }).reply((opts) => ({
      statusCode: 201,
      data: { got: JSON.parse(typeof opts.body === 'string' ? opts.body : 'null'), type: opts.headers['content-type'] },
      responseOptions: { headers: { 'x-from': 'callback' } }
    }))
    const res = await req(agent, { origin: ORIGIN, path: '/echo', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"n":1}' })
    assert.equal(res.statusCode, 201)
    assert.equal(res.headers['x-from'], 'callback')
    assert.deepEqual(await res.body.json(), { got: { n: 1 }, type: 'application/json' })
  })

  it('applies default reply headers and trailers, and a computed content-length', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/' })
      .defaultReplyHeaders({ 'x-default': 'd', 'x-both': 'default' })
      .defaultReplyTrailers({ 'x-trailer': 't' })
      .replyContentLength()
      .reply(200, 'héllo', { headers: { 'x-both': 'reply' } })
    const res = await req(agent, { origin: ORIGIN, path: '/' })
    assert.equal(res.headers['x-default'], 'd')
    assert.equal(res.headers['x-both'], 'reply')
    assert.equal(res.headers['content-length'], '6')
    assert.equal(await res.body.text(), 'héllo')
    assert.deepEqual(res.trailers, { 'x-trailer': 't' })
  })

  it('fails the request with the error given to replyWithError', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const boom = Object.assign(new Error('kaboom'), { code: 'ECONNRESET' })
    agent.get(ORIGIN).intercept({ path: '/' }).replyWithError(boom)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/' }), (err: Error & { code?: string }) => err === boom && err.code === 'ECONNRESET')
  })

  it('rejects invalid intercept and reply arguments synchronously, naming the value', (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    assert.throws(() => pool.intercept({} as never), { code: 'LIB_ERR_INVALID_ARG', message: /path must be defined/ })
    assert.throws(() => pool.intercept({ path: '/' }).reply(42), { code: 'LIB_ERR_INVALID_ARG', message: /got 42/ })
    assert.throws(() => pool.intercept({ path: '/' }).reply(200, '', null as never), { code: 'LIB_ERR_INVALID_ARG', message: /got null/ })
    assert.throws(() => pool.intercept({ path: '/' }).replyWithError('nope' as never), { code: 'LIB_ERR_INVALID_ARG', message: /got "nope"$/ })
    assert.throws(() => pool.intercept({ path: '/' }).reply(200).delay(-1), { code: 'LIB_ERR_INVALID_ARG', message: /got -1/ })
    assert.throws(() => pool.intercept({ path: '/' }).reply(200).times(1.5), { code: 'LIB_ERR_INVALID_ARG', message: /got 1\.5/ })
    assert.throws(() => agent.get(42 as never), { code: 'LIB_ERR_INVALID_ARG', message: /got 42$/ })
    assert.throws(() => new MockAgent({ enableCallHistory: 'yes' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /enableCallHistory must be a boolean, got "yes"$/ })
    assert.throws(() => agent.enableNetConnect(5 as never), { code: 'LIB_ERR_INVALID_ARG', message: /got 5$/ })
  })

  it('fails a reply callback that returns no object through the request, not by throwing', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/' }).reply(() => null as never)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/' }), { code: 'LIB_ERR_INVALID_ARG', message: /must return an object, got null/ })
  })
})

describe('MockAgent: matching', () => {
  it('matches path, method, body, headers and query with strings, RegExps and functions', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    const pool = agent.get(ORIGIN)
    pool.intercept({ path: /^\/items\/\d+$/, method: /^(PUT|PATCH)$/, body: (b: string) => b.includes('"ok"'), headers: { 'x-key': /^k-/ } }).reply(200, 'regexp')
    pool.intercept({ path: '/search', query: { q: 'cats', page: 2 } }).reply(200, 'query')
    pool.intercept({ path: '/h', headers: (h) => h['x-a'] === '1' && h['x-b'] === undefined }).reply(200, 'header function')
    const res1 = await req(agent, { origin: ORIGIN, path: '/items/12', method: 'PATCH', body: '{"ok":true}', headers: { 'X-Key': 'k-1' } })
    assert.equal(await res1.body.text(), 'regexp')
    const res2 = await req(agent, { origin: ORIGIN, path: '/search?page=2&q=cats' })
    assert.equal(await res2.body.text(), 'query')
    const res3 = await req(agent, { origin: ORIGIN, path: '/h', headers: [['x-a', '1']] as never })
    assert.equal(await res3.body.text(), 'header function')
  })

  it('matches a request given with a query option against a path with the same query', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/s?b=2&a=1' }).reply(200, 'ok')
    const res = await req(agent, { origin: ORIGIN, path: '/s', query: { a: 1, b: 2 } })
    assert.equal(await res.body.text(), 'ok')
  })

  it('matches a streamed request body by its text', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/upload', method: 'POST', body: 'part1part2' }).reply(200, 'got it')
    const res = await req(agent, { origin: ORIGIN, path: '/upload', method: 'POST', body: Readable.from(['part1', 'part2']) })
    assert.equal(await res.body.text(), 'got it')
  })

  it('treats /a/ and /a as one path with ignoreTrailingSlash, on the agent or the interceptor', async (t) => {
    const agent = offline({ ignoreTrailingSlash: true })
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/a/' }).reply(200, 'agent')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/a' })).body.text(), 'agent')
    const strict = offline()
    t.after(() => strict.close())
    strict.get(ORIGIN).intercept({ path: '/b', ignoreTrailingSlash: true }).reply(200, 'interceptor')
    assert.equal(await (await req(strict, { origin: ORIGIN, path: '/b/' })).body.text(), 'interceptor')
    strict.get(ORIGIN).intercept({ path: '/c' }).reply(200, 'strict')
    await assert.rejects(req(strict, { origin: ORIGIN, path: '/c/' }), { code: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED' })
  })

  it('reads non-standard array queries when acceptNonStandardSearchParameters is set', async (t) => {
    const agent = offline({ acceptNonStandardSearchParameters: true })
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/q', query: { a: ['1', '2'] } }).reply(200, 'arrays')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/q?a[]=1&a[]=2' })).body.text(), 'arrays')
    agent.get(ORIGIN).intercept({ path: '/q', query: { a: ['1', '2'] } }).reply(200, 'commas')
    assert.equal(await (await req(agent, { origin: ORIGIN, path: '/q?a=1,2' })).body.text(), 'commas')
  })

  it('names the request and the failed stage in MockNotMatchedError', async (t) => {
    const agent = offline()
    t.after(() => agent.close())
    agent.get(ORIGIN).intercept({ path: '/known', method: 'POST' }).reply(200)
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/unknown' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_MOCK_ERR_MOCK_NOT_MATCHED')
      assert.equal(err.name, 'MockNotMatchedError')
      assert.match(err.message, /path '\/unknown'/)
      assert.match(err.message, /GET http:\/\/127\.0\.0\.1:9\/unknown/)
      assert.match(err.message, /net connect is disabled/)
      assert.match(err.message, /1 interceptor\(s\) remaining out of 1 defined/)
      return true
    })
    await assert.rejects(req(agent, { origin: ORIGIN, path: '/known', method: 'GET' }), { message: /method 'GET' on path '\/known'/ })
  })
})
