// The session against a scripted hostile server: one line per case, the RFC section in its name.
// Each case opens a real connection on 127.0.0.1, sends GET on stream 1, lets the server's
// script answer, and checks the session's reaction: the GOAWAY or RST_STREAM code it sent, the
// error its caller got (naming the limit, for a limit), and that the socket closed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { H2ProtocolError } from '../../../../src/h2/framing/protocol-error.js'
import { ErrorCode as E, Flag as F, FrameType as T } from '../../../../src/h2/framing/protocol.js'
import type { H2SessionInit } from '../../../../src/h2/framing/session-options.js'
import type { HostileConnection, HostileOptions } from './hostile-server.js'
import { startHostileServer } from './hostile-server.js'
import { GET, OK, StreamRecorder, openSession } from './session-harness.js'
import { rawFrame, u32 } from './raw-frames.js'

type Expect = { goaway: number, limit?: string, streamClean?: boolean } | { reset: number } | { notProcessed: true }

interface Case {
  name: string
  script: (c: HostileConnection) => unknown
  expect: Expect
  options?: H2SessionInit
  server?: HostileOptions
  /** Keep the request body open (stream 1 stays half-closed only on the server's side). */
  bodyOpen?: boolean
  /** The stream's reader does not read: no window comes back. */
  paused?: boolean
}

const PING = Buffer.alloc(8)
const many = (count: number, frame: Buffer): Buffer => Buffer.concat(Array.from({ length: count }, () => frame))
const goaway = (code: number, limit?: string): Expect => limit === undefined ? { goaway: code } : { goaway: code, limit }
const reset = (code: number): Expect => ({ reset: code })
const openBlock = (c: HostileConnection): void => { c.send(T.HEADERS, 0, 1, Buffer.from([0x00, 0x01])) }

