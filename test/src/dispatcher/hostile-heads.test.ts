import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import fc from 'fast-check'
import { Client as UndiciClient } from '../../helpers/undici-reference.js'
import { Client } from '../../../src/index.js'
import { HeadersOverflowError, HeadersTimeoutError, HTTPParserError, InvalidArgumentError } from '../../../src/errors.js'
import { startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const PROCESSING = 'HTTP/1.1 102 Processing\r\n\r\n'
const FINAL = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'

/** A raw server answering each request with `answer(socket)`; sockets are destroyed on close. */
async function rawServer (t: { after: (fn: () => Promise<void>) => void }, answer: (socket: Socket) => void): Promise<TestServer> {
  const server = await startTcpServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', () => answer(socket))
  })
  t.after(() => server.close())
  return server
}

/** The error a GET through `dispatcher` ends with, response body included; fails the test if it succeeds. */
async function failureOf (dispatcher: { request: Client['request'] }): Promise<Error> {
  let outcome: string
  try {
    const res = await dispatcher.request({ origin: 'http://unused', path: '/', method: 'GET' })
    outcome = `${res.statusCode} ${JSON.stringify(await res.body.text())}`
  } catch (err) {
    return err as Error
  }
  assert.fail(`expected the request to fail, got ${outcome}`)
}

async function failure (origin: string, options: ConstructorParameters<typeof Client>[1]): Promise<Error> {
  const client = new Client(origin, options)
  try {
    return await failureOf(client)
  } finally {
    await client.destroy()
  }
}

describe('1xx floods', () => {
  it('fails on headersTimeout when 102 Processing keeps coming every few ms: 1xx heads do not restart it', async (t) => {
    const server = await rawServer(t, (socket) => {
      // Bounded: at most 2000 heads, stopped as soon as the client goes away.
      let sent = 0
      const timer = setInterval(() => {
        if (socket.destroyed || sent++ >= 2000) clearInterval(timer)
        else socket.write(PROCESSING)
      }, 3)
      socket.on('close', () => clearInterval(timer))
    })
    const err = await failure(server.origin, { headersTimeout: 60, maxInformationalResponses: 1_000_000 })
    assert.ok(err instanceof HeadersTimeoutError, String(err))
    assert.equal((err as HeadersTimeoutError).code, 'LIB_ERR_HEADERS_TIMEOUT')
    assert.match(err.message, /within 60 ms \(headersTimeout\)/)
  })

  it('fails a flat-out flood of 1xx heads at the default maxInformationalResponses cap', async (t) => {
    const server = await rawServer(t, (socket) => {
      // One write of 10,000 heads: more than any cap, and bounded.
      socket.write(PROCESSING.repeat(10_000))
    })
    const err = await failure(server.origin, { headersTimeout: 0 })
    assert.ok(err instanceof HeadersOverflowError, String(err))
    assert.equal((err as HeadersOverflowError).code, 'LIB_ERR_HEADERS_OVERFLOW')
    assert.match(err.message, /more than 16 informational \(1xx\) responses .* \(maxInformationalResponses\)/)
  })

  it('accepts exactly maxInformationalResponses 1xx heads, and fails on one more', async (t) => {
    let count = 0
    const server = await rawServer(t, (socket) => socket.write(`${'HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\n'.repeat(count)}${FINAL}`))
    count = 3
    const client = new Client(server.origin, { maxInformationalResponses: 3 })
    t.after(() => client.destroy())
    const res = await client.request({ path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'ok')
    count = 4
    const err = await failure(server.origin, { maxInformationalResponses: 3 })
    assert.ok(err instanceof HeadersOverflowError)
    assert.match(err.message, /more than 3 informational/)
  })

  it('counts 1xx heads per request, not per connection', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.on('data', () => socket.write(`${PROCESSING.repeat(2)}${FINAL}`))
    })
    t.after(() => server.close())
    const client = new Client(server.origin, { maxInformationalResponses: 2 })
    t.after(() => client.destroy())
    for (let i = 0; i < 3; i++) {
      const res = await client.request({ path: '/', method: 'GET' })
      assert.equal(await res.body.text(), 'ok')
    }
    assert.equal(server.connections, 1)
  })

  it('refuses a maxInformationalResponses that is not a non-negative integer, naming the value', () => {
    for (const bad of [-1, 1.5, '3', Number.NaN]) {
      assert.throws(() => new Client('http://127.0.0.1:1', { maxInformationalResponses: bad as number }), (err: Error) => {
        assert.ok(err instanceof InvalidArgumentError)
        assert.equal((err as InvalidArgumentError).code, 'LIB_ERR_INVALID_ARG')
        assert.ok(err.message.includes('maxInformationalResponses'), err.message)
        return true
      })
    }
  })

  it('succeeds iff the number of 1xx heads is within the cap (seeded property)', async (t) => {
    let script = ''
    const server = await startTcpServer((socket) => {
      socket.on('error', () => {})
      socket.on('data', () => socket.write(script))
    })
    t.after(() => server.close())
    await fc.assert(fc.asyncProperty(
      fc.array(fc.constantFrom(100, 102, 103, 199), { maxLength: 12 }),
      fc.integer({ min: 0, max: 8 }),
      async (statuses, cap) => {
        script = statuses.map((status) => `HTTP/1.1 ${status} Info\r\n\r\n`).join('') + FINAL
        const client = new Client(server.origin, { maxInformationalResponses: cap, headersTimeout: 0 })
        try {
          const outcome = await client.request({ path: '/', method: 'GET' }).then(async (res) => await res.body.text(), (err: Error) => err)
          if (statuses.length <= cap) assert.equal(outcome, 'ok')
          else assert.ok(outcome instanceof HeadersOverflowError, String(outcome))
        } finally {
          await client.destroy()
        }
      }
    ), { seed: 1603, numRuns: 40 })
  })
})

