import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { Agent as UndiciAgent } from '../../helpers/undici-reference.js'
import { Agent, Client, fetch, interceptors, Pool } from '../../../src/index.js'
import { InvalidArgumentError, ResponseExceededMaxSizeError } from '../../../src/errors.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'

const KiB = 1024

describe('maxResponseSize', () => {
  it('fails a response whose body grows past the limit, naming it, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/small') res.end('x'.repeat(100))
      else res.end('x'.repeat(64 * KiB))
    })
    t.after(() => server.close())
    const ours = new Agent({ maxResponseSize: 1000 })
    const theirs = new UndiciAgent({ maxResponseSize: 1000 })
    t.after(() => Promise.all([ours.close(), theirs.close()]))

    const small = await ours.request({ origin: server.origin, path: '/small', method: 'GET' })
    assert.equal((await small.body.text()).length, 100)
    const err = await ours.request({ origin: server.origin, path: '/big', method: 'GET' }).then((res) => res.body.text()).then(() => assert.fail('expected a failure'), (e: Error) => e)
    assert.ok(err instanceof ResponseExceededMaxSizeError, String(err))
    assert.equal(err.code, 'LIB_ERR_RES_EXCEEDED_MAX_SIZE')
    assert.equal(err.name, 'ResponseExceededMaxSizeError')
    assert.match(err.message, /exceeds maxResponseSize \(1000 bytes\)/)

    const undiciErr = await theirs.request({ origin: server.origin, path: '/big', method: 'GET' }).then((res) => res.body.text()).then(() => assert.fail('undici accepted it'), (e: Error & { code?: string }) => e)
    assert.equal(undiciErr.name, 'ResponseExceededMaxSizeError')
    assert.equal(undiciErr.code, 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
  })

  it('counts the body bytes of a chunked response, not its framing, and accepts a body of exactly the limit', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n'))
    })
    t.after(() => server.close())
    const exact = new Client(server.origin, { maxResponseSize: 10 })
    const under = new Client(server.origin, { maxResponseSize: 9 })
    t.after(() => Promise.all([exact.destroy(), under.destroy()]))
    assert.equal(await (await exact.request({ path: '/', method: 'GET' })).body.text(), 'helloworld')
    const res = await under.request({ path: '/', method: 'GET' })
    await assert.rejects(res.body.text(), { name: 'ResponseExceededMaxSizeError', code: 'LIB_ERR_RES_EXCEEDED_MAX_SIZE' })
  })

  it('is accepted by Pool and Agent and refused when it is not an integer from -1, naming the value', async () => {
    await new Pool('http://127.0.0.1:1', { maxResponseSize: 0 }).close()
    for (const bad of [-2, 1.5, '10', Number.NaN]) {
      for (const make of [() => new Client('http://127.0.0.1:1', { maxResponseSize: bad as number }), () => new Agent({ maxResponseSize: bad as number })]) {
        assert.throws(make, (err: Error) => {
          assert.ok(err instanceof InvalidArgumentError)
          assert.ok(err.message.includes('maxResponseSize') && err.message.includes(typeof bad === 'string' ? '"10"' : String(bad)), err.message)
          return true
        })
      }
    }
  })

  it('makes fetch fail fast on a gzip bomb whose decoded size exceeds the limit', async (t) => {
    // 64 MiB of zeros compress to about 64 KiB: well under the limit on the wire, far over it decoded.
    const bomb = gzipSync(Buffer.alloc(64 * KiB * KiB))
    const server = await startHttpServer((_req, res) => {
      res.setHeader('content-encoding', 'gzip')
      res.end(bomb)
    })
    t.after(() => server.close())
    const agent = new Agent({ maxResponseSize: 1024 * KiB })
    t.after(() => agent.close())
    // The limit reaches fetch through interceptors too: they pass the transport's context on.
    for (const dispatcher of [agent, agent.compose(interceptors.retry(), interceptors.debug({ logger: () => {} }))]) {
      const res = await fetch(`${server.origin}/bomb`, { dispatcher })
      assert.equal(res.status, 200)
      const err = await res.arrayBuffer().then(() => assert.fail('expected a failure'), (e: Error) => e)
      assert.ok(err instanceof TypeError, String(err))
      assert.ok(err.cause instanceof ResponseExceededMaxSizeError, String(err.cause))
      assert.match((err.cause as Error).message, /^decoded response body of GET http:\/\/127\.0\.0\.1:\d+\/bomb exceeds maxResponseSize \(1048576 bytes\)$/)
    }
    assert.equal(server.requests.length, 2, 'a size failure is not retried')
  })

  it('lets fetch decode a compressed body up to the limit', async (t) => {
    const text = 'conduit '.repeat(10_000)
    const server = await startHttpServer((_req, res) => {
      res.setHeader('content-encoding', 'gzip')
      res.end(gzipSync(text))
    })
    t.after(() => server.close())
    const agent = new Agent({ maxResponseSize: text.length })
    t.after(() => agent.close())
    assert.equal(await (await fetch(server.origin, { dispatcher: agent })).text(), text)
  })
})
