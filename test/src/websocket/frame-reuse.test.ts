import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import net from 'node:net'
import { Duplex } from 'node:stream'
import fc from 'fast-check'
import { Agent } from '../../../src/dispatcher/agent.js'
import type { Connector } from '../../../src/index.js'
import { WebSocket } from '../../../src/websocket/websocket.js'
import type { MessageEvent } from '../../../src/websocket/dom-events.js'
import { encodeFrame, encodeTextFrame } from '../../../src/websocket/frame-writer.js'
import { recycleFrameBuffer, SPARE_IDLE_MS, SPARE_MAX_BYTES, SPARE_MIN_BYTES, spareFrameBufferBytes, spareFrameBufferIdlePeriod, takeFrameBuffer } from '../../../src/websocket/spare-frame-buffer.js'
import { caCrt } from '../../helpers/certs.js'
import { startWsEchoServer } from '../../helpers/ws-server.js'
import { readClientFrame } from '../../helpers/websocket-frames.js'
import type { WsEchoServer } from '../../helpers/ws-server.js'
import { startH2WebSocketServer } from '../../helpers/h2-websocket-server.js'
import type { H2WebSocketServer } from '../../helpers/h2-websocket-server.js'

/** The unmasked payload of a masked client frame. */
const unmasked = (frame: Buffer): Buffer => readClientFrame(frame).payload

/** `length` bytes that differ from message to message (`seed`) and along the message. */
function pattern (length: number, seed: number): Buffer {
  const bytes = Buffer.allocUnsafe(length)
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 17 + (i >>> 10)) & 0xff
  return bytes
}

describe('the spare frame buffer', () => {
  it('lets the spare go once no frame used it for a whole idle period', () => {
    takeFrameBuffer(SPARE_MAX_BYTES)
    recycleFrameBuffer(takeFrameBuffer(SPARE_MIN_BYTES))
    assert.equal(spareFrameBufferBytes(), SPARE_MIN_BYTES)
    spareFrameBufferIdlePeriod()
    // Used within the last period: kept for another.
    assert.equal(spareFrameBufferBytes(), SPARE_MIN_BYTES)
    spareFrameBufferIdlePeriod()
    assert.equal(spareFrameBufferBytes(), 0)
  })

  it('keeps its idle timer on the runtime\'s clock, so a fake clock neither frees the spare nor stalls', (t) => {
    recycleFrameBuffer(takeFrameBuffer(SPARE_MIN_BYTES))
    t.mock.timers.enable({ apis: ['setTimeout'] })
    try {
      t.mock.timers.tick(SPARE_IDLE_MS * 3)
      assert.equal(spareFrameBufferBytes(), SPARE_MIN_BYTES)
    } finally {
      t.mock.timers.reset()
    }
    spareFrameBufferIdlePeriod()
    spareFrameBufferIdlePeriod()
    assert.equal(spareFrameBufferBytes(), 0)
  })

  it('masks a payload copied from any place within a word, leaving the source untouched', () => {
    const sizes = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: SPARE_MIN_BYTES - 20, max: SPARE_MIN_BYTES + 40 }))
    fc.assert(fc.property(sizes, fc.integer({ min: 0, max: 7 }), fc.boolean(), fc.integer({ min: 0, max: 255 }), (length, offset, shared, seed) => {
      const memory = shared ? new SharedArrayBuffer(offset + length) : new ArrayBuffer(offset + length)
      const source = new Uint8Array(memory, offset, length)
      source.set(pattern(length, seed))
      const before = Buffer.from(source)
      const frame = encodeFrame(0x2, source)
      assert.deepEqual(unmasked(frame), before)
      assert.deepEqual(Buffer.from(source), before, 'the caller\'s bytes are not masked in place')
    }), { numRuns: 200 })
  })

  it('builds the next large frame in the memory of one the socket took, and only then', () => {
    const first = encodeFrame(0x2, pattern(200_000, 1))
    const second = encodeFrame(0x2, pattern(200_000, 2))
    // Neither was handed back: two live frames never share memory.
    assert.notEqual(first.buffer, second.buffer)
    recycleFrameBuffer(first)
    const third = encodeFrame(0x2, pattern(150_000, 3))
    assert.equal(third.buffer, first.buffer, 'built in the recycled memory')
    const fourth = encodeFrame(0x2, pattern(150_000, 4))
    assert.notEqual(fourth.buffer, third.buffer, 'the spare is taken by one frame at a time')
    assert.deepEqual(unmasked(second), pattern(200_000, 2))
    assert.deepEqual(unmasked(third), pattern(150_000, 3))
    assert.deepEqual(unmasked(fourth), pattern(150_000, 4))
    // Text frames share it too.
    recycleFrameBuffer(fourth)
    const text = 'é'.repeat(40_000)
    const textFrame = encodeTextFrame(0x1, text)
    assert.equal(textFrame.buffer, fourth.buffer)
    assert.equal(unmasked(textFrame).toString('utf8'), text)
  })

  it('keeps neither small frames, views into shared memory, nor frames over the cap', () => {
    // Empty the spare first.
    takeFrameBuffer(SPARE_MAX_BYTES)
    assert.equal(spareFrameBufferBytes(), 0)
    recycleFrameBuffer(Buffer.allocUnsafe(SPARE_MIN_BYTES - 1))
    assert.equal(spareFrameBufferBytes(), 0)
    const pool = Buffer.allocUnsafeSlow(SPARE_MIN_BYTES * 2)
    recycleFrameBuffer(pool.subarray(64))
    assert.equal(spareFrameBufferBytes(), 0, 'a view that does not start the memory is someone else\'s')
    recycleFrameBuffer(Buffer.allocUnsafeSlow(SPARE_MAX_BYTES + 1))
    assert.equal(spareFrameBufferBytes(), 0)
    const frame = takeFrameBuffer(SPARE_MIN_BYTES)
    assert.equal(frame.byteOffset, 0)
    assert.equal(frame.buffer.byteLength, SPARE_MIN_BYTES, 'a large frame owns its memory, never Node\'s pool')
    recycleFrameBuffer(frame)
    assert.equal(spareFrameBufferBytes(), SPARE_MIN_BYTES)
    // A larger buffer replaces a smaller spare, not the other way round.
    recycleFrameBuffer(takeFrameBuffer(SPARE_MIN_BYTES * 3))
    assert.equal(spareFrameBufferBytes(), SPARE_MIN_BYTES * 3)
    recycleFrameBuffer(takeFrameBuffer(SPARE_MIN_BYTES * 2))
    assert.equal(spareFrameBufferBytes(), SPARE_MIN_BYTES * 3)
  })

})

