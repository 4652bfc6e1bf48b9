// The session's normal paths against a scripted server on 127.0.0.1: what it sends, what its
// listeners hear, and how its windows move.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { NotSupportedError, SocketError } from '../../../../src/errors.js'
import { ErrorCode as E, Flag as F, FrameType as T, SettingId } from '../../../../src/h2/framing/protocol.js'
import type { HostileConnection } from './hostile-server.js'
import { startHostileServer } from './hostile-server.js'
import type { ClientFrame } from './hostile-server.js'
import { decodeLiteralBlock } from './literal-codec.js'
import { GET, OK, StreamRecorder, openSession } from './session-harness.js'
import { padded, rawFrame, u32 } from './raw-frames.js'

const POST = GET.map(([name, value]): [string, string] => [name, name === ':method' ? 'POST' : value])
const isHeaders = (id: number) => (frame: ClientFrame): boolean => frame.type === T.HEADERS && frame.streamId === id
const windowUpdates = (c: HostileConnection, id: number): number[] =>
  c.frames.filter((frame) => frame.type === T.WINDOW_UPDATE && frame.streamId === id).map((frame) => frame.payload.readUInt32BE(0))
const settingsOf = (frame: ClientFrame): Map<number, number> =>
  new Map(Array.from({ length: frame.payload.length / 6 }, (_, i): [number, number] => [frame.payload.readUInt16BE(i * 6), frame.payload.readUInt32BE(i * 6 + 2)]))

async function withServer (script: (c: HostileConnection) => unknown, run: (port: number, c: () => Promise<HostileConnection>) => Promise<void>): Promise<void> {
  const server = await startHostileServer(script)
  try {
    await run(server.port, server.connection)
  } finally {
    await server.close()
  }
}

