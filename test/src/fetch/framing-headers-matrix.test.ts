/**
 * The framing and connection headers a caller may set on a fetch, as they reach a conduit
 * dispatcher: every such header × every body kind × HTTP/1.1 and HTTP/2, sent through the
 * runtime's built-in `fetch` with a conduit dispatcher (which hands the dispatcher its own
 * `content-length` next to the caller's) and through conduit's own `fetch`.
 */

import { describe, it, after, before } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import type http2 from 'node:http2'
import { Agent, Client, fetch as conduitFetch } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { respond, startH2cServer } from '../../helpers/h2-server.js'
import type { H2TestServer } from '../../helpers/h2-server.js'

/** What the server saw of one request. */
interface Seen {
  method: string
  contentLength: string | null
  transferEncoding: string | null
  expect: string | null
  connection: string | null
  te: string | null
  body: string
}

function headerOf (value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
}

function seenOf (method: string, headers: http.IncomingHttpHeaders, body: Buffer): Seen {
  return {
    method,
    contentLength: headerOf(headers['content-length']),
    transferEncoding: headerOf(headers['transfer-encoding']),
    expect: headerOf(headers.expect),
    connection: headerOf(headers.connection),
    te: headerOf(headers.te),
    body: body.toString('utf8')
  }
}

/** Answers with what the server saw of the request, as JSON. */
function answerWithSeen (req: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify(seenOf(req.method ?? '', req.headers, Buffer.concat(chunks))))
  })
}

const TEXT = 'conduit framing body!'

/** A body kind: how to make a fresh body of it, and what its bytes contain. */
interface BodyKind {
  name: string
  make: () => unknown
  /** A stream has no known length: without a caller's content-length it goes chunked over HTTP/1.1. */
  streamed: boolean
  /** True when the sent bytes equal TEXT exactly (a form is wrapped in multipart framing). */
  exact: boolean
}

const BODY_KINDS: BodyKind[] = [
  { name: 'string', make: () => TEXT, streamed: false, exact: true },
  { name: 'Uint8Array', make: () => new TextEncoder().encode(TEXT), streamed: false, exact: true },
  { name: 'ArrayBuffer', make: () => new TextEncoder().encode(TEXT).buffer, streamed: false, exact: true },
  { name: 'Blob', make: () => new Blob([TEXT]), streamed: false, exact: true },
  {
    name: 'FormData',
    make: () => { const form = new FormData(); form.append('field', TEXT); return form },
    streamed: false,
    exact: false
  },
  { name: 'URLSearchParams', make: () => new URLSearchParams({ field: TEXT }), streamed: false, exact: false },
  {
    name: 'ReadableStream',
    make: () => new ReadableStream<Uint8Array>({
      start (controller) {
        controller.enqueue(new TextEncoder().encode(TEXT.slice(0, 7)))
        controller.enqueue(new TextEncoder().encode(TEXT.slice(7)))
        controller.close()
      }
    }),
    streamed: true,
    exact: true
  },
  {
    name: 'async iterable',
    make: () => (async function * () { yield new TextEncoder().encode(TEXT.slice(0, 5)); yield new TextEncoder().encode(TEXT.slice(5)) })(),
    streamed: true,
    exact: true
  }
]

/** A framing header a caller sets: its value for a body of `length` bytes, and whether conduit takes it. */
interface FramingHeader {
  name: string
  value: (length: number) => string
  /** `null`: accepted; otherwise the refusal's message, which names the header. */
  refused: RegExp | null
}

const FRAMING_HEADERS: FramingHeader[] = [
  { name: 'content-length', value: (length) => String(length), refused: null },
  { name: 'transfer-encoding', value: () => 'chunked', refused: null },
  { name: 'host', value: () => 'example.test', refused: null },
  { name: 'connection', value: () => 'close', refused: null },
  { name: 'connection', value: () => 'keep-alive', refused: null },
  { name: 'expect', value: () => '100-continue', refused: null },
  { name: 'te', value: () => 'trailers', refused: null },
  { name: 'trailer', value: () => 'x-checksum', refused: null },
  // undici refuses these two as well: the transport owns keep-alive, and an upgrade has its own option.
  { name: 'keep-alive', value: () => 'timeout=5', refused: /invalid keep-alive header/ },
  { name: 'upgrade', value: () => 'websocket', refused: /invalid upgrade header/ }
]

/** Asserts that the server received the bytes of a body of `kind`. */
function expectedBodyText (kind: BodyKind, body: string): void {
  if (kind.exact) assert.equal(body, TEXT)
  else assert.ok(body.includes(kind.name === 'URLSearchParams' ? new URLSearchParams({ field: TEXT }).toString() : TEXT), body)
}

type FetchLike = (url: string, init: Record<string, unknown>) => Promise<{ status: number, json: () => Promise<unknown> }>

const FETCHES: Array<[string, FetchLike]> = [
  ["the runtime's fetch", globalThis.fetch as unknown as FetchLike],
  ["conduit's fetch", conduitFetch as unknown as FetchLike]
]

/** Length of the body of `kind` as its fetch frames it (a form's multipart length depends on its boundary). */
function knownLength (kind: BodyKind): number {
  if (kind.name === 'URLSearchParams') return Buffer.byteLength(new URLSearchParams({ field: TEXT }).toString())
  return Buffer.byteLength(TEXT)
}

