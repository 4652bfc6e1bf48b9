import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import fc from 'fast-check'
import { libraries } from '../../compat/harness.js'
import type { Lib } from '../../compat/harness.js'
import { LibraryError } from '../../../src/errors.js'
import { startTcpServer } from '../../helpers/servers.js'
import { observe, startHostileServer } from './hostile-server.js'
import type { Api, Outcome } from './hostile-server.js'

/** Writes `piece()` every `everyMs` until `limit` pieces are out or the client goes away. */
function drip (socket: Socket, piece: (i: number) => string, everyMs: number, limit: number): void {
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed || i >= limit) clearInterval(timer)
    else socket.write(piece(i++))
  }, everyMs)
  socket.on('close', () => clearInterval(timer))
}

/** Writes `piece` as fast as the socket takes it (honouring backpressure) until `limit` pieces or the client goes away. */
function flood (socket: Socket, head: string, piece: string, limit: number): void {
  socket.write(head)
  let i = 0
  const more = (): void => {
    while (!socket.destroyed && i < limit) {
      i++
      if (!socket.write(piece)) {
        socket.once('drain', more)
        return
      }
    }
  }
  more()
}

/** A raw server that runs `behave` on the socket of each request; counts connections. */
async function scriptedServer (t: { after: (fn: () => Promise<void>) => void }, behave: (socket: Socket) => void): Promise<string> {
  const server = await startTcpServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', () => behave(socket))
  })
  t.after(() => server.close())
  return server.origin
}

const APIS: Api[] = ['request', 'fetch', 'dispatch']

/** The outcome of one GET through each API (conduit) and through undici's request(), on a fresh Agent each. */
async function outcomes (origin: string, options: Record<string, number>, undiciOptions = options): Promise<{ conduit: Outcome[], undici: Outcome }> {
  const conduit: Outcome[] = []
  for (const api of APIS) conduit.push(await withAgent(libraries.conduit, options, (agent) => observe(libraries.conduit, api, agent, origin)))
  const undici = await withAgent(libraries.undici, undiciOptions, (agent) => observe(libraries.undici, 'request', agent, origin))
  return { conduit, undici }
}

async function withAgent<T> (lib: Lib, options: Record<string, number>, use: (agent: Lib) => Promise<T>): Promise<T> {
  const agent = new lib.Agent(options)
  try {
    return await use(agent)
  } finally {
    await agent.destroy()
  }
}

function assertAll (seen: { conduit: Outcome[], undici: Outcome }, error: string, code: string): void {
  for (const [i, outcome] of seen.conduit.entries()) assert.deepEqual(outcome, { error, code }, `through ${APIS[i]!}`)
  // undici's class is the same; its code is spelled UND_ (mapped to LIB_ in the outcome).
  assert.deepEqual(seen.undici, { error, code })
}

