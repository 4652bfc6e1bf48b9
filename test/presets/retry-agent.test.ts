import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { execFile } from 'node:child_process'
import type http from 'node:http'
import { Agent, MockAgent, RetryAgent, fetch, interceptors } from '../../src/index.js'
import type { Dispatcher, RetryEvent, RetryOptions } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'

type Make = (options: RetryOptions) => Dispatcher
const variants: Array<[string, Make]> = [
  ['RetryAgent', (options) => new RetryAgent(new Agent(), options)],
  ['new Agent().compose(interceptors.retry())', (options) => new Agent().compose(interceptors.retry(options))]
]

const FILE = Buffer.alloc(200_000, 0)
for (let i = 0; i < FILE.length; i++) FILE[i] = (i * 7 + (i >> 8)) & 0xff

async function server (handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  let n = 0
  const s = await startHttpServer((req, res) => handler(req, res, ++n))
  after(() => s.close())
  return s
}

// Sends the head and part of the body, then drops the connection once the bytes are on the wire.
function cutAfter (res: http.ServerResponse, bytes: Buffer): void {
  res.write(bytes, () => res.socket?.destroy())
}

for (const [name, make] of variants) {
  describe(`retry behaviour of ${name}`, () => {
    function agent (options: RetryOptions = {}): Dispatcher {
      const d = make({ minTimeout: 1, ...options })
      after(() => d.destroy())
      return d
    }

    it('retries a 503 and returns the next response, telling the caller how many retries it took', async () => {
      const s = await server((_req, res, n) => { res.statusCode = n === 1 ? 503 : 200; res.end(n === 1 ? 'busy' : 'ok') })
      const res = await agent().request({ origin: s.origin, path: '/', method: 'GET' })
      assert.equal(res.statusCode, 200)
      assert.equal(await res.body.text(), 'ok')
      assert.equal((res.context as { retryCount: number }).retryCount, 1)
      assert.equal(s.requests.length, 2)
      assert.equal(s.connections, 1, 'the failing body was drained and its connection reused')
    })

    it('retries for fetch() too, which sees only the final response', async () => {
      const s = await server((_req, res, n) => { res.statusCode = n === 1 ? 502 : 200; res.end(n === 1 ? 'bad gateway' : 'fetched') })
      const res = await fetch(`${s.origin}/`, { dispatcher: agent() })
      assert.equal(res.status, 200)
      assert.equal(await res.text(), 'fetched')
    })

    it('waits the exponential backoff, and Retry-After seconds or dates capped at maxTimeout', async () => {
      const retryAfter = [undefined, undefined, '3', new Date(Date.now() + 60_000).toUTCString(), '0']
      const s = await server((_req, res, n) => {
        const value = retryAfter[n - 1]
        if (value !== undefined) res.setHeader('retry-after', value)
        res.statusCode = n <= retryAfter.length ? (n % 2 === 0 ? 429 : 503) : 200
        res.end()
      })
      const delays: RetryEvent[] = []
      const res = await agent({ minTimeout: 2, timeoutFactor: 3, maxTimeout: 15, onRetry: (_e, ev) => delays.push(ev) })
        .request({ origin: s.origin, path: '/', method: 'GET' })
      await res.body.dump()
      assert.equal(res.statusCode, 200)
      assert.deepEqual(delays, [
        { counter: 1, delayMs: 2 }, { counter: 2, delayMs: 6 }, { counter: 3, delayMs: 15 }, { counter: 4, delayMs: 15 }, { counter: 5, delayMs: 0 }
      ])
    })

    it('retries when the connection is reset before the response head', async () => {
      const s = await server((req, res, n) => { if (n === 1) req.socket.resetAndDestroy(); else res.end('second') })
      const res = await agent().request({ origin: s.origin, path: '/', method: 'GET' })
      assert.equal(await res.body.text(), 'second')
      assert.equal(s.requests.length, 2)
    })

    it('resumes a body cut mid-way with a guarded Range request and delivers the exact bytes', async () => {
      const seen: Array<string | undefined> = []
      const s = await server((req, res, n) => {
        seen.push(n === 1 ? undefined : `${req.headers.range} ${req.headers['if-match']}`)
        res.setHeader('etag', '"file-v1"')
        if (n === 1) {
          res.writeHead(200, { 'content-length': FILE.length })
          cutAfter(res, FILE.subarray(0, 70_001))
          return
        }
        const start = Number(/bytes=(\d+)-/.exec(req.headers.range ?? '')?.[1])
        res.writeHead(206, { 'content-range': `bytes ${start}-${FILE.length - 1}/${FILE.length}`, 'content-length': FILE.length - start })
        res.end(FILE.subarray(start))
      })
      const res = await agent().request({ origin: s.origin, path: '/file', method: 'GET' })
      const body = Buffer.from(await res.body.arrayBuffer())
      assert.equal(res.statusCode, 200)
      assert.ok(body.equals(FILE), 'the resumed body is byte-identical')
      assert.equal(seen.length, 2)
      assert.match(seen[1]!, /^bytes=\d+-199999 "file-v1"$/)
    })

    it('resumes a chunked body of unknown length and learns its end from the 206', async () => {
      const ranges: string[] = []
      const s = await server((req, res, n) => {
        res.setHeader('etag', '"chunked-v1"')
        if (n === 1) {
          res.writeHead(200)
          res.write(FILE.subarray(0, 1000))
          cutAfter(res, FILE.subarray(1000, 50_000))
          return
        }
        ranges.push(req.headers.range ?? '')
        const start = Number(/bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1])
        res.writeHead(206, { 'content-range': `bytes ${start}-${FILE.length - 1}/*` })
        res.end(FILE.subarray(start))
      })
      const res = await agent().request({ origin: s.origin, path: '/stream', method: 'GET' })
      assert.ok(Buffer.from(await res.body.arrayBuffer()).equals(FILE))
      assert.equal(ranges.length, 1)
    })

    it('fails the body instead of splicing two representations when the ETag changed', async () => {
      const s = await server((_req, res, n) => {
        if (n === 1) {
          res.writeHead(200, { etag: '"v1"', 'content-length': 10 })
          cutAfter(res, Buffer.from('hello'))
          return
        }
        res.writeHead(206, { etag: '"v2"', 'content-range': 'bytes 5-9/10' })
        res.end('WORLD')
      })
      const res = await agent().request({ origin: s.origin, path: '/', method: 'GET' })
      await assert.rejects(res.body.text(), { code: 'LIB_ERR_REQ_RETRY', message: /ETag changed from "v1" to "v2"/ })
    })

    it('does not retry a POST', async () => {
      const s = await server((req) => req.socket.resetAndDestroy())
      await assert.rejects(agent().request({ origin: s.origin, path: '/', method: 'POST', body: 'x' }), { code: 'LIB_ERR_SOCKET' })
      assert.equal(s.requests.length, 1)
    })

    it('gives up after maxRetries with a RequestRetryError when throwOnError is true', async () => {
      const s = await server((_req, res) => { res.statusCode = 503; res.end('busy') })
      await assert.rejects(agent({ maxRetries: 2 }).request({ origin: s.origin, path: '/', method: 'GET' }), (err: Error & Record<string, unknown>) => {
        assert.equal(err.code, 'LIB_ERR_REQ_RETRY')
        assert.equal(err.statusCode, 503)
        assert.deepEqual(err.data, { count: 3 })
        return true
      })
      assert.equal(s.requests.length, 3)
    })

    it('hands over the last failing response when throwOnError is false', async () => {
      const s = await server((_req, res, n) => { res.statusCode = 503; res.end(`busy ${n}`) })
      const res = await agent({ maxRetries: 2, throwOnError: false }).request({ origin: s.origin, path: '/', method: 'GET' })
      assert.equal(res.statusCode, 503)
      assert.equal(await res.body.text(), 'busy 3')
    })

    it('stops when a custom retry callback passes back LIB_ERR_DESTROYED', async () => {
      const s = await server((_req, res) => { res.statusCode = 500; res.end() })
      const codes: unknown[] = []
      const d: Dispatcher = agent({
        retry: (err, _ctx, callback) => {
          const code = (err as { code?: string }).code
          codes.push(code)
          if (code === 'LIB_ERR_DESTROYED') { callback(err); return }
          if (codes.length === 2) void d.destroy()
          setImmediate(callback)
        }
      })
      await assert.rejects(d.request({ origin: s.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
      assert.deepEqual(codes.slice(0, 2), ['LIB_ERR_REQ_RETRY', 'LIB_ERR_REQ_RETRY'])
    })

    it('refuses to re-send a stream body with LIB_ERR_REQ_RETRY', async () => {
      const s = await server((req) => req.socket.resetAndDestroy())
      const body = Readable.from([Buffer.from('payload')])
      await assert.rejects(agent().request({ origin: s.origin, path: '/', method: 'PUT', body }), { code: 'LIB_ERR_REQ_RETRY' })
      assert.equal(s.requests.length, 1)
    })

    it('ends the backoff wait as soon as the signal aborts', async () => {
      const s = await server((_req, res) => { res.writeHead(503, { 'retry-after': '3600' }); res.end() })
      const ac = new AbortController()
      const d = agent({ maxTimeout: 3_600_000, onRetry: () => ac.abort(new Error('caller gave up')) })
      await assert.rejects(d.request({ origin: s.origin, path: '/', method: 'GET', signal: ac.signal }), { message: 'caller gave up' })
      await d.close()
      assert.equal(s.requests.length, 1)
    })
  })
}

describe('RetryAgent lifecycle', () => {
  for (const [name, make] of variants) {
    it(`${name}: destroy() ends a request waiting an hour between attempts at once`, async () => {
      const s = await server((_req, res) => { res.writeHead(503, { 'retry-after': '3600' }); res.end() })
      const d = make({ maxTimeout: 3_600_000, onRetry: () => { void d.destroy() } })
      await assert.rejects(d.request({ origin: s.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
      assert.equal(s.requests.length, 1)
    })

    it(`${name}: close() waits for a request between attempts to finish, refuses new ones, then closes the wrapped agent`, async () => {
      let closing: Promise<void> | undefined
      let refused: Promise<{ code?: string } | null> | undefined
      const s = await server((_req, res, n) => { res.statusCode = n === 1 ? 503 : 200; res.end('done') })
      const d = make({
        minTimeout: 5,
        onRetry: () => {
          closing = d.close()
          refused = d.request({ origin: s.origin, path: '/', method: 'GET' }).then(() => null, (err: { code?: string }) => err)
        }
      })
      const res = await d.request({ origin: s.origin, path: '/', method: 'GET' })
      assert.equal((await refused)?.code, 'LIB_ERR_CLOSED')
      assert.equal(await res.body.text(), 'done')
      await closing
      assert.equal(s.requests.length, 2)
    })
  }

  it('wraps any Dispatcher, such as a MockAgent replaying a 503 and a reset before a 200', async () => {
    const mock = new MockAgent()
    mock.disableNetConnect()
    const pool = mock.get('http://127.0.0.1:1')
    pool.intercept({ path: '/', method: 'GET' }).reply(503, 'busy')
    pool.intercept({ path: '/', method: 'GET' }).replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))
    pool.intercept({ path: '/', method: 'GET' }).reply(200, 'ok')
    const d = new RetryAgent(mock, { minTimeout: 1 })
    after(() => d.destroy())
    const res = await d.request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'ok')
    assert.deepEqual(res.context, { retryCount: 2 })
  })

  it('throws invalid dispatch options synchronously and does not wait for that request on close', async () => {
    const d = new RetryAgent(new Agent())
    assert.throws(() => d.dispatch(null as never, {}), { code: 'LIB_ERR_INVALID_ARG' })
    assert.throws(() => d.dispatch({ path: '/', method: 'GET' }, {}), { code: 'LIB_ERR_INVALID_ARG' })
    await new Promise<void>((resolve, reject) => d.close((err) => err ? reject(err) : resolve()))
  })

  it('destroy() accepts the callback form', async () => {
    const d = new RetryAgent(new Agent())
    await new Promise<void>((resolve, reject) => d.destroy((err) => err ? reject(err) : resolve()))
    await assert.rejects(d.request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })

  it('leaves nothing that keeps the process alive once destroy() ended a wait of an hour', async () => {
    const script = `
      const http = await import('node:http')
      const { Agent, RetryAgent } = await import(${JSON.stringify(new URL('../../src/index.js', import.meta.url).href)})
      const server = http.createServer((_req, res) => { res.writeHead(503, { 'retry-after': '3600' }); res.end() })
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const agent = new RetryAgent(new Agent(), { maxTimeout: 3_600_000, onRetry: () => { void agent.destroy() } })
      const err = await agent.request({ origin: 'http://127.0.0.1:' + server.address().port, path: '/', method: 'GET' }).catch((e) => e)
      server.close()
      process.stdout.write(err.code)
    `
    const { code, stdout } = await new Promise<{ code: number | null, stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }, (_err, out) => resolve({ code: child.exitCode, stdout: out }))
    })
    assert.equal(stdout, 'LIB_ERR_DESTROYED')
    assert.equal(code, 0, 'the process exited by itself')
  })

  it('rejects a dispatcher that is not one and options that are invalid', () => {
    assert.throws(() => new RetryAgent({} as Dispatcher), { code: 'LIB_ERR_INVALID_ARG' })
    assert.throws(() => new RetryAgent(new Agent(), { maxRetries: -1 }), {
      code: 'LIB_ERR_INVALID_ARG',
      message: 'RetryAgent: maxRetries must be a non-negative integer, got -1'
    })
  })
})
