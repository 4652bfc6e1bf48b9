/**
 * The protocol case table: what a hostile server sends after the handshake and what RFC 6455 /
 * RFC 7692 require of the client, one line per case, grouped like the Autobahn testsuite's case
 * groups. `client` is the code of the close frame the client must send (its echo of the server's
 * close, or the code it fails the connection with), `event` the code its close event reports
 * (1006 whenever the client had to fail the connection). Unless a case sends a close frame of its
 * own, the server ends with a close 1000 after its frames.
 */

import { closeFrame, deflated, frame } from '../../helpers/hostile-websocket-server.js'

const T = 0x1
const B = 0x2
const C = 0x0
const PING = 0x9
const PONG = 0xa
const RSV1 = 0x40
const RSV2 = 0x20
const RSV3 = 0x10
const DEFLATE = 'permessage-deflate; server_no_context_takeover; client_no_context_takeover'

/** One case: what the server sends and what the client must do. */
export interface ProtocolCase {
  id: string
  title: string
  send: Buffer[]
  /** Messages the client must deliver: text, or `hex:` and the bytes of a binary one. */
  messages?: string[]
  /** Payloads (hex) of the pongs the client must send. */
  pongs?: string[]
  client: number | null
  event: number
  /** `Sec-WebSocket-Extensions` the server answers with. */
  extensions?: string
  /** The client's `maxMessageSize`. */
  maxMessageSize?: number
  /** The client's `maxFragments`. */
  maxFragments?: number
}

const bytes = (n: number, fill = 0x2a): Buffer => Buffer.alloc(n, fill)
const text = (n: number): string => '*'.repeat(n)
const hex = (data: Buffer | string): string => `hex:${Buffer.from(data).toString('hex')}`
const bad = (...values: number[]): Buffer => Buffer.from(values)
const fails = (code: number): { client: number, event: number } => ({ client: code, event: 1006 })
const ok = { client: 1000, event: 1000 }

