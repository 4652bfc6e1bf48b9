// Servers that flood a WebSocket client where it must not keep what arrives: fragments without
// end, data after the close frame, compressed messages faster than they inflate, pings from a
// peer that never reads. The client runs in a child process; its RSS must stay under the limit,
// the close code or error must be the one the protocol names, and nothing may go uncaught.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { closeFrame, deflated, frame, startHostileServer } from '../../helpers/hostile-websocket-server.js'
import type { HostileConnection, HostileOptions } from '../../helpers/hostile-websocket-server.js'
import { RSS_LIMIT, runHostileClient } from '../../helpers/run-hostile-client.js'

const TEXT = 0x1
const BINARY = 0x2
const CONTINUATION = 0x0
const PING = 0x9
const MIB = 1024 * 1024

/**
 * Writes `chunk` again and again, waiting for the socket to drain, until `limit` bytes went out,
 * the socket closed or `stop()` says so. Returns the bytes written.
 */
async function flood (socket: Socket, chunk: Buffer, limit: number, stop: () => boolean = () => false): Promise<number> {
  let sent = 0
  while (sent < limit && !socket.destroyed && !stop()) {
    sent += chunk.length
    if (!socket.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => { socket.off('drain', done); socket.off('close', done); resolve() }
        socket.on('drain', done)
        socket.on('close', done)
      })
    }
  }
  return sent
}

/** Starts a server running `script` on each connection, runs the child scenario against it, and returns the report and the bytes the script wrote. */
async function against (scenario: string, script: (connection: HostileConnection) => Promise<number>, options: HostileOptions = {}): Promise<{ events: string[], maxRss: number, uncaught: string[], exitCode: number | null, written: number[], closeCodes: Array<number | null> }> {
  const written: Array<Promise<number>> = []
  const server = await startHostileServer((connection) => { written.push(script(connection).catch(() => -1)) }, options)
  try {
    const report = await runHostileClient(scenario, server.url)
    const closeCodes = await Promise.all(server.connections.map(async (c) => {
      const f = await c.closeFrame
      return f === null || f.payload.length < 2 ? null : f.payload.readUInt16BE(0)
    }))
    return { ...report, written: await Promise.all(written), closeCodes }
  } finally {
    await server.close()
  }
}

function assertBounded (run: { maxRss: number, uncaught: string[], exitCode: number | null }): void {
  assert.deepEqual(run.uncaught, [])
  assert.equal(run.exitCode, 0)
  assert.ok(run.maxRss < RSS_LIMIT, `the client's RSS reached ${Math.round(run.maxRss / MIB)} MiB`)
}

describe('a WebSocket client flooded by a hostile server (client in a child process)', () => {
  // 2 bytes a frame: 20 MiB of empty ones is ten million fragments, far past the default limit of 131072.
  for (const [what, first, fragment] of [['empty continuation frames', TEXT, ''], ['one-byte fragments', BINARY, 'x']] as const) {
    it(`fails with 1008 on a message of endless ${what}, with bounded memory`, async () => {
      const fragments = Buffer.concat(Array.from({ length: 16 * 1024 }, () => frame(CONTINUATION, fragment, { fin: false })))
      const run = await against('fragments', async ({ socket }) => {
        socket.write(frame(first, 'start', { fin: false }))
        return flood(socket, fragments, 20 * MIB)
      })
      assertBounded(run)
      assert.deepEqual(run.events, ['error LIB_ERR_WEBSOCKET_PROTOCOL 1008', 'messages 0', 'close 1006 false'])
      assert.deepEqual(run.closeCodes, [1008])
      assert.ok(run.written[0]! < 20 * MIB, 'the server could write its whole flood: the client never failed')
    })
  }

  it('discards what follows the server\'s close frame instead of buffering it for the close timeout', async () => {
    const junk = frame(BINARY, Buffer.alloc(MIB, 0x61))
    const run = await against('after-close', async ({ socket }) => {
      socket.write(closeFrame(1000, 'bye'))
      const sent = await flood(socket, junk, 400 * MIB)
      socket.end()
      return sent
    }, { allowHalfOpen: true })
    assertBounded(run)
    assert.deepEqual(run.events, ['messages 0', 'close 1000 true'])
    assert.deepEqual(run.closeCodes, [1000])
    assert.ok(run.written[0]! >= 400 * MIB, 'the client stopped reading instead of discarding')
  })

  it('stops reading while a compressed message inflates, and inflates nothing once it closed', async () => {
    // Each message is 8 KiB on the wire and 8 MiB inflated: far faster to send than to inflate.
    const bomb = frame(BINARY, deflated(Buffer.alloc(8 * MIB)), { rsv: 0x40 })
    const burst = Buffer.concat(Array.from({ length: 64 }, () => bomb))
    let closing = false
    const run = await against('inflate', async (connection) => {
      void connection.closeFrame.then(() => { closing = true })
      const sent = await flood(connection.socket, burst, 400 * MIB, () => closing)
      await connection.closeFrame
      connection.socket.end(closeFrame(1000))
      return sent
    }, { extensions: 'permessage-deflate; server_no_context_takeover; client_no_context_takeover' })
    assertBounded(run)
    assert.deepEqual(run.events, ['messages 8', 'close 1000 true'])
    assert.deepEqual(run.closeCodes, [1000])
    assert.ok(run.written[0]! < 400 * MIB, 'the server wrote its whole flood: the client read on while inflating')
  })

  it('answers a ping flood from a server that never reads with a bounded backlog of pongs', async () => {
    const pings = Buffer.concat(Array.from({ length: 4096 }, () => frame(PING, Buffer.alloc(125, 0x70))))
    const run = await against('pings', async (connection) => {
      const { socket } = connection
      // The server never reads until its flood is over.
      socket.pause()
      const sent = await flood(socket, pings, 120 * MIB)
      socket.write(closeFrame(1000))
      socket.resume()
      await connection.closeFrame
      socket.end()
      return sent
    })
    assertBounded(run)
    assert.deepEqual(run.events, ['messages 0', 'close 1000 true'])
    assert.deepEqual(run.closeCodes, [1000])
    assert.ok(run.written[0]! >= 120 * MIB, 'the client stopped reading')
  })
})

describe('WebSocketStream after readable.cancel() (client in a child process)', () => {
  it('closes cleanly when the server answers the cancel with messages and a close frame', async () => {
    const run = await against('stream-cancel', async (connection) => {
      connection.socket.write(frame(TEXT, 'first'))
      await new Promise<void>((resolve) => { connection.socket.once('data', () => resolve()) })
      // Messages that were under way when the reader cancelled, then the close.
      connection.socket.write(Buffer.concat([frame(TEXT, 'late'), frame(BINARY, 'later')]))
      await connection.closeFrame
      connection.socket.end(closeFrame(1000, 'ok'))
      return 0
    })
    assertBounded(run)
    assert.deepEqual(run.events, ['read first', 'cancelled', 'closed 1000 ok'])
  })

  it('closes cleanly when the server closes right after the cancel', async () => {
    const run = await against('stream-cancel', async (connection) => {
      connection.socket.write(frame(TEXT, 'first'))
      await connection.closeFrame
      connection.socket.end(closeFrame(1000))
      return 0
    })
    assertBounded(run)
    assert.deepEqual(run.events, ['read first', 'cancelled', 'closed 1000 '])
  })
})
