import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Client, errors } from '../../../src/index.js'
import { FRAME, FLAG, literalField, STATUS_200, startRawH2Server } from './raw-h2-server.js'
import type { RawConnection } from './raw-h2-server.js'

/** SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 section 6.5.2). */
const MAX_HEADER_LIST_SIZE = 0x6

/** Answers every request with `fields` after `:status: 200`, then a short body. */
function answerWith (fields: Buffer[]) {
  return (conn: RawConnection, streamId: number): void => {
    conn.sendHeaderBlock(streamId, Buffer.concat([STATUS_200, ...fields]), false)
    conn.send(FRAME.DATA, FLAG.END_STREAM, streamId, Buffer.from('ok'))
  }
}

function settingsOf (payload: Buffer): Map<number, number> {
  const settings = new Map<number, number>()
  for (let i = 0; i + 6 <= payload.length; i += 6) settings.set(payload.readUInt16BE(i), payload.readUInt32BE(i + 2))
  return settings
}

describe('HTTP/2: response header blocks over maxHeaderSize', () => {
  it('advertises maxHeaderSize to the server as SETTINGS_MAX_HEADER_LIST_SIZE', async (t) => {
    const server = await startRawH2Server(answerWith([literalField('x-small', 'v')]))
    const client = new Client(server.origin, { h2c: true, maxHeaderSize: 12_345 })
    t.after(async () => { await client.destroy(); await server.close() })
    const res = await client.request({ path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'ok')
    const settings = server.frames.find((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0)
    assert.ok(settings !== undefined)
    assert.equal(settingsOf(settings.payload).get(MAX_HEADER_LIST_SIZE), 12_345)
  })

  const oversized: Array<[string, Buffer[]]> = [
    ['one 1 MiB field', [literalField('x-big', 'a'.repeat(1 << 20))]],
    ['one 70 kB field', [literalField('x-big', 'a'.repeat(70_000))]],
    // Eight fields over five frames: the list limit shows within the block's CONTINUATIONs.
    ['eight 9 kB fields', Array.from({ length: 8 }, (_, i) => literalField(`x-part-${i}`, 'b'.repeat(9_000)))],
    ['one 20 kB field', [literalField('x-big', 'c'.repeat(20_000))]]
  ]
  for (const [name, fields] of oversized) {
    it(`fails a response head of ${name} with HeadersOverflowError naming the limit, not at headersTimeout`, async (t) => {
      const server = await startRawH2Server(answerWith(fields))
      const client = new Client(server.origin, { h2c: true, headersTimeout: 120_000 })
      t.after(async () => { await client.destroy(); await server.close() })
      await assert.rejects(client.request({ path: '/', method: 'GET' }), (err: Error) => {
        assert.ok(err instanceof errors.HeadersOverflowError, String(err))
        assert.match(err.message, new RegExp(`response headers from ${server.origin} exceed maxHeaderSize \\(16384 bytes\\)`))
        return true
      })
      // The client keeps working on a fresh session.
      assert.equal(server.connections, 1)
    })
  }
})

describe('HTTP/2: who reset a stream, as messages say it', () => {
  it('says the client reset the stream, and why, when the response is malformed', async (t) => {
    // An upper-case field name is malformed in HTTP/2 (RFC 9113 section 8.2.1): the client resets.
    const server = await startRawH2Server(answerWith([literalField('X-Upper', 'v')]))
    const client = new Client(server.origin, { h2c: true })
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.SocketError, String(err))
      assert.match(err.message, new RegExp(`^HTTP/2 stream reset by the client because the response from ${server.origin} broke the protocol: .*RFC 9113 section 8\\.2\\.1`))
      assert.doesNotMatch(err.message, /reset by the server/)
      return true
    })
  })

  it('says "reset by the server" for a code only a server sends', async (t) => {
    const server = await startRawH2Server((conn, streamId) => conn.rst(streamId, 0x8 /* CANCEL */))
    const client = new Client(server.origin, { h2c: true })
    t.after(async () => { await client.destroy(); await server.close() })
    await assert.rejects(client.request({ path: '/', method: 'GET' }), {
      code: 'LIB_ERR_SOCKET',
      message: 'HTTP/2 stream reset by the server (RST_STREAM CANCEL)'
    })
  })
})