/** The table. */
export const protocolCases: ProtocolCase[] = [
  // 1: framing, payload lengths around the 7-bit, 16-bit and 64-bit length forms
  ...[0, 125, 126, 127, 128, 65535, 65536].map((n): ProtocolCase => ({ id: `1.1.${n}`, title: `text message of ${n} bytes`, send: [frame(T, text(n))], messages: [text(n)], ...ok })),
  ...[0, 125, 126, 65535, 65536].map((n): ProtocolCase => ({ id: `1.2.${n}`, title: `binary message of ${n} bytes`, send: [frame(B, bytes(n))], messages: [hex(bytes(n))], ...ok })),
  { id: '1.3.1', title: 'frames cut into single bytes arrive whole', send: [...frame(T, 'chopped')].map((b) => Buffer.from([b])), messages: ['chopped'], ...ok },
  { id: '1.3.2', title: 'several frames in one chunk', send: [Buffer.concat([frame(T, 'a'), frame(B, 'b'), frame(T, 'c')])], messages: ['a', hex('b'), 'c'], ...ok },
  { id: '1.4.1', title: 'a 64-bit length with the top bit set', send: [bad(0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 1)], ...fails(1002) },
  { id: '1.4.2', title: 'a masked server frame', send: [bad(0x81, 0x81, 1, 2, 3, 4, 0x61)], ...fails(1002) },
  // 2: pings and pongs
  { id: '2.1', title: 'ping without payload is answered with an empty pong', send: [frame(PING)], pongs: [''], ...ok },
  { id: '2.2', title: 'ping with text payload is answered with the same payload', send: [frame(PING, 'hello')], pongs: [Buffer.from('hello').toString('hex')], ...ok },
  { id: '2.3', title: 'ping with binary payload is answered with the same payload', send: [frame(PING, bad(0, 0xff, 0xfe))], pongs: ['00fffe'], ...ok },
  { id: '2.4', title: 'ping with 125 bytes is answered', send: [frame(PING, bytes(125))], pongs: [bytes(125).toString('hex')], ...ok },
  { id: '2.5', title: 'ping with 126 bytes fails the connection', send: [frame(PING, bytes(126))], ...fails(1002) },
  { id: '2.6', title: 'unsolicited pong is ignored', send: [frame(PONG, 'unasked'), frame(T, 'after')], messages: ['after'], ...ok },
  { id: '2.7', title: 'ten pings get ten pongs in order', send: Array.from({ length: 10 }, (_, i) => frame(PING, String(i))), pongs: Array.from({ length: 10 }, (_, i) => Buffer.from(String(i)).toString('hex')), ...ok },
  { id: '2.8', title: 'ping with 125 bytes cut into single bytes', send: [...frame(PING, bytes(125))].map((b) => Buffer.from([b])), pongs: [bytes(125).toString('hex')], ...ok },
  // 3: reserved bits
  { id: '3.1', title: 'RSV1 on text without an extension', send: [frame(T, 'x', { rsv: RSV1 })], ...fails(1002) },
  { id: '3.2', title: 'RSV2 on text', send: [frame(T, 'x', { rsv: RSV2 })], ...fails(1002) },
  { id: '3.3', title: 'RSV3 after a valid message', send: [frame(T, 'ok'), frame(T, 'x', { rsv: RSV3 })], messages: ['ok'], ...fails(1002) },
  { id: '3.4', title: 'all RSV bits on binary', send: [frame(B, 'x', { rsv: RSV1 | RSV2 | RSV3 })], ...fails(1002) },
  { id: '3.5', title: 'RSV2 on ping', send: [frame(PING, 'x', { rsv: RSV2 })], ...fails(1002) },
  { id: '3.6', title: 'RSV1 on close', send: [Buffer.from([0xc8, 0x00])], ...fails(1002) },
  // 4: opcodes
  ...[3, 4, 5, 6, 7].map((op): ProtocolCase => ({ id: `4.1.${op}`, title: `reserved data opcode 0x${op.toString(16)}`, send: [frame(op, 'x')], ...fails(1002) })),
  ...[0xb, 0xc, 0xd, 0xe, 0xf].map((op): ProtocolCase => ({ id: `4.2.${op}`, title: `reserved control opcode 0x${op.toString(16)}`, send: [frame(T, 'before'), frame(op, 'x')], messages: ['before'], ...fails(1002) })),
  // 5: fragmentation
  { id: '5.1', title: 'fragmented ping', send: [frame(PING, 'a', { fin: false }), frame(C, 'b')], ...fails(1002) },
  { id: '5.2', title: 'fragmented pong', send: [frame(PONG, 'a', { fin: false }), frame(C, 'b')], ...fails(1002) },
  { id: '5.3', title: 'text in two fragments', send: [frame(T, 'frag', { fin: false }), frame(C, 'ment')], messages: ['fragment'], ...ok },
  { id: '5.4', title: 'binary in three fragments', send: [frame(B, 'a', { fin: false }), frame(C, 'b', { fin: false }), frame(C, 'c')], messages: [hex('abc')], ...ok },
  { id: '5.5', title: 'a ping between fragments is answered at once', send: [frame(T, 'fra', { fin: false }), frame(PING, 'mid'), frame(C, 'gment')], messages: ['fragment'], pongs: [Buffer.from('mid').toString('hex')], ...ok },
  { id: '5.6', title: 'a pong between fragments is ignored', send: [frame(T, 'fra', { fin: false }), frame(PONG, 'mid'), frame(C, 'gment')], messages: ['fragment'], ...ok },
  { id: '5.7', title: 'fragments with empty payloads', send: [frame(T, '', { fin: false }), frame(C, '', { fin: false }), frame(C, '')], messages: [''], ...ok },
  { id: '5.8', title: 'continuation without a message', send: [frame(C, 'orphan')], ...fails(1002) },
  { id: '5.9', title: 'final continuation without a message', send: [frame(C, 'orphan', { fin: false })], ...fails(1002) },
  { id: '5.10', title: 'a new text message inside a fragmented one', send: [frame(T, 'a', { fin: false }), frame(T, 'b')], ...fails(1002) },
  { id: '5.11', title: 'a new binary message inside a fragmented one', send: [frame(B, 'a', { fin: false }), frame(B, 'b', { fin: false })], ...fails(1002) },
  { id: '5.12', title: 'fragments cut into single bytes', send: [...Buffer.concat([frame(T, 'ab', { fin: false }), frame(PING, 'p'), frame(C, 'cd')])].map((b) => Buffer.from([b])), messages: ['abcd'], pongs: ['70'], ...ok },
  // 6: UTF-8
  { id: '6.1', title: 'empty text message', send: [frame(T, '')], messages: [''], ...ok },
  { id: '6.2', title: 'multi-byte text in one frame', send: [frame(T, 'κόσμε 𝄞')], messages: ['κόσμε 𝄞'], ...ok },
  { id: '6.3', title: 'a code point split between fragments', send: [frame(T, bad(0xf0, 0x9d), { fin: false }), frame(C, bad(0x84, 0x9e))], messages: ['𝄞'], ...ok },
  { id: '6.4', title: 'text that is not UTF-8', send: [frame(T, bad(0xce, 0xba, 0xff))], ...fails(1007) },
  { id: '6.5', title: 'an encoded surrogate', send: [frame(T, bad(0xed, 0xa0, 0x80))], ...fails(1007) },
  { id: '6.6', title: 'an overlong slash', send: [frame(T, bad(0xc0, 0xaf))], ...fails(1007) },
  { id: '6.7', title: 'a code point above U+10FFFF', send: [frame(T, bad(0xf4, 0x90, 0x80, 0x80))], ...fails(1007) },
  { id: '6.8', title: 'text ending inside a code point', send: [frame(T, bad(0x61, 0xe2, 0x82))], ...fails(1007) },
  { id: '6.9', title: 'bad UTF-8 in the first fragment fails before the message ends', send: [frame(T, bad(0x61, 0xff), { fin: false })], ...fails(1007) },
  { id: '6.10', title: 'fragmented text ending inside a code point', send: [frame(T, 'a', { fin: false }), frame(C, bad(0xe2, 0x82))], ...fails(1007) },
  { id: '6.11', title: 'binary messages are not checked for UTF-8', send: [frame(B, bad(0xff, 0xfe))], messages: ['hex:fffe'], ...ok },
  // 7: close handling
  { id: '7.1', title: 'close without a body is echoed without one; reported as 1005', send: [closeFrame()], client: null, event: 1005 },
  { id: '7.2', title: 'close with 1000 and a reason', send: [closeFrame(1000, 'done')], client: 1000, event: 1000 },
  { id: '7.3', title: 'close with a one-byte body', send: [frame(0x8, bad(0x03))], ...fails(1002) },
  { id: '7.4', title: 'messages after the close frame are ignored', send: [closeFrame(1000), frame(T, 'late')], client: 1000, event: 1000 },
  { id: '7.5', title: 'a close reason of 123 bytes', send: [closeFrame(1000, text(123))], client: 1000, event: 1000 },
  { id: '7.6', title: 'a close reason that is not UTF-8', send: [closeFrame(1000, bad(0xff, 0xfe))], ...fails(1007) },
  ...[1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999].map((code): ProtocolCase => ({ id: `7.7.${code}`, title: `valid close code ${code} is echoed`, send: [closeFrame(code)], client: code, event: code })),
  ...[0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535].map((code): ProtocolCase => ({ id: `7.8.${code}`, title: `invalid close code ${code}`, send: [closeFrame(code)], ...fails(1002) })),
  { id: '7.9', title: 'a close frame between fragments ends the connection', send: [frame(T, 'a', { fin: false }), closeFrame(1000)], client: 1000, event: 1000 },
  // 9: limits
  { id: '9.1', title: 'a frame over the message size limit', send: [frame(B, bytes(1025))], maxMessageSize: 1024, ...fails(1009) },
  { id: '9.2', title: 'a frame exactly at the limit', send: [frame(B, bytes(1024))], maxMessageSize: 1024, messages: [hex(bytes(1024))], ...ok },
  { id: '9.3', title: 'fragments that together pass the limit', send: [frame(T, text(600), { fin: false }), frame(C, text(600))], maxMessageSize: 1024, ...fails(1009) },
  { id: '9.4', title: 'a message in more fragments than the limit', send: [frame(T, 'a', { fin: false }), frame(C, '', { fin: false }), frame(C, '', { fin: false }), frame(C, 'b')], maxFragments: 3, ...fails(1008) },
  { id: '9.5', title: 'a message in exactly as many fragments as the limit, empty ones included', send: [frame(B, 'a', { fin: false }), frame(C, '', { fin: false }), frame(C, 'b')], maxFragments: 3, messages: [hex('ab')], ...ok },
  { id: '9.7', title: 'empty fragments before the text of a message', send: [frame(T, '', { fin: false }), frame(C, '', { fin: false }), frame(C, 'é')], messages: ['é'], ...ok },
  { id: '9.8', title: 'a message of empty fragments only', send: [frame(B, '', { fin: false }), frame(C, '')], messages: ['hex:'], ...ok },
  { id: '9.6', title: 'the fragment count starts again with each message', send: [frame(T, 'a', { fin: false }), frame(C, 'b'), frame(T, 'c', { fin: false }), frame(C, 'd')], maxFragments: 2, messages: ['ab', 'cd'], ...ok },
  // 12/13: compression
  { id: '12.1', title: 'a compressed text message', extensions: DEFLATE, send: [frame(T, deflated('hello hello hello'), { rsv: RSV1 })], messages: ['hello hello hello'], ...ok },
  { id: '12.2', title: 'a compressed binary message', extensions: DEFLATE, send: [frame(B, deflated(bytes(5000)), { rsv: RSV1 })], messages: [hex(bytes(5000))], ...ok },
  { id: '12.3', title: 'a compressed message in fragments', extensions: DEFLATE, send: ((d: Buffer) => [frame(T, d.subarray(0, 3), { fin: false, rsv: RSV1 }), frame(C, d.subarray(3))])(deflated(text(300))), messages: [text(300)], ...ok },
  { id: '12.4', title: 'compressed and plain messages mixed', extensions: DEFLATE, send: [frame(T, deflated('one'), { rsv: RSV1 }), frame(T, 'two'), frame(T, deflated('three'), { rsv: RSV1 })], messages: ['one', 'two', 'three'], ...ok },
  { id: '12.5', title: 'RSV1 on a continuation frame', extensions: DEFLATE, send: [frame(T, deflated('ab'), { fin: false, rsv: RSV1 }), frame(C, '', { rsv: RSV1 })], ...fails(1002) },
  { id: '12.6', title: 'RSV1 on a ping', extensions: DEFLATE, send: [frame(PING, 'x', { rsv: RSV1 })], ...fails(1002) },
  { id: '12.7', title: 'compressed data that is not deflate', extensions: DEFLATE, send: [frame(T, bad(0xff, 0xff, 0xff, 0xff), { rsv: RSV1 })], ...fails(1007) },
  { id: '12.8', title: 'a compressed message inflating past the limit', extensions: DEFLATE, send: [frame(B, deflated(bytes(100_000, 0)), { rsv: RSV1 })], maxMessageSize: 10_000, ...fails(1009) },
  { id: '12.9', title: 'compressed text that inflates to bad UTF-8', extensions: DEFLATE, send: [frame(T, deflated(bad(0xc0, 0xaf)), { rsv: RSV1 })], ...fails(1007) },
  { id: '12.11', title: 'a compressed message whose first fragments are empty', extensions: DEFLATE, send: [frame(T, '', { fin: false, rsv: RSV1 }), frame(C, '', { fin: false }), frame(C, deflated('late bytes'))], messages: ['late bytes'], ...ok },
  { id: '12.10', title: 'a ping between compressed fragments', extensions: DEFLATE, send: ((d: Buffer) => [frame(T, d.subarray(0, 2), { fin: false, rsv: RSV1 }), frame(PING, 'p'), frame(C, d.subarray(2))])(deflated('interleaved')), messages: ['interleaved'], pongs: ['70'], ...ok }
]