describe('a hostile server that never finishes', () => {
  it('fails on headersTimeout when the head trickles in one byte per tick, as undici does: bytes do not restart the timer', async (t) => {
    const head = `HTTP/1.1 200 OK\r\nx-pad: ${'a'.repeat(500)}\r\ncontent-length: 2\r\n\r\nok`
    const origin = await scriptedServer(t, (socket) => drip(socket, (i) => head[i]!, 5, head.length))
    assertAll(await outcomes(origin, { headersTimeout: 120, bodyTimeout: 10_000 }), 'HeadersTimeoutError', 'LIB_ERR_HEADERS_TIMEOUT')
  })

  it('fails on bodyTimeout when body bytes come slower than it, as undici does', async (t) => {
    const origin = await scriptedServer(t, (socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n')
      drip(socket, () => 'b', 2500, 3)
    })
    // undici runs its body timer at a resolution of about a second, so it gets a longer one.
    const seen = await outcomes(origin, { headersTimeout: 10_000, bodyTimeout: 60 }, { headersTimeout: 10_000, bodyTimeout: 1000 })
    assertAll(seen, 'BodyTimeoutError', 'LIB_ERR_BODY_TIMEOUT')
  })

  it('fails with HeadersOverflowError on an endless stream of header lines, as undici does', async (t) => {
    // Bounded: at most 100,000 lines (about 2 MiB), stopped when the client goes away.
    const origin = await scriptedServer(t, (socket) => flood(socket, 'HTTP/1.1 200 OK\r\n', 'x-endless: aaaaaaaaaa\r\n', 100_000))
    // headersTimeout only bounds a client that never stops reading: a loaded machine can take
    // seconds to write the first 8 KiB, and the timeout must not win that race.
    assertAll(await outcomes(origin, { maxHeaderSize: 8192, headersTimeout: 120_000 }), 'HeadersOverflowError', 'LIB_ERR_HEADERS_OVERFLOW')
  })

  it('fails with ResponseExceededMaxSizeError on an endless chunked body past maxResponseSize, as undici does', async (t) => {
    // Bounded: at most 10,000 chunks of 1 KiB, stopped when the client goes away.
    const origin = await scriptedServer(t, (socket) => flood(socket, 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', `400\r\n${'c'.repeat(1024)}\r\n`, 10_000))
    assertAll(await outcomes(origin, { maxResponseSize: 64 * 1024, bodyTimeout: 10_000 }), 'ResponseExceededMaxSizeError', 'LIB_ERR_RES_EXCEEDED_MAX_SIZE')
  })
})

const VALID = [
  'HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-a: 1\r\n\r\nhello',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nx-t: 1\r\n\r\n',
  'HTTP/1.1 204 No Content\r\n\r\n',
  'HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'
]
/** Bytes that matter to HTTP/1.1 framing: NUL, TAB, LF, CR, SP, `,`, `-`, `0`, `:`, `;`, DEL, 0xFF. */
const FRAMING_BYTES = [0, 9, 10, 13, 32, 44, 45, 48, 58, 59, 127, 255]

const mutationArb = fc.tuple(
  fc.constantFrom('replace' as const, 'insert' as const, 'delete' as const),
  fc.nat(),
  fc.oneof(fc.constantFrom(...FRAMING_BYTES), fc.integer({ min: 0, max: 255 }))
)

function mutate (response: string, mutations: Array<[ 'replace' | 'insert' | 'delete', number, number ]>): string {
  let bytes = [...Buffer.from(response, 'latin1')]
  for (const [kind, at, byte] of mutations) {
    const i = at % (bytes.length + 1)
    if (kind === 'insert') bytes.splice(i, 0, byte)
    else if (i < bytes.length) {
      if (kind === 'replace') bytes[i] = byte
      else bytes.splice(i, 1)
    }
  }
  bytes = bytes.slice(0, 4096)
  return Buffer.from(bytes).toString('latin1')
}

describe('mutated responses over a real socket (seeded property)', () => {
  it('end in a response or a LibraryError, never hang, never leak a socket, and leave the Agent working', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...VALID), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (valid, mutations, end) => {
      const server = await startHostileServer({ bytes: mutate(valid, mutations), end })
      const agent = new libraries.conduit.Agent()
      try {
        let failure: unknown = null
        try {
          // Small timeouts bound a response that waits for bytes that never come; the next request keeps the defaults.
          const res = await libraries.conduit.request(server.origin, { dispatcher: agent, headersTimeout: 150, bodyTimeout: 150 })
          await res.body.text()
        } catch (err) {
          failure = err
        }
        if (failure !== null) assert.ok(failure instanceof LibraryError, `not a LibraryError: ${String(failure)}`)
        const next = await observe(libraries.conduit, 'request', agent, server.origin)
        assert.deepEqual(next, { status: 200, body: 'ok' })
        await agent.close()
        assert.ok(await server.allClosed(), 'a connection stayed open after close()')
      } finally {
        await agent.destroy()
        await server.close()
      }
    }), { seed: 4242, numRuns: 120 })
  })
})