/**
 * A connector whose socket is a JavaScript stream that calls back at once but passes each chunk
 * to the real socket only later: a Duplex that still holds a chunk after its write completed.
 */
const lazyRelay: Connector = (options, callback) => {
  const raw = net.connect({ host: options.hostname, port: Number(options.port) })
  raw.once('error', (err) => callback(err, null))
  raw.once('connect', () => {
    const held: Buffer[] = []
    const dup = new Duplex({
      read () { raw.resume() },
      write (chunk: Buffer, _encoding, done) {
        held.push(chunk)
        if (held.length === 1) setTimeout(() => { for (const c of held.splice(0)) raw.write(c) }, 5)
        done()
      },
      destroy (err, done) { raw.destroy(); done(err) }
    })
    raw.on('data', (chunk: Buffer) => { if (!dup.push(chunk)) raw.pause() })
    raw.on('end', () => dup.push(null))
    raw.on('close', () => dup.destroy())
    callback(null, dup)
  })
}

/** Sends `sizes` back to back (one task) and checks each echo byte for byte, in order. */
async function echoBurst (ws: WebSocket, sizes: number[], seed: number): Promise<void> {
  ws.binaryType = 'arraybuffer'
  const received: Buffer[] = []
  const all = new Promise<void>((resolve, reject) => {
    ws.onmessage = (event: MessageEvent) => {
      received.push(Buffer.from(event.data as ArrayBuffer))
      if (received.length === sizes.length) resolve()
    }
    ws.onerror = () => reject(new Error('the WebSocket failed'))
    ws.onclose = (event) => reject(new Error(`the connection closed with ${(event as { code?: number }).code} before every echo arrived`))
  })
  sizes.forEach((size, i) => ws.send(pattern(size, seed + i)))
  await all
  sizes.forEach((size, i) => assert.ok(received[i]!.equals(pattern(size, seed + i)), `message ${i} (${size} bytes) echoed unchanged`))
}

describe('large frames on real sockets', () => {
  let plain: WsEchoServer
  let secure: WsEchoServer
  let h2c: H2WebSocketServer
  const agent = new Agent({ connect: { ca: caCrt } })
  const h2cAgent = new Agent({ h2c: true })
  const lazyAgent = new Agent({ connect: lazyRelay })
  const sizes = [SPARE_MIN_BYTES, 1_048_576, 300_000, 65_530, 1_200_003, 2_000_000, 70_001, 1_048_576]

  before(async () => {
    [plain, secure, h2c] = await Promise.all([startWsEchoServer(), startWsEchoServer({ tls: true }), startH2WebSocketServer()])
  })
  after(async () => {
    await Promise.all([agent.close(), h2cAgent.close(), lazyAgent.close()])
    await Promise.all([plain.close(), secure.close(), h2c.close()])
  })

  for (const [name, url, dispatcher] of [
    ['over TCP', () => plain.url, agent],
    ['over TLS', () => secure.url, agent],
    ['over an HTTP/2 stream (extended CONNECT)', () => h2c.url, h2cAgent],
    ['over a stream that holds chunks after calling back', () => plain.url, lazyAgent]
  ] as const) {
    it(`echoes bursts and sequences of large messages unchanged ${name}`, { timeout: 30_000 }, async () => {
      const ws = new WebSocket(url(), { dispatcher })
      await once(ws, 'open')
      await echoBurst(ws, sizes, 1)
      for (let i = 0; i < 4; i++) await echoBurst(ws, [sizes[i]!, sizes[i + 4]!], 10 + i)
      ws.onclose = null
      const closed = once(ws, 'close')
      ws.close()
      await closed
    })
  }
})
