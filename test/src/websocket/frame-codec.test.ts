import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { FRAME, FrameParser, NEED_MORE } from '../../../src/websocket/frame-parser.js'
import { splitAt } from '../../helpers/split-bytes.js'
import { encodeCloseFrame, encodeFrame, encodeTextFrame } from '../../../src/websocket/frame-writer.js'
import { readClientFrame } from '../../helpers/websocket-frames.js'

/** An unmasked server frame, as a server writes it. */
function serverFrame (opcode: number, payload: Uint8Array, fin = true, rsv = 0): Buffer {
  const length = payload.length
  const head = length < 126 ? Buffer.from([0, length]) : length < 0x10000 ? Buffer.from([0, 126, length >> 8, length & 0xff]) : Buffer.alloc(10)
  if (length >= 0x10000) {
    head[1] = 127
    head.writeUInt32BE(Math.floor(length / 0x100000000), 2)
    head.writeUInt32BE(length >>> 0, 6)
  }
  head[0] = (fin ? 0x80 : 0) | rsv | opcode
  return Buffer.concat([head, payload])
}

describe('the frame writer', () => {
  it('masks every frame with a key of its own and the payload reads back unchanged', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 70_000 }), fc.boolean(), (payload, fin) => {
      const frame = encodeFrame(0x2, payload, fin)
      const read = readClientFrame(frame)
      assert.equal(read.masked, true)
      assert.equal(read.fin, fin)
      assert.equal(read.opcode, 2)
      assert.deepEqual(new Uint8Array(read.payload), payload)
    }), { numRuns: 60 })
  })

  it('masks payloads of every length on both sides of the word-wise threshold alike', () => {
    // Short (6-byte) and 16-bit (8-byte) headers put the payload at both 2- and 4-aligned starts.
    for (let length = 0; length < 300; length++) {
      const payload = Uint8Array.from({ length }, (_, i) => (i * 7 + length) & 0xff)
      assert.deepEqual(new Uint8Array(readClientFrame(encodeFrame(0x2, payload)).payload), payload, `length ${length}`)
    }
  })

  it('writes text as UTF-8 straight into the frame', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
      assert.equal(readClientFrame(encodeTextFrame(0x1, text)).payload.toString('utf8'), Buffer.from(text).toString('utf8'))
    }), { numRuns: 100 })
  })

  it('uses different mask keys for consecutive frames', () => {
    const keys = new Set<string>()
    for (let i = 0; i < 64; i++) keys.add(encodeFrame(0x1, Buffer.from('x')).subarray(2, 6).toString('hex'))
    assert.ok(keys.size >= 60, `only ${keys.size} distinct keys in 64 frames`)
  })

  it('writes a close frame with the code first and an empty one without a code', () => {
    const read = readClientFrame(encodeCloseFrame(4000, 'bye'))
    assert.equal(read.opcode, 8)
    assert.equal(read.payload.readUInt16BE(0), 4000)
    assert.equal(read.payload.subarray(2).toString(), 'bye')
    assert.equal(readClientFrame(encodeCloseFrame(undefined, '')).payload.length, 0)
  })
})