describe('framing headers set by the caller × body kinds × protocols, through both fetches', () => {
  let h1: TestServer<http.Server>
  let h2: H2TestServer
  let h1Agent: Agent
  let h2Agent: Agent

  before(async () => {
    h1 = await startHttpServer(answerWithSeen)
    h2 = await startH2cServer((stream, headers) => {
      if (headers.expect === '100-continue') stream.additionalHeaders({ ':status': 100 })
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        respond(stream, 200, JSON.stringify(seenOf(String(headers[':method']), headers as http2.IncomingHttpHeaders as http.IncomingHttpHeaders, Buffer.concat(chunks))), { 'content-type': 'application/json' })
      })
    })
    h1Agent = new Agent()
    h2Agent = new Agent({ factory: (origin, opts) => new Client(origin, { ...opts, h2c: true }) })
  })
  after(async () => {
    await h1Agent.close()
    await h2Agent.close()
    await h1.close()
    await h2.close()
  })

  for (const protocol of ['HTTP/1.1', 'HTTP/2'] as const) {
    for (const [fetchName, fetchImpl] of FETCHES) {
      for (const header of FRAMING_HEADERS) {
        for (const kind of BODY_KINDS) {
          // A form's multipart length is only known once built; a caller's content-length for it is covered by the other kinds.
          if (header.name === 'content-length' && kind.name === 'FormData') continue
          const value = header.value(knownLength(kind))
          const title = `${protocol}, ${fetchName}, ${header.name}: ${value}, a ${kind.name} body: ${header.refused === null ? 'sends the body once, framed by the transport' : 'is refused naming the header'}`
          it(title, async () => {
            const origin = protocol === 'HTTP/1.1' ? h1.origin : h2.origin
            const dispatcher = protocol === 'HTTP/1.1' ? h1Agent : h2Agent
            const init: Record<string, unknown> = { method: 'POST', body: kind.make(), headers: { [header.name]: value }, dispatcher }
            if (kind.streamed) init.duplex = 'half'
            if (header.refused !== null) {
              await assert.rejects(fetchImpl(`${origin}/`, init), (err: Error & { cause?: { code?: string, message?: string } }) => {
                assert.ok(err instanceof TypeError, String(err))
                assert.equal(err.cause?.code, 'LIB_ERR_INVALID_ARG')
                assert.match(err.cause?.message ?? '', header.refused!)
                return true
              })
              return
            }
            const res = await fetchImpl(`${origin}/`, init)
            assert.equal(res.status, 200)
            const seen = await res.json() as Seen
            assert.equal(seen.method, 'POST')
            expectedBodyText(kind, seen.body)
            const sentLength = Buffer.byteLength(seen.body)
            if (protocol === 'HTTP/2') {
              // HTTP/2 frames by DATA frames; no connection-specific field may appear (RFC 9113 section 8.2.2).
              assert.equal(seen.transferEncoding, null)
              assert.equal(seen.connection, null)
            } else if (seen.contentLength === null) {
              assert.equal(seen.transferEncoding, 'chunked')
            } else {
              assert.equal(seen.transferEncoding, null)
            }
            if (seen.contentLength !== null) assert.equal(seen.contentLength, String(sentLength))
            // A body of known size always goes out with its length; a stream does when the caller declared it.
            if (!kind.streamed || header.name === 'content-length') assert.equal(seen.contentLength, String(sentLength))
            if (header.name === 'expect') assert.equal(seen.expect, '100-continue')
            if (header.name === 'connection' && value === 'close' && protocol === 'HTTP/1.1') assert.equal(seen.connection, 'close')
            if (header.name === 'te') assert.equal(seen.te, 'trailers')
          })
        }
      }
    }
  }
})

describe('content-length fields at the dispatcher', () => {
  let server: TestServer<http.Server>
  let client: Client
  before(async () => {
    server = await startHttpServer(answerWithSeen)
    client = new Client(server.origin)
  })
  after(async () => {
    await client.close()
    await server.close()
  })

  const accepted: Array<[string, unknown]> = [
    ['a list of identical values', { 'content-length': '5, 5' }],
    ['a list with spaces around identical values', { 'content-length': '5 ,5,  5' }],
    ['an array of identical values', { 'content-length': ['5', '5'] }],
    ['two fields of the same value', ['content-length', '5', 'Content-Length', '5']]
  ]
  for (const [name, headers] of accepted) {
    it(`takes ${name} as one value and sends the body once with it`, async () => {
      const res = await client.request({ path: '/', method: 'POST', body: 'hello', headers: headers as never })
      const seen = await res.body.json() as Seen
      assert.equal(seen.contentLength, '5')
      assert.equal(seen.body, 'hello')
    })
  }

  const refused: Array<[string, unknown, RegExp]> = [
    ['a list of differing values', { 'content-length': '5, 6' }, /invalid content-length header: "5, 6" \(differs from the length 5 declared before\)/],
    ['two fields of differing values', ['content-length', '5', 'content-length', '6'], /invalid content-length header: "6" \(differs from the length 5 declared before\)/],
    ['an empty list member', { 'content-length': '5,,5' }, /invalid content-length header: "5,,5"/],
    ['a negative value', { 'content-length': '-5' }, /invalid content-length header: "-5"/]
  ]
  for (const [name, headers, message] of refused) {
    it(`refuses ${name} before sending anything`, async () => {
      const before = server.requests.length
      assert.throws(() => client.dispatch({ path: '/', method: 'POST', body: 'hello', headers: headers as never }, {}), { code: 'LIB_ERR_INVALID_ARG', message })
      assert.equal(server.requests.length, before)
    })
  }
})
