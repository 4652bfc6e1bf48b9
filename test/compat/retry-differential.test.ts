/**
 * Differential tests of retry(): the error a caller gets when retries run out, and what happens
 * to a 200 body cut mid-way that has no strong ETag (an intended difference, see
 * docs/undici-differences.md).
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type net from 'node:net'
import { both, mapCode } from './harness.js'
import type { Lib } from './harness.js'
import { startTcpServer } from '../helpers/servers.js'

/** What a caller observes of the error retry() ends with. */
function retryErrorShape (err: unknown): Record<string, unknown> {
  const e = err as { name?: string, code?: string, statusCode?: number, data?: unknown, headers?: Record<string, unknown> }
  const headers = { ...e.headers }
  delete headers.date
  return { name: e.name, code: mapCode(e.code), statusCode: e.statusCode, data: e.data, headers }
}

/** Answers each request on a raw socket through `answer`, with the request head's text. */
function serve (answer: (socket: net.Socket, head: string, n: number) => void): ReturnType<typeof startTcpServer> {
  let n = 0
  return startTcpServer((socket) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) return
      const head = text.slice(0, end)
      text = text.slice(end + 4)
      answer(socket, head, ++n)
    })
  })
}

async function get (lib: Lib, origin: string, maxRetries = 3): Promise<{ body: string } | { error: Record<string, unknown> }> {
  const agent = new lib.Agent()
  try {
    const dispatcher = agent.compose(lib.interceptors.retry({ minTimeout: 1, maxTimeout: 1, maxRetries }))
    const { body } = await dispatcher.request({ origin, path: '/file', method: 'GET' })
    return { body: await body.text() }
  } catch (err) {
    return { error: retryErrorShape(err) }
  } finally {
    await agent.close()
  }
}

describe('retry(): the error when retries run out, conduit and undici agree', () => {
  it('has the same class, code, status, headers and data.count after only failing statuses', async (t) => {
    const server = await serve((socket) => socket.write('HTTP/1.1 503 Service Unavailable\r\nx-why: busy\r\ncontent-length: 0\r\n\r\n'))
    t.after(() => server.close())
    const { undici, conduit } = await both((lib) => get(lib, server.origin, 2))
    assert.deepEqual(conduit, undici)
    assert.deepEqual(conduit, { error: { name: 'RequestRetryError', code: 'LIB_ERR_REQ_RETRY', statusCode: 503, data: { count: 3 }, headers: { 'x-why': 'busy', 'content-length': '0' } } })
  })

  it('counts a connection error before the failing statuses as an attempt too', async (t) => {
    const server = await serve((socket, _head, n) => {
      if (n % 4 === 1) socket.destroy()
      else socket.write('HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n')
    })
    t.after(() => server.close())
    const { undici, conduit } = await both((lib) => get(lib, server.origin, 3))
    assert.deepEqual(conduit, undici)
    assert.deepEqual((conduit as { error: { data: unknown } }).error.data, { count: 4 })
  })
})

/** Sends one GET through a RetryHandler given to Agent#dispatch, as undici's docs show it; settles with the status or the error's shape. */
async function getThroughRetryHandler (lib: Lib, origin: string, maxRetries: number): Promise<{ statusCode: number } | { error: Record<string, unknown> }> {
  const agent = new lib.Agent()
  try {
    return await new Promise((resolve) => {
      const opts = { origin, path: '/file', method: 'GET' }
      let statusCode = 0
      const handler = new lib.RetryHandler({ ...opts, retryOptions: { minTimeout: 1, maxTimeout: 1, maxRetries } }, {
        dispatch: (o: unknown, h: unknown) => agent.dispatch(o, h),
        handler: {
          onRequestStart () {},
          onResponseStart (_controller: unknown, status: number) { statusCode = status },
          onResponseData () {},
          onResponseEnd () { resolve({ statusCode }) },
          onResponseError (_controller: unknown, err: Error) { resolve({ error: retryErrorShape(err) }) }
        }
      })
      agent.dispatch(opts, handler)
    })
  } finally {
    await agent.close()
  }
}

const FAILING_500 = 'HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n'