describe('bare-LF response heads', () => {
  const cases: Array<[string, string]> = [
    ['a status line ending in bare LF', 'HTTP/1.1 200 OK\ncontent-length: 2\r\n\r\nok'],
    ['header lines ending in bare LF', 'HTTP/1.1 200 OK\r\ncontent-length: 2\n\nok'],
    ['a whole head in bare LF', 'HTTP/1.1 200 OK\ncontent-length: 2\n\nok'],
    ['a chunk size line ending in bare LF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\nok\r\n0\r\n\r\n'],
    ['chunk data followed by bare LF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\n0\r\n\r\n'],
    ['a trailer section ending in bare LF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nx-t: 1\n\n'],
    ['a last chunk followed by bare LF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\n']
  ]
  for (const [what, response] of cases) {
    it(`rejects ${what} at once with an HTTPParserError, as undici does`, async (t) => {
      // The server keeps the connection open: a timeout error (after 10 s) would fail the assertion below.
      const server = await rawServer(t, (socket) => socket.write(response))
      const err = await failure(server.origin, { headersTimeout: 10_000, bodyTimeout: 10_000 })
      assert.ok(err instanceof HTTPParserError, String(err))
      assert.equal((err as HTTPParserError).code, 'LIB_ERR_HTTP_PARSER')
      const undici = new UndiciClient(server.origin, { headersTimeout: 2000, bodyTimeout: 2000 })
      t.after(() => undici.destroy())
      assert.ok(await failureOf(undici as unknown as Client) instanceof Error)
    })
  }

  it('names the offending line in the error message', async (t) => {
    const server = await rawServer(t, (socket) => socket.write('HTTP/1.1 200 OK\r\nx-a: 1\nx-b: 2\r\n'))
    const err = await failure(server.origin, { headersTimeout: 0 })
    assert.equal(err.message, 'bare LF line ending in response head: "x-a: 1\\n"')
  })
})
