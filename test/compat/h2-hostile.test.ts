/**
 * Hostile HTTP/2 servers through undici and conduit (`H2CClient`): a server that answers every
 * session with GOAWAY, one that refuses every stream, and one that sends a 1 MiB response header.
 * What a user sees is compared: whether the request fails or hangs, the error's class and code,
 * and how many sessions and streams it cost. The differences are intended and listed in
 * docs/undici-differences.md: a refused stream fails with conduit's SocketError instead of a plain
 * Error, and an oversized head at once instead of at headersTimeout.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import { both, caught } from './harness.js'
import { UNDICI_MAJOR } from '../helpers/undici-reference.js'
import type { Lib } from './harness.js'
import { MAX_H2_RESENDS } from '../../src/h2/resend-budget.js'
import { startH2cServer } from '../helpers/h2-server.js'
import { FLAG, FRAME, literalField, STATUS_200, startRawH2Server } from '../src/h2/raw-h2-server.js'

const { NGHTTP2_NO_ERROR, NGHTTP2_REFUSED_STREAM } = http2.constants
// Long enough for a loaded machine; only a client that waits for it (undici on an oversized head
// under Node 20) meets it.
const HEADERS_TIMEOUT_MS = 10_000
/** Past headersTimeout: a request still pending then would wait until the server gives up. */
const HANG_BOUND_MS = 3 * HEADERS_TIMEOUT_MS

interface Outcome {
  /** `fails`, `succeeds`, or `hangs` (still pending well past headersTimeout). */
  result: string
  error?: string
  code?: string | undefined
  sessions: number
  streams: number
}

/** Sends one GET through `lib`'s H2CClient to `origin` and reports how it ended. */
async function observe (lib: Lib, origin: string, counts: () => { sessions: number, streams: number }): Promise<Outcome> {
  const client = new lib.H2CClient(origin, { headersTimeout: HEADERS_TIMEOUT_MS })
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<'hangs'>((resolve) => { timer = setTimeout(() => resolve('hangs'), HANG_BOUND_MS) })
  const settled = await Promise.race([caught(client.request({ path: '/', method: 'GET' })), hang])
  clearTimeout(timer)
  await client.destroy().catch(() => {})
  if (settled === 'hangs') return { result: 'hangs', ...counts() }
  if ('value' in settled) return { result: 'succeeds', ...counts() }
  return { result: 'fails', error: settled.error, code: settled.code, ...counts() }
}

describe('hostile HTTP/2 servers compared with undici', () => {
  it('a server answering every session with GOAWAY: both fail; conduit, as undici 8, with an InformationalError after one resend', async () => {
    const seen = await both(async (lib) => {
      const server = await startH2cServer(() => {})
      server.server.on('session', (session: http2.ServerHttp2Session) => session.goaway(NGHTTP2_NO_ERROR, 0))
      try {
        return await observe(lib, server.origin, () => ({ sessions: server.sessions, streams: server.streams.length }))
      } finally {
        await server.close()
      }
    })
    // undici 8 sends the request once more, then fails with InformationalError (a graceful
    // GOAWAY); undici 7 failed at once with SocketError.
    const undici = UNDICI_MAJOR === 7
      ? { result: 'fails', error: 'SocketError', code: 'LIB_ERR_SOCKET', sessions: 1, streams: 0 }
      : { result: 'fails', error: 'InformationalError', code: 'LIB_ERR_INFO', sessions: 2, streams: 0 }
    assert.deepEqual(seen.undici, undici)
    assert.deepEqual(seen.conduit, { result: 'fails', error: 'InformationalError', code: 'LIB_ERR_INFO', sessions: 1 + MAX_H2_RESENDS, streams: 0 })
  })

  it('a server refusing every stream: both fail after one resend; undici with the stream error, conduit with a SocketError', async () => {
    const seen = await both(async (lib) => {
      const server = await startH2cServer((stream) => stream.close(NGHTTP2_REFUSED_STREAM))
      try {
        return await observe(lib, server.origin, () => ({ sessions: server.sessions, streams: server.streams.length }))
      } finally {
        await server.close()
      }
    })
    // undici 8 sends the request once more on the same session; undici 7 did not.
    assert.deepEqual(seen.undici, { result: 'fails', error: 'Error', code: 'ERR_HTTP2_STREAM_ERROR', sessions: 1, streams: UNDICI_MAJOR === 7 ? 1 : 2 })
    assert.deepEqual(seen.conduit, { result: 'fails', error: 'SocketError', code: 'LIB_ERR_SOCKET', sessions: 1, streams: 1 + MAX_H2_RESENDS })
  })

  it('a 1 MiB response header: undici fails at headersTimeout, conduit at once with HeadersOverflowError', async () => {
    const seen = await both(async (lib) => {
      let streams = 0
      const server = await startRawH2Server((conn, streamId) => {
        streams++
        conn.sendHeaderBlock(streamId, Buffer.concat([STATUS_200, literalField('x-big', 'a'.repeat(1 << 20))]), false)
        conn.send(FRAME.DATA, FLAG.END_STREAM, streamId, Buffer.from('ok'))
      })
      try {
        return await observe(lib, server.origin, () => ({ sessions: server.connections, streams }))
      } finally {
        await server.close()
      }
    })
    // conduit's own HPACK decoder refuses the block as its first fragment shows the field's
    // length. undici fails too: at headersTimeout on Node 20, at once where Node 22 and later's
    // node:http2 refuses the block itself with a stream protocol error.
    assert.equal(seen.undici.result, 'fails')
    if (seen.undici.error === 'HeadersTimeoutError') assert.deepEqual(seen.undici, { result: 'fails', error: 'HeadersTimeoutError', code: 'LIB_ERR_HEADERS_TIMEOUT', sessions: 1, streams: 1 })
    assert.deepEqual(seen.conduit, { result: 'fails', error: 'HeadersOverflowError', code: 'LIB_ERR_HEADERS_OVERFLOW', sessions: 1, streams: 1 })
  })
})
