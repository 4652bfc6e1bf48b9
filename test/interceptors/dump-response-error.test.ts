import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, errors, interceptors } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'

describe('interceptors.dump()', () => {
  it('delivers status and headers with an empty body, and keeps the connection for the next request', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'.repeat(5000)))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.dump())
    for (let i = 0; i < 3; i++) {
      const { statusCode, headers, body } = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET' })
      assert.equal(statusCode, 200)
      assert.equal(headers['content-length'], '5000')
      assert.equal(await body.text(), '')
    }
    assert.equal(server.connections, 1)
  })

  it('aborts with RequestAbortedError when the announced or received body passes maxSize', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/chunked') {
        res.write('x'.repeat(600))
        res.end('y'.repeat(600))
      } else res.end('z'.repeat(2000))
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.dump({ maxSize: 1000 }))
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_ABORTED', message: 'dump(): response size (2000) larger than maxSize (1000)' })
    const chunked = await dispatcher.request({ origin: server.origin, path: '/chunked', method: 'GET' })
    await assert.rejects(chunked.body.text(), { code: 'LIB_ERR_ABORTED', message: /larger than maxSize \(1000\)/ })
    // A request may raise its own limit with dumpMaxSize.
    const allowed = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET', dumpMaxSize: 4096 })
    assert.equal(await allowed.body.text(), '')
  })

  it('reports a caller abort once the body is read, with the caller reason', async (t) => {
    const server = await startHttpServer((req, res) => res.end('body'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.dump())
    const reason = new Error('not interested')
    const outcome = await new Promise<Error | null>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onRequestStart: (controller) => controller.abort(reason),
        onResponseEnd: () => resolve(null),
        onResponseError: (_c, err) => resolve(err)
      })
    })
    assert.equal(outcome, reason)
  })

  it('refuses bad sizes naming the value', async (t) => {
    assert.throws(() => interceptors.dump({ maxSize: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: 'dump(): maxSize must be a positive integer (bytes), got 0' })
    assert.throws(() => interceptors.dump(5 as never), { message: 'dump(): options must be an object, got 5' })
    const agent = new Agent()
    t.after(() => agent.close())
    await assert.rejects(agent.compose(interceptors.dump()).request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET', dumpMaxSize: '10' as unknown as number }), { code: 'LIB_ERR_INVALID_ARG', message: 'dump(): dumpMaxSize must be a positive integer (bytes), got "10"' })
  })
})

describe('interceptors.responseError()', () => {
  it('fails a >= 400 answer with a ResponseError carrying status, headers and the parsed JSON body', async (t) => {
    const server = await startHttpServer((req, res) => {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'x-trace': 'abc' })
      res.end(JSON.stringify({ error: 'missing' }))
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.responseError())
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.ResponseError)
      const responseErr = err as errors.ResponseError
      assert.equal(responseErr.code, 'LIB_ERR_RESPONSE')
      assert.equal(responseErr.statusCode, 404)
      assert.equal(responseErr.headers?.['x-trace'], 'abc')
      assert.deepEqual(responseErr.body, { error: 'missing' })
      return true
    })
  })

  it('keeps text/plain bodies as text and other bodies as an empty string', async (t) => {
    const server = await startHttpServer((req, res) => {
      res.writeHead(503, { 'content-type': req.url === '/text' ? 'text/plain' : 'text/html' })
      res.end('<b>down</b>')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.responseError())
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/text', method: 'GET' }), { statusCode: 503, body: '<b>down</b>' })
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/html', method: 'GET' }), { statusCode: 503, body: '' })
  })

  it('passes answers below 400 and, with throwOnError: false, every answer', async (t) => {
    const server = await startHttpServer((req, res) => {
      res.statusCode = req.url === '/bad' ? 400 : 200
      res.end('fine')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const ok = await agent.compose(interceptors.responseError()).request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await ok.body.text(), 'fine')
    const passing = await agent.compose(interceptors.responseError({ throwOnError: false })).request({ origin: server.origin, path: '/bad', method: 'GET' })
    assert.equal(passing.statusCode, 400)
    assert.equal(await passing.body.text(), 'fine')
  })

  it('refuses bad options naming the value', () => {
    assert.throws(() => interceptors.responseError({ throwOnError: 'yes' as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'responseError(): throwOnError must be a boolean, got "yes"' })
    assert.throws(() => interceptors.responseError(null as never), { message: 'responseError(): options must be an object, got null' })
  })
})