const cases: Case[] = [
  { name: 'a server preface that is not SETTINGS (RFC 9113 section 3.4)', server: { preface: false }, script: (c) => { c.send(T.PING, 0, 0, PING) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'a frame over SETTINGS_MAX_FRAME_SIZE (section 4.2)', script: (c) => { c.send(T.DATA, 0, 1, Buffer.alloc(16_385)) }, expect: goaway(E.FRAME_SIZE_ERROR, 'maxFrameSize') },
  { name: 'a field block that does not decode (section 4.3)', script: (c) => { c.send(T.HEADERS, F.END_HEADERS, 1, Buffer.from([0x82])) }, expect: goaway(E.COMPRESSION_ERROR) },
  { name: 'HEADERS on an idle stream (section 5.1)', script: (c) => { c.headers(3, OK, true) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'HEADERS on an even, server-initiated stream (section 5.1.1)', script: (c) => { c.headers(2, OK, true) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'WINDOW_UPDATE on an idle stream (section 5.1)', script: (c) => { c.windowUpdate(7, 1) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'DATA on a closed stream (section 5.1)', script: (c) => { c.headers(1, OK, true); c.send(T.DATA, 0, 1, Buffer.from('x')) }, expect: { goaway: E.STREAM_CLOSED, streamClean: true } },
  { name: 'HEADERS after the server ended a stream the client still sends on (section 5.1, half-closed)', bodyOpen: true, script: (c) => { c.headers(1, OK, true); c.headers(1, [['x-late', '1']], true) }, expect: reset(E.STREAM_CLOSED) },
  { name: 'padding as long as the payload (section 6.1)', script: (c) => { c.headers(1, OK, false); c.send(T.DATA, F.PADDED, 1, Buffer.from([4, 0, 0, 0])) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'DATA on stream 0 (section 6.1)', script: (c) => { c.send(T.DATA, 0, 0, Buffer.from('x')) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'PRIORITY of 4 bytes, a stream error (section 6.3)', script: (c) => { c.send(T.PRIORITY, 0, 1, Buffer.alloc(4)) }, expect: reset(E.FRAME_SIZE_ERROR) },
  { name: 'RST_STREAM of 3 bytes (section 6.4)', script: (c) => { c.send(T.RST_STREAM, 0, 1, Buffer.alloc(3)) }, expect: goaway(E.FRAME_SIZE_ERROR) },
  { name: 'RST_STREAM on an idle stream (section 6.4)', script: (c) => { c.send(T.RST_STREAM, 0, 5, u32(E.CANCEL)) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'SETTINGS of 7 bytes (section 6.5)', script: (c) => { c.send(T.SETTINGS, 0, 0, Buffer.alloc(7)) }, expect: goaway(E.FRAME_SIZE_ERROR) },
  { name: 'SETTINGS ACK with a payload (section 6.5)', script: (c) => { c.send(T.SETTINGS, F.ACK, 0, Buffer.alloc(6)) }, expect: goaway(E.FRAME_SIZE_ERROR) },
  { name: 'SETTINGS ACK with nothing to acknowledge (section 6.5)', script: (c) => { c.send(T.SETTINGS, F.ACK, 0) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'SETTINGS_ENABLE_PUSH=1 from a server (section 6.5.2)', script: (c) => { c.settings([[2, 1]]) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1 (section 6.5.2)', script: (c) => { c.settings([[4, 2 ** 31]]) }, expect: goaway(E.FLOW_CONTROL_ERROR) },
  { name: 'SETTINGS_MAX_FRAME_SIZE under 16384 (section 6.5.2)', script: (c) => { c.settings([[5, 100]]) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'no SETTINGS ACK within settingsTimeout (section 6.5.3)', server: { ackSettings: false }, options: { settingsTimeout: 50 }, script: () => {}, expect: goaway(E.SETTINGS_TIMEOUT, 'settingsTimeout') },
  { name: 'PUSH_PROMISE after SETTINGS_ENABLE_PUSH=0 (section 8.4)', script: (c) => { c.send(T.PUSH_PROMISE, F.END_HEADERS, 1, u32(2)) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'PING of 7 bytes (section 6.7)', script: (c) => { c.send(T.PING, 0, 0, Buffer.alloc(7)) }, expect: goaway(E.FRAME_SIZE_ERROR) },
  { name: 'PING on stream 1 (section 6.7)', script: (c) => { c.send(T.PING, 0, 1, PING) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'GOAWAY of 7 bytes (section 6.8)', script: (c) => { c.send(T.GOAWAY, 0, 0, Buffer.alloc(7)) }, expect: goaway(E.FRAME_SIZE_ERROR) },
  { name: 'GOAWAY below an open stream: not processed, may be resent (section 6.8)', script: (c) => { c.send(T.GOAWAY, 0, 0, Buffer.concat([u32(0), u32(E.NO_ERROR)])) }, expect: { notProcessed: true } },
  { name: 'WINDOW_UPDATE of 0 on a stream (section 6.9)', script: (c) => { c.windowUpdate(1, 0) }, expect: reset(E.PROTOCOL_ERROR) },
  { name: 'WINDOW_UPDATE of 0 on the connection (section 6.9)', script: (c) => { c.windowUpdate(0, 0) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'DATA over the stream\'s window (section 6.9.1)', options: { initialWindowSize: 65_535, connectionWindowSize: 1 << 20 }, paused: true, script: (c) => { c.headers(1, OK, false); c.write(many(5, rawFrame(T.DATA, 0, 1, Buffer.alloc(16_384)))) }, expect: reset(E.FLOW_CONTROL_ERROR) },
  { name: 'DATA over the connection\'s window (section 6.9.1): one frame past it, as the window is given back as DATA arrives', options: { initialWindowSize: 1 << 20, connectionWindowSize: 65_535, maxFrameSize: 1 << 17 }, paused: true, script: (c) => { c.headers(1, OK, false); c.write(rawFrame(T.DATA, 0, 1, Buffer.alloc(70_000))) }, expect: goaway(E.FLOW_CONTROL_ERROR) },
  { name: 'WINDOW_UPDATE past 2^31-1 on the connection (section 6.9.1)', script: (c) => { c.windowUpdate(0, 2 ** 31 - 1) }, expect: goaway(E.FLOW_CONTROL_ERROR) },
  { name: 'WINDOW_UPDATE past 2^31-1 on a stream (section 6.9.1)', script: (c) => { c.windowUpdate(1, 2 ** 31 - 1) }, expect: reset(E.FLOW_CONTROL_ERROR) },
  { name: 'SETTINGS_INITIAL_WINDOW_SIZE taking an open stream\'s window past 2^31-1 (section 6.9.2)', script: (c) => { c.windowUpdate(1, 2 ** 31 - 1 - 65_535); c.settings([[4, 100_000]]) }, expect: goaway(E.FLOW_CONTROL_ERROR) },
  { name: 'CONTINUATION without an open field block (section 6.10)', script: (c) => { c.send(T.CONTINUATION, F.END_HEADERS, 1) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'a PING inside a field block (section 6.10)', script: (c) => { openBlock(c); c.send(T.PING, 0, 0, PING) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'CONTINUATION of another stream inside a field block (section 6.10)', script: (c) => { openBlock(c); c.send(T.CONTINUATION, F.END_HEADERS, 3) }, expect: goaway(E.PROTOCOL_ERROR) },
  { name: 'a response head without :status (section 8.3.2)', script: (c) => { c.headers(1, [['x-no-status', '1']], true) }, expect: reset(E.PROTOCOL_ERROR) },
  { name: 'status 101 over HTTP/2 (section 8.6)', script: (c) => { c.headers(1, [[':status', '101']], false) }, expect: reset(E.PROTOCOL_ERROR) },
  { name: 'a 1xx head with END_STREAM (section 8.1)', script: (c) => { c.headers(1, [[':status', '103']], true) }, expect: reset(E.PROTOCOL_ERROR) },
  { name: 'trailers without END_STREAM (section 8.1)', script: (c) => { c.headers(1, OK, false); c.headers(1, [['x-trailer', '1']], false) }, expect: reset(E.PROTOCOL_ERROR) },
  { name: 'DATA before the response head (section 8.1)', script: (c) => { c.send(T.DATA, 0, 1, Buffer.from('x')) }, expect: reset(E.PROTOCOL_ERROR) },
  { name: 'RST_STREAM REFUSED_STREAM: not processed, may be resent (section 8.7)', script: (c) => { c.send(T.RST_STREAM, 0, 1, u32(E.REFUSED_STREAM)) }, expect: { notProcessed: true } },
  { name: 'a field block that never ends: CONTINUATION flood (section 10.5, CVE-2024-27316)', script: (c) => { openBlock(c); c.write(many(100, rawFrame(T.CONTINUATION, 0, 1, Buffer.from([0])))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxContinuationFrames') },
  { name: 'a field block over maxHeaderBlockBytes before decoding (section 10.5.1)', options: { maxHeaderBlockBytes: 1000 }, script: (c) => { c.send(T.HEADERS, 0, 1, Buffer.alloc(800)); c.send(T.CONTINUATION, 0, 1, Buffer.alloc(800)) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxHeaderBlockBytes') },
  { name: 'a SETTINGS flood (section 10.5, CVE-2019-9515)', script: (c) => { c.write(many(200, rawFrame(T.SETTINGS, 0, 0))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxSettings') },
  { name: 'a PING flood (section 10.5, CVE-2019-9512)', script: (c) => { c.write(many(200, rawFrame(T.PING, 0, 0, PING))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxPings') },
  { name: 'an RST_STREAM flood (section 10.5, rapid reset, CVE-2023-44487)', script: (c) => { c.write(many(1100, rawFrame(T.RST_STREAM, 0, 1, u32(E.CANCEL)))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxResets') },
  { name: 'an empty DATA flood (section 10.5, CVE-2019-9518)', script: (c) => { c.headers(1, OK, false); c.write(many(200, rawFrame(T.DATA, 0, 1))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxEmptyFrames') },
  { name: 'an empty CONTINUATION flood (section 10.5, CVE-2019-9518)', options: { maxContinuationFrames: 10_000 }, script: (c) => { openBlock(c); c.write(many(200, rawFrame(T.CONTINUATION, 0, 1))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxEmptyFrames') },
  { name: 'a PRIORITY flood (section 10.5, CVE-2019-9513)', script: (c) => { c.write(many(1100, rawFrame(T.PRIORITY, 0, 1, Buffer.concat([u32(3), Buffer.from([1])])))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxIgnoredFrames') },
  { name: 'a zero WINDOW_UPDATE flood (section 10.5)', script: (c) => { c.write(many(200, rawFrame(T.WINDOW_UPDATE, 0, 1, u32(0)))) }, expect: goaway(E.ENHANCE_YOUR_CALM, 'maxStreamErrors') },
  { name: 'SETTINGS_ENABLE_CONNECT_PROTOCOL going back to 0 (RFC 8441 section 3)', script: (c) => { c.settings([[8, 1]]); c.settings([[8, 0]]) }, expect: goaway(E.PROTOCOL_ERROR) }
]

describe('H2Session against a hostile server', () => {
  for (const testCase of cases) {
    it(`answers ${testCase.name}`, { timeout: 10_000 }, async () => {
      const server = await startHostileServer(async (c) => {
        await c.waitFor((frame) => frame.type === T.HEADERS && frame.streamId === 1)
        await testCase.script(c)
      }, testCase.server)
      try {
        const opened = await openSession(server.port, testCase.options)
        const stream = StreamRecorder.open(opened.session, GET, testCase.bodyOpen !== true)
        stream.paused = testCase.paused === true
        const c = await server.connection()
        const expect = testCase.expect
        if ('goaway' in expect) {
          assert.equal(await c.goawayCode(), expect.goaway)
          const error = await opened.closed
          assert.ok(error instanceof H2ProtocolError, String(error))
          assert.equal(error.errorCode, expect.goaway)
          assert.equal(error.streamId, 0)
          assert.equal(error.limit, expect.limit ?? error.limit)
          if (expect.limit !== undefined) assert.match(error.message, new RegExp(expect.limit))
          const closed = await stream.closed
          if (expect.streamClean === true) assert.equal(closed.error, null)
          else assert.ok(closed.error instanceof H2ProtocolError)
          await opened.socketClosed
          assert.equal(opened.session.closed, true)
        } else if ('reset' in expect) {
          assert.equal(await c.resetCode(1), expect.reset)
          const closed = await stream.closed
          assert.ok(closed.error instanceof H2ProtocolError, String(closed.error))
          assert.equal(closed.error.errorCode, expect.reset)
          assert.equal(closed.error.streamId, 1)
          assert.equal(closed.notProcessed, false)
          assert.equal(opened.session.closed, false)
          opened.session.close()
          assert.equal(await opened.closed, null)
          await opened.socketClosed
        } else {
          const closed = await stream.closed
          assert.equal(closed.notProcessed, true)
          assert.ok(closed.error instanceof H2ProtocolError)
          assert.equal(closed.error.remote, true)
          opened.session.destroy()
          await opened.socketClosed
        }
      } finally {
        await server.close()
      }
    })
  }
})