describe('H2Session', { timeout: 20_000 }, () => {
  it('sends the preface on a plain socket (h2c by prior knowledge), its SETTINGS, and ACKs the server\'s', async () => {
    await withServer(() => {}, async (port, connection) => {
      const opened = await openSession(port, { initialWindowSize: 100_000, connectionWindowSize: 200_000 })
      const c = await connection()
      const settings = await c.waitFor((frame) => frame.type === T.SETTINGS && frame.flags === 0)
      await c.waitFor((frame) => frame.type === T.SETTINGS && frame.flags === F.ACK)
      assert.equal(c.prefaceValid, true)
      assert.deepEqual([...settingsOf(settings)], [[SettingId.ENABLE_PUSH, 0], [SettingId.INITIAL_WINDOW_SIZE, 100_000], [SettingId.MAX_HEADER_LIST_SIZE, 16_384]])
      assert.deepEqual(windowUpdates(c, 0), [200_000 - 65_535])
      opened.session.close()
      assert.equal(await opened.closed, null)
      assert.equal((await c.waitFor((frame) => frame.type === T.GOAWAY)).payload.readUInt32BE(4), E.NO_ERROR)
      await opened.socketClosed
    })
  })

  it('delivers 1xx heads, the response, padded data and trailers, ignoring PRIORITY and unknown frames (sections 5.5, 6.1, 8.1)', async () => {
    await withServer(async (c) => {
      await c.waitFor(isHeaders(1))
      c.headers(1, [[':status', '103'], ['link', '</a>']], false)
      c.send(T.PRIORITY, 0, 1, Buffer.concat([u32(3), Buffer.from([1])]))
      c.headers(1, OK, false)
      c.send(0x42, 0xff, 1, Buffer.from('ignored'))
      c.send(T.DATA, F.PADDED, 1, padded(Buffer.from('hello'), 10))
      c.headers(1, [['x-checksum', 'abc']], true)
    }, async (port) => {
      const opened = await openSession(port)
      const stream = StreamRecorder.open(opened.session)
      assert.deepEqual(await stream.closed, { error: null, notProcessed: false })
      assert.deepEqual(stream.heads, [
        ['informational', [[':status', '103'], ['link', '</a>']], false],
        ['response', OK, false],
        ['trailers', [['x-checksum', 'abc']], true]
      ])
      assert.equal(Buffer.concat(stream.data).toString(), 'hello')
      assert.equal(opened.session.openStreams, 0)
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('opens streams with odd, increasing ids and sends the request\'s header block (section 5.1.1)', async () => {
    await withServer(() => {}, async (port, connection) => {
      const opened = await openSession(port)
      const ids = [0, 1, 2].map(() => StreamRecorder.open(opened.session).id)
      assert.deepEqual(ids, [1, 3, 5])
      const c = await connection()
      const block = await c.waitFor(isHeaders(5))
      assert.equal(block.flags & (F.END_STREAM | F.END_HEADERS), F.END_STREAM | F.END_HEADERS)
      assert.deepEqual(decodeLiteralBlock([block.payload]), GET)
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('answers a PING with its payload and measures the round trip of its own (section 6.7)', async () => {
    await withServer((c) => { c.send(T.PING, 0, 0, Buffer.from('pingpong')) }, async (port, connection) => {
      const opened = await openSession(port)
      const c = await connection()
      const ack = await c.waitFor((frame) => frame.type === T.PING && frame.flags === F.ACK)
      assert.equal(ack.payload.toString(), 'pingpong')
      const ping = new Promise<number>((resolve) => { opened.session.ping(resolve) })
      const sent = await c.waitFor((frame) => frame.type === T.PING && frame.flags === 0)
      c.send(T.PING, F.ACK, 0, sent.payload)
      const rtt = await ping
      assert.ok(rtt >= 0)
      assert.equal(opened.session.rtt, rtt)
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('sends keep-alive PINGs and ends the session naming pingTimeout when none is answered', async () => {
    await withServer(() => {}, async (port, connection) => {
      const opened = await openSession(port, { pingInterval: 10, pingTimeout: 30 })
      const c = await connection()
      await c.waitFor((frame) => frame.type === T.PING && frame.flags === 0)
      const error = await opened.closed
      assert.ok(error instanceof SocketError)
      assert.match(error.message, /pingTimeout/)
      await opened.socketClosed
    })
  })

  it('allows :protocol (extended CONNECT) only after the server sent SETTINGS_ENABLE_CONNECT_PROTOCOL=1 (RFC 8441)', async () => {
    const connect: Array<[string, string]> = [[':method', 'CONNECT'], [':protocol', 'websocket'], [':scheme', 'http'], [':authority', '127.0.0.1'], [':path', '/chat']]
    let enable: () => void = () => {}
    const enabled = new Promise<void>((resolve) => { enable = resolve })
    await withServer(async (c) => {
      await enabled
      c.settings([[SettingId.ENABLE_CONNECT_PROTOCOL, 1]])
    }, async (port, connection) => {
      const opened = await openSession(port, {})
      const c = await connection()
      await c.waitFor((frame) => frame.type === T.SETTINGS && frame.flags === F.ACK)
      assert.throws(() => StreamRecorder.open(opened.session, connect, false), NotSupportedError)
      const settled = new Promise<void>((resolve) => { opened.session.ping(() => { resolve() }) })
      enable()
      c.send(T.PING, F.ACK, 0, (await c.waitFor((frame) => frame.type === T.PING)).payload)
      await settled
      assert.equal(opened.session.remoteSettings.enableConnectProtocol, true)
      const stream = StreamRecorder.open(opened.session, connect, false)
      assert.deepEqual(decodeLiteralBlock([(await c.waitFor(isHeaders(stream.id))).payload]), connect)
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('sends a body within the peer\'s windows, waits for WINDOW_UPDATE, and follows SETTINGS_INITIAL_WINDOW_SIZE (sections 6.9, 6.9.2)', async () => {
    const body = Buffer.alloc(200_000, 0x61)
    const received = (c: HostileConnection): number => c.frames.filter((frame) => frame.type === T.DATA).reduce((sum, frame) => sum + frame.payload.length, 0)
    await withServer(() => {}, async (port, connection) => {
      const opened = await openSession(port)
      const stream = StreamRecorder.open(opened.session, POST, false)
      assert.equal(opened.session.write(stream.id, body, true), false)
      const c = await connection()
      await c.waitFor(() => received(c) === 65_535)
      // A window made negative by a smaller initial window, then reopened (section 6.9.2).
      c.settings([[SettingId.INITIAL_WINDOW_SIZE, 1000]])
      c.windowUpdate(0, 1_000_000)
      await c.waitFor((frame) => frame.type === T.SETTINGS && frame.flags === F.ACK && c.frames.filter((f) => f.type === T.SETTINGS && f.flags === F.ACK).length === 1)
      c.windowUpdate(stream.id, 64_535 + 10_000)
      await c.waitFor(() => received(c) === 65_535 + 10_000)
      assert.equal(stream.writable, 0)
      c.settings([[SettingId.INITIAL_WINDOW_SIZE, 1_000_000]])
      const last = await c.waitFor((frame) => frame.type === T.DATA && (frame.flags & F.END_STREAM) !== 0)
      assert.ok(last.payload.length <= 16_384)
      assert.equal(received(c), body.length)
      assert.equal(stream.writable, 1)
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('sends trailers after the queued data, ending the stream', async () => {
    await withServer(() => {}, async (port, connection) => {
      const opened = await openSession(port)
      const stream = StreamRecorder.open(opened.session, POST, false)
      opened.session.write(stream.id, Buffer.from('body'), false)
      opened.session.trailers(stream.id, [['x-sum', '1']])
      const c = await connection()
      const trailers = await c.waitFor((frame) => frame.type === T.HEADERS && frame.streamId === stream.id && (frame.flags & F.END_STREAM) !== 0)
      assert.deepEqual(decodeLiteralBlock([trailers.payload]), [['x-sum', '1']])
      const kinds = c.frames.filter((frame) => frame.streamId === stream.id).map((frame) => frame.type)
      assert.deepEqual(kinds, [T.HEADERS, T.DATA, T.HEADERS])
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('returns a stream\'s window only as its reader consumes, the connection\'s as DATA arrives: a paused reader stops its stream, not the others (section 6.9)', async () => {
    await withServer(async (c) => {
      await c.waitFor(isHeaders(1))
      c.headers(1, OK, false)
      c.write(Buffer.concat(Array.from({ length: 3 }, () => rawFrame(T.DATA, 0, 1, Buffer.alloc(16_384)))))
    }, async (port, connection) => {
      const opened = await openSession(port, { initialWindowSize: 65_535, connectionWindowSize: 65_535 })
      const stream = StreamRecorder.open(opened.session)
      stream.paused = true
      await stream.received(49_152)
      const c = await connection()
      // A PING round trip: every frame the session sent for the data is at the server by then.
      const pinged = new Promise<void>((resolve) => { opened.session.ping(() => { resolve() }) })
      c.send(T.PING, F.ACK, 0, (await c.waitFor((frame) => frame.type === T.PING)).payload)
      await pinged
      assert.deepEqual(windowUpdates(c, 1), [])
      // Half the connection's window arrived: it is given back although nobody read it yet.
      assert.deepEqual(windowUpdates(c, 0), [32_768])
      opened.session.consumed(1, 49_152)
      await c.waitFor((frame) => frame.type === T.WINDOW_UPDATE && frame.streamId === 1)
      assert.deepEqual(windowUpdates(c, 1), [49_152])
      assert.deepEqual(windowUpdates(c, 0), [32_768])
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('grows the receive window when a round trip delivers most of it (adaptive window)', async () => {
    await withServer(async (c) => {
      await c.waitFor(isHeaders(1))
      c.headers(1, OK, false)
      c.send(T.DATA, 0, 1, Buffer.alloc(16_384))
      // The estimator's PING: the whole window arrives before its ACK, as on a link the window limits.
      const ping = await c.waitFor((frame) => frame.type === T.PING && frame.flags === 0)
      c.write(Buffer.concat(Array.from({ length: 3 }, () => rawFrame(T.DATA, 0, 1, Buffer.alloc(16_383)))))
      c.send(T.PING, F.ACK, 0, ping.payload)
    }, async (port, connection) => {
      const opened = await openSession(port, { adaptiveWindow: true, initialWindowSize: 65_535, connectionWindowSize: 65_535, maxAdaptiveWindow: 1 << 20 })
      const stream = StreamRecorder.open(opened.session)
      const c = await connection()
      const grown = await c.waitFor((frame) => frame.type === T.SETTINGS && frame.flags === 0 && settingsOf(frame).size === 1)
      const window = settingsOf(grown).get(SettingId.INITIAL_WINDOW_SIZE)!
      assert.ok(window > 65_535 && window <= 1 << 20, String(window))
      await c.waitFor((frame) => frame.type === T.WINDOW_UPDATE && frame.streamId === 0 && frame.payload.readUInt32BE(0) === window - 65_535)
      assert.equal(stream.bytes, 65_533)
      opened.session.destroy()
      await opened.socketClosed
    })
  })

  it('on GOAWAY finishes the streams up to its last stream id and reports the others not processed (section 6.8)', async () => {
    await withServer(async (c) => {
      await c.waitFor(isHeaders(3))
      c.send(T.GOAWAY, 0, 0, Buffer.concat([u32(1), u32(E.NO_ERROR)]))
      // The response waits for the client's PING, sent once the test checked the session mid-GOAWAY.
      await c.waitFor((frame) => frame.type === T.PING)
      c.headers(1, OK, true)
    }, async (port) => {
      const opened = await openSession(port)
      const first = StreamRecorder.open(opened.session)
      const second = StreamRecorder.open(opened.session)
      const refused = await second.closed
      assert.equal(refused.notProcessed, true)
      assert.equal(opened.session.canOpenStream, false)
      assert.throws(() => StreamRecorder.open(opened.session), /GOAWAY/)
      opened.session.ping()
      assert.deepEqual(await first.closed, { error: null, notProcessed: false })
      assert.deepEqual(opened.goaways, [[E.NO_ERROR, 1]])
      assert.equal(await opened.closed, null)
      await opened.socketClosed
    })
  })

  it('after a GOAWAY with an error, ends the streams it kept with that error when the server closes (section 6.8)', async () => {
    await withServer(async (c) => {
      await c.waitFor(isHeaders(1))
      c.send(T.GOAWAY, 0, 0, Buffer.concat([u32(1), u32(E.INTERNAL_ERROR), Buffer.from('restarting')]))
      c.socket.end()
    }, async (port) => {
      const opened = await openSession(port)
      const stream = StreamRecorder.open(opened.session)
      const closed = await stream.closed
      assert.equal(closed.notProcessed, false)
      assert.equal((closed.error as { errorCode?: number }).errorCode, E.INTERNAL_ERROR)
      const error = await opened.closed
      assert.equal((error as { errorCode?: number, remote?: boolean }).errorCode, E.INTERNAL_ERROR)
      assert.equal((error as { remote?: boolean }).remote, true)
      assert.deepEqual(opened.goaways, [[E.INTERNAL_ERROR, 1]])
      await opened.socketClosed
    })
  })

  it('discards frames the server sent on a stream before it heard this side\'s RST_STREAM (section 5.1, closed)', async () => {
    await withServer(async (c) => {
      await c.waitFor((frame) => frame.type === T.RST_STREAM)
      c.headers(1, OK, false)
      c.send(T.DATA, 0, 1, Buffer.alloc(100))
      c.send(T.PING, 0, 0, Buffer.alloc(8))
    }, async (port, connection) => {
      const opened = await openSession(port, { connectionWindowSize: 65_535 })
      const stream = StreamRecorder.open(opened.session)
      opened.session.reset(stream.id)
      const closed = await stream.closed
      assert.equal((closed.error as { errorCode?: number }).errorCode, E.CANCEL)
      const c = await connection()
      await c.waitFor((frame) => frame.type === T.PING && frame.flags === F.ACK)
      assert.equal(opened.session.closed, false)
      assert.equal(stream.heads.length, 0)
      opened.session.destroy()
      await opened.socketClosed
    })
  })
})