describe('retry() and RetryHandler: data.count and the error once retries are exhausted, conduit and undici agree', () => {
  const scenarios: Array<[string, (socket: net.Socket, n: number) => void]> = [
    ['a 429 with retry-after: 0 every time', (socket) => socket.write('HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n')],
    ['a 500, then connections that break', (socket, n) => { if (n === 1) socket.write(FAILING_500); else socket.destroy() }],
    ['a broken connection, then 500s', (socket, n) => { if (n === 1) socket.destroy(); else socket.write(FAILING_500) }],
    ['a body cut short behind a strong ETag every time', (socket) => { socket.write('HTTP/1.1 200 OK\r\netag: "v1"\r\ncontent-length: 10\r\n\r\nhello'); setImmediate(() => socket.destroy()) }]
  ]
  for (const [label, answer] of scenarios) {
    it(`after ${label}, through the interceptor and a RetryHandler, with and without retries`, async (t) => {
      let n = 0
      const server = await serve((socket, _head) => answer(socket, ++n))
      t.after(() => server.close())
      const outcomes = await both(async (lib) => {
        const seen: unknown[] = []
        for (const maxRetries of [2, 0]) {
          n = 0
          seen.push(await get(lib, server.origin, maxRetries))
          n = 0
          seen.push(await getThroughRetryHandler(lib, server.origin, maxRetries))
        }
        return seen
      })
      assert.deepEqual(outcomes.conduit, outcomes.undici)
      // Each outcome is an error: a RequestRetryError carries how many attempts were made.
      for (const outcome of outcomes.conduit) {
        const error = (outcome as { error?: Record<string, unknown> }).error
        assert.ok(error !== undefined, JSON.stringify(outcome))
        if (error.name === 'RequestRetryError') assert.equal(typeof (error.data as { count?: unknown }).count, 'number')
      }
    })
  }
})

describe('retry(): a 200 cut mid-body without a strong ETag (intended difference)', () => {
  for (const validator of ['etag: W/"v1"\r\n', '']) {
    const label = validator === '' ? 'no validator' : 'a weak ETag'
    it(`with ${label}: undici asks for the rest with Range, conduit asks again from the start; both deliver unchanged bytes`, async (t) => {
      const ranges: Record<string, string[]> = { undici: [], conduit: [] }
      let current: 'undici' | 'conduit' = 'undici'
      const server = await serve((socket, head) => {
        const range = /\r\nrange: ([^\r]+)/i.exec(head)?.[1]
        ranges[current]!.push(range ?? '')
        if (ranges[current]!.length === 1) {
          socket.write(`HTTP/1.1 200 OK\r\n${validator}content-length: 10\r\n\r\nhello`)
          setImmediate(() => socket.destroy())
        } else if (range === 'bytes=5-9') {
          socket.end(`HTTP/1.1 206 Partial Content\r\n${validator}content-range: bytes 5-9/10\r\ncontent-length: 5\r\n\r\nworld`)
        } else {
          socket.end(`HTTP/1.1 200 OK\r\n${validator}content-length: 10\r\n\r\nhelloworld`)
        }
      })
      t.after(() => server.close())
      const { undici, conduit } = await both((lib, name) => { current = name; return get(lib, server.origin) })
      assert.deepEqual(conduit, undici)
      assert.deepEqual(conduit, { body: 'helloworld' })
      assert.deepEqual(ranges, { undici: ['', 'bytes=5-9'], conduit: ['', ''] })
    })

    it(`with ${label}: when the representation changed, undici splices the two, conduit fails with RequestRetryError`, async (t) => {
      let current: 'undici' | 'conduit' = 'undici'
      const seen: Record<string, number> = { undici: 0, conduit: 0 }
      const server = await serve((socket, head) => {
        if (++seen[current]! === 1) {
          socket.write(`HTTP/1.1 200 OK\r\n${validator}content-length: 10\r\n\r\nhello`)
          setImmediate(() => socket.destroy())
        } else if (/\r\nrange: bytes=5-9/i.test(head)) {
          socket.end(`HTTP/1.1 206 Partial Content\r\n${validator}content-range: bytes 5-9/10\r\ncontent-length: 5\r\n\r\nWORLD`)
        } else {
          socket.end(`HTTP/1.1 200 OK\r\n${validator}content-length: 10\r\n\r\nHELLOWORLD`)
        }
      })
      t.after(() => server.close())
      const { undici, conduit } = await both((lib, name) => { current = name; return get(lib, server.origin) })
      assert.deepEqual(undici, { body: 'helloWORLD' }, 'undici delivers a body that no server ever sent')
      const error = (conduit as { error?: Record<string, unknown> }).error
      assert.equal(error?.name, 'RequestRetryError')
      assert.equal(error?.code, 'LIB_ERR_REQ_RETRY')
      assert.equal(error?.statusCode, 200)
      assert.deepEqual(error?.data, { count: 2 })
    })
  }
})