describe('the frame parser', () => {
  it('reads any sequence of frames however the bytes are split into chunks', () => {
    const frameArb = fc.record({ opcode: fc.constantFrom(0x1, 0x2, 0x9, 0xa), payload: fc.uint8Array({ maxLength: 70_000 }), fin: fc.boolean() })
      .map(({ opcode, payload, fin }) => opcode >= 8 ? { opcode, payload: payload.subarray(0, 125), fin: true } : { opcode, payload, fin })
    fc.assert(fc.property(fc.array(frameArb, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), (frames, cuts) => {
      const bytes = Buffer.concat(frames.map((f) => serverFrame(f.opcode, f.payload, f.fin)))
      const parser = new FrameParser(1 << 20)
      const read: Array<{ opcode: number, fin: boolean, payload: Buffer }> = []
      for (const chunk of splitAt(bytes, cuts)) {
        parser.push(chunk)
        let result: number
        while ((result = parser.next()) === FRAME) read.push({ opcode: parser.opcode, fin: parser.fin, payload: Buffer.from(parser.payload) })
        assert.equal(result, NEED_MORE)
      }
      assert.deepEqual(read.map((f) => [f.opcode, f.fin, f.payload.toString('hex')]), frames.map((f) => [f.opcode, f.fin, Buffer.from(f.payload).toString('hex')]))
    }), { numRuns: 80 })
  })

  it('reads the same frames when every chunk is only lent: one scratch buffer, overwritten after each read', () => {
    const frameArb = fc.record({ opcode: fc.constantFrom(0x1, 0x2, 0x9), payload: fc.uint8Array({ maxLength: 70_000 }), fin: fc.boolean() })
      .map(({ opcode, payload, fin }) => opcode >= 8 ? { opcode, payload: payload.subarray(0, 125), fin: true } : { opcode, payload, fin })
    const scratch = Buffer.alloc(64 * 1024)
    fc.assert(fc.property(fc.array(frameArb, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), (frames, cuts) => {
      const bytes = Buffer.concat(frames.map((f) => serverFrame(f.opcode, f.payload, f.fin)))
      const parser = new FrameParser(1 << 21)
      const read: string[] = []
      for (const piece of splitAt(bytes, cuts)) {
        for (let at = 0; at < piece.length; at += scratch.length) {
          const length = piece.copy(scratch, 0, at, at + scratch.length)
          parser.push(scratch.subarray(0, length))
          // A payload that is a view of the lent chunk is used before the read ends, as the connection does.
          while (parser.next() === FRAME) {
            if (parser.payloadOwned) assert.notEqual(parser.payload.buffer, scratch.buffer)
            read.push(parser.payload.toString('hex'))
          }
          parser.retainUnread()
          scratch.fill(0xee)
        }
      }
      assert.deepEqual(read, frames.map((f) => Buffer.from(f.payload).toString('hex')))
    }), { numRuns: 80 })
  })

  it('fills a payload that spans reads as the reads arrive, above 1 MiB once the frame is whole', () => {
    for (const size of [200 * 1024, 1024 * 1024, 1024 * 1024 + 1, 1536 * 1024]) {
      const payload = Buffer.alloc(size)
      for (let i = 0; i < size; i++) payload[i] = i % 253
      const bytes = Buffer.concat([serverFrame(0x2, payload), serverFrame(0x1, Buffer.from('after'))])
      const scratch = Buffer.alloc(64 * 1024)
      const parser = new FrameParser(1 << 22)
      const read: Buffer[] = []
      for (let at = 0; at < bytes.length; at += 1000 + (at % 7000)) {
        const length = bytes.copy(scratch, 0, at, at + 1000 + (at % 7000))
        parser.push(scratch.subarray(0, length))
        while (parser.next() === FRAME) read.push(parser.payloadOwned ? parser.payload : Buffer.from(parser.payload))
        parser.retainUnread()
        scratch.fill(0)
      }
      assert.equal(read.length, 2, `size ${size}`)
      assert.ok(read[0]!.equals(payload), `size ${size}: payload intact`)
      // The spanning payload is a buffer of its own, exactly its bytes.
      assert.equal(read[0]!.buffer.byteLength, size)
      assert.equal(read[1]!.toString(), 'after')
    }
  })

  it('hands a payload inside one chunk on as a view, without copying it', () => {
    const chunk = serverFrame(0x2, Buffer.alloc(1000, 7))
    const parser = new FrameParser(1 << 20)
    parser.push(chunk)
    assert.equal(parser.next(), FRAME)
    assert.equal(parser.payload.buffer, chunk.buffer)
  })

  it('never accepts a frame that breaks the framing rules, whatever its bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 2, maxLength: 40 }), (bytes) => {
      const parser = new FrameParser(1000)
      parser.push(Buffer.from(bytes))
      const result = parser.next()
      const b0 = bytes[0]!
      const b1 = bytes[1]!
      const opcode = b0 & 0x0f
      if ((b1 & 0x80) !== 0 || (b0 & 0x70) !== 0 || ![0, 1, 2, 8, 9, 10].includes(opcode)) {
        assert.equal(result, 1002)
      } else if (result === FRAME || result === NEED_MORE) {
        if (opcode >= 8) assert.ok((b0 & 0x80) !== 0 && (b1 & 0x7f) <= 125)
      } else {
        assert.ok(result === 1002 || result === 1009, `unexpected result ${result}`)
      }
    }), { numRuns: 500 })
  })

  it('refuses a frame over the size limit with 1009 before its payload arrives', () => {
    const parser = new FrameParser(100)
    parser.push(serverFrame(0x2, Buffer.alloc(101)).subarray(0, 4))
    assert.equal(parser.next(), 1009)
    assert.match(parser.failure, /larger than the message size limit of 100/)
  })
})
