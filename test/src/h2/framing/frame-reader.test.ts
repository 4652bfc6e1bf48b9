import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { FrameReader } from '../../../../src/h2/framing/frame-reader.js'
import type { FrameSink } from '../../../../src/h2/framing/frame-reader.js'
import { FrameWriter } from '../../../../src/h2/framing/frame-writer.js'
import type { Frame } from '../../../../src/h2/framing/frames.js'
import { H2ProtocolError } from '../../../../src/h2/framing/protocol-error.js'
import { CLIENT_PREFACE, ErrorCode, Flag, FrameType } from '../../../../src/h2/framing/protocol.js'
import { padded, rawFrame, settingsPayload, u32 } from './raw-frames.js'

interface Read { frames: Frame[], streamErrors: Array<[number, number]> }

function collector (): FrameSink & Read {
  const frames: Frame[] = []
  const streamErrors: Array<[number, number]> = []
  return {
    frames,
    streamErrors,
    frame: (frame) => {
      // The pieces of a split DATA frame read as the frame they make up.
      const previous = frames[frames.length - 1]
      if (frame.kind === 'DATA' && frame.continued && previous?.kind === 'DATA') {
        frames[frames.length - 1] = { ...previous, endStream: frame.endStream, data: (previous.data as unknown as string) + Buffer.from(frame.data).toString('hex') } as unknown as Frame
        return
      }
      frames.push(normalise(frame))
    },
    streamError: (error) => { streamErrors.push([error.streamId, error.errorCode]) }
  }
}

/** Buffers compared by content: views into a chunk and joined copies must read the same. */
function normalise (frame: Frame): Frame {
  const copy: Record<string, unknown> = { ...frame }
  for (const [key, value] of Object.entries(copy)) if (Buffer.isBuffer(value)) copy[key] = Buffer.from(value).toString('hex')
  return copy as unknown as Frame
}

function readAll (chunks: Buffer[], maxFrameSize?: number): Read {
  const reader = new FrameReader(maxFrameSize)
  const sink = collector()
  for (const chunk of chunks) reader.push(chunk, sink)
  assert.equal(reader.atFrameBoundary, true)
  return { frames: sink.frames, streamErrors: sink.streamErrors }
}

function connectionErrorOf (bytes: Buffer, maxFrameSize?: number): number {
  try {
    readAll([bytes], maxFrameSize)
  } catch (error) {
    assert.ok(error instanceof H2ProtocolError, String(error))
    assert.equal(error.streamId, 0)
    return error.errorCode
  }
  assert.fail('no connection error')
}

const streamId = fc.integer({ min: 1, max: 0x7fffffff })
const bytes = (max: number): fc.Arbitrary<Buffer> => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a))
const padding = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined })

/** A valid frame's bytes and the frame a reader must yield for them. */
const validFrame: fc.Arbitrary<[Buffer, Frame]> = fc.oneof(
  fc.tuple(streamId, bytes(300), fc.boolean(), padding).map(([id, data, end, pad]): [Buffer, Frame] => {
    const payload = pad === undefined ? data : padded(data, pad)
    const flags = (end ? Flag.END_STREAM : 0) | (pad === undefined ? 0 : Flag.PADDED)
    return [rawFrame(FrameType.DATA, flags, id, payload), { kind: 'DATA', streamId: id, endStream: end, data, flowLength: payload.length, padding: payload.length - data.length, continued: false }]
  }),
  fc.tuple(streamId, bytes(300), fc.boolean(), fc.boolean(), padding, fc.boolean()).map(([id, fragment, end, endHeaders, pad, priority]): [Buffer, Frame] => {
    let payload = priority ? Buffer.concat([u32(id === 1 ? 3 : 1), Buffer.from([16]), fragment]) : fragment
    if (pad !== undefined) payload = padded(payload, pad)
    const flags = (end ? Flag.END_STREAM : 0) | (endHeaders ? Flag.END_HEADERS : 0) | (pad === undefined ? 0 : Flag.PADDED) | (priority ? Flag.PRIORITY : 0)
    return [rawFrame(FrameType.HEADERS, flags, id, payload), { kind: 'HEADERS', streamId: id, endStream: end, endHeaders, fragment }]
  }),
  streamId.map((id): [Buffer, Frame] => [rawFrame(FrameType.PRIORITY, 0, id, Buffer.concat([u32(id === 1 ? 3 : 1), Buffer.from([1])])), { kind: 'PRIORITY', streamId: id }]),
  fc.tuple(streamId, fc.nat()).map(([id, code]): [Buffer, Frame] => [rawFrame(FrameType.RST_STREAM, 0, id, u32(code)), { kind: 'RST_STREAM', streamId: id, errorCode: code }]),
  fc.array(fc.tuple(fc.constantFrom(1, 3, 6, 0x20, 0xffff), fc.nat()), { maxLength: 5 }).map((settings): [Buffer, Frame] =>
    [rawFrame(FrameType.SETTINGS, 0, 0, settingsPayload(settings)), { kind: 'SETTINGS', ack: false, settings }]),
  fc.constant<[Buffer, Frame]>([rawFrame(FrameType.SETTINGS, Flag.ACK, 0), { kind: 'SETTINGS', ack: true, settings: [] }]),
  fc.tuple(streamId, streamId, bytes(100), fc.boolean()).map(([id, promised, fragment, endHeaders]): [Buffer, Frame] =>
    [rawFrame(FrameType.PUSH_PROMISE, endHeaders ? Flag.END_HEADERS : 0, id, Buffer.concat([u32(promised), fragment])), { kind: 'PUSH_PROMISE', streamId: id, promisedStreamId: promised, endHeaders, fragment }]),
  fc.tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.boolean()).map(([data, ack]): [Buffer, Frame] =>
    [rawFrame(FrameType.PING, ack ? Flag.ACK : 0, 0, Buffer.from(data)), { kind: 'PING', ack, data: Buffer.from(data) }]),
  fc.tuple(fc.integer({ min: 0, max: 0x7fffffff }), fc.nat(), bytes(50)).map(([last, code, debugData]): [Buffer, Frame] =>
    [rawFrame(FrameType.GOAWAY, 0, 0, Buffer.concat([u32(last), u32(code), debugData])), { kind: 'GOAWAY', lastStreamId: last, errorCode: code, debugData }]),
  fc.tuple(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 1, max: 0x7fffffff })).map(([id, increment]): [Buffer, Frame] =>
    [rawFrame(FrameType.WINDOW_UPDATE, 0, id, u32(increment)), { kind: 'WINDOW_UPDATE', streamId: id, increment }]),
  fc.tuple(streamId, bytes(200), fc.boolean()).map(([id, fragment, endHeaders]): [Buffer, Frame] =>
    [rawFrame(FrameType.CONTINUATION, endHeaders ? Flag.END_HEADERS : 0, id, fragment), { kind: 'CONTINUATION', streamId: id, endHeaders, fragment }]),
  fc.tuple(fc.integer({ min: 10, max: 255 }), fc.nat({ max: 255 }), fc.nat({ max: 0x7fffffff }), bytes(60)).map(([type, flags, id, payload]): [Buffer, Frame] =>
    [rawFrame(type, flags, id, payload), { kind: 'UNKNOWN', type, flags, streamId: id, length: payload.length }])
)

/** `bytes` cut at the given points (taken modulo its length). */
function split (bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Buffer[] = []
  let from = 0
  for (const point of points) {
    chunks.push(bytes.subarray(from, point))
    from = point
  }
  chunks.push(bytes.subarray(from))
  return chunks
}

describe('FrameReader', () => {
  it('yields the same frames for any split of a valid frame sequence (RFC 9113 section 4.1)', () => {
    fc.assert(fc.property(fc.array(validFrame, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (frames, cuts) => {
      const expected = frames.map(([, frame]) => normalise(frame))
      const wire = Buffer.concat(frames.map(([raw]) => raw))
      assert.deepEqual(readAll([wire]).frames, expected)
      assert.deepEqual(readAll(split(wire, cuts)).frames, expected)
    }), { numRuns: 300, seed: 44 })
  })

  it('throws only protocol errors for random bytes, and reads them in bounded time', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(), { maxLength: 10 }), (random, cuts) => {
      const reader = new FrameReader()
      const sink = collector()
      try {
        for (const chunk of split(Buffer.from(random), cuts)) reader.push(chunk, sink)
      } catch (error) {
        assert.ok(error instanceof H2ProtocolError, String(error))
        assert.throws(() => { reader.push(Buffer.alloc(1), sink) }, H2ProtocolError)
      }
    }), { numRuns: 500, seed: 9113 })
  })

  it('hands out a payload that lay in one chunk as a view into that chunk, not a copy', () => {
    const wire = rawFrame(FrameType.DATA, 0, 1, Buffer.from('hello'))
    const reader = new FrameReader()
    let data: Buffer | undefined
    reader.push(wire, { frame: (frame) => { if (frame.kind === 'DATA') data = frame.data }, streamError: assert.fail })
    assert.equal(data?.buffer, wire.buffer)
    assert.equal(data?.toString(), 'hello')
  })

  it('hands out an unpadded DATA payload split across reads piece by piece, each a view into its chunk; a padded one whole', () => {
    const wire = rawFrame(FrameType.DATA, Flag.END_STREAM, 3, Buffer.from('hello world'))
    const chunks = [wire.subarray(0, 12), wire.subarray(12, 15), wire.subarray(15)]
    const reader = new FrameReader()
    const pieces: Frame[] = []
    for (const chunk of chunks) reader.push(chunk, { frame: (frame) => pieces.push(frame), streamError: assert.fail })
    assert.equal(reader.atFrameBoundary, true)
    assert.deepEqual(pieces.map((f) => f.kind === 'DATA' && [f.data.toString(), f.flowLength, f.continued, f.endStream, f.data.buffer === chunks[pieces.indexOf(f)]!.buffer]), [
      ['hel', 11, false, false, true],
      ['lo ', 0, true, false, true],
      ['world', 0, true, true, true]
    ])
    const paddedWire = rawFrame(FrameType.DATA, Flag.PADDED, 3, padded(Buffer.from('hello'), 2))
    const whole = readAll([paddedWire.subarray(0, 11), paddedWire.subarray(11)]).frames
    assert.deepEqual(whole, [normalise({ kind: 'DATA', streamId: 3, endStream: false, data: Buffer.from('hello'), flowLength: 8, padding: 3, continued: false })])
    // A split DATA frame on stream 0 fails at its first piece, as a whole one does.
    const onZero = rawFrame(FrameType.DATA, 0, 0, Buffer.from('abc'))
    assert.throws(() => { new FrameReader().push(onZero.subarray(0, 10), { frame: () => assert.fail('no frame'), streamError: () => assert.fail('no stream error') }) },
      (error: unknown) => error instanceof H2ProtocolError && error.errorCode === ErrorCode.PROTOCOL_ERROR && error.streamId === 0)
  })

  it('removes padding, and takes padding as long as the payload as PROTOCOL_ERROR (section 6.1)', () => {
    const read = readAll([rawFrame(FrameType.DATA, Flag.PADDED, 1, padded(Buffer.from('ab'), 3))])
    assert.deepEqual(read.frames, [normalise({ kind: 'DATA', streamId: 1, endStream: false, data: Buffer.from('ab'), flowLength: 6, padding: 4, continued: false })])
    assert.equal(connectionErrorOf(rawFrame(FrameType.DATA, Flag.PADDED, 1, Buffer.from([3, 0, 0]))), ErrorCode.PROTOCOL_ERROR)
    assert.equal(connectionErrorOf(rawFrame(FrameType.HEADERS, Flag.PADDED, 1, Buffer.from([1]))), ErrorCode.PROTOCOL_ERROR)
    assert.equal(connectionErrorOf(rawFrame(FrameType.DATA, Flag.PADDED, 1)), ErrorCode.FRAME_SIZE_ERROR)
  })

  // One line per rule: the frame's bytes, the connection error code it must raise, the section.
  const connectionCases: Array<[string, Buffer, number]> = [
    ['frame over SETTINGS_MAX_FRAME_SIZE (4.2)', rawFrame(FrameType.DATA, 0, 1, Buffer.alloc(16_385)), ErrorCode.FRAME_SIZE_ERROR],
    ['unknown frame over SETTINGS_MAX_FRAME_SIZE (4.2)', rawFrame(0x42, 0, 1, Buffer.alloc(16_385)), ErrorCode.FRAME_SIZE_ERROR],
    ['RST_STREAM of 3 bytes (6.4)', rawFrame(FrameType.RST_STREAM, 0, 1, Buffer.alloc(3)), ErrorCode.FRAME_SIZE_ERROR],
    ['SETTINGS of 5 bytes (6.5)', rawFrame(FrameType.SETTINGS, 0, 0, Buffer.alloc(5)), ErrorCode.FRAME_SIZE_ERROR],
    ['SETTINGS ACK with a payload (6.5)', rawFrame(FrameType.SETTINGS, Flag.ACK, 0, Buffer.alloc(6)), ErrorCode.FRAME_SIZE_ERROR],
    ['PING of 7 bytes (6.7)', rawFrame(FrameType.PING, 0, 0, Buffer.alloc(7)), ErrorCode.FRAME_SIZE_ERROR],
    ['GOAWAY of 7 bytes (6.8)', rawFrame(FrameType.GOAWAY, 0, 0, Buffer.alloc(7)), ErrorCode.FRAME_SIZE_ERROR],
    ['WINDOW_UPDATE of 5 bytes (6.9)', rawFrame(FrameType.WINDOW_UPDATE, 0, 1, Buffer.alloc(5)), ErrorCode.FRAME_SIZE_ERROR],
    ['WINDOW_UPDATE of 0 on the connection (6.9)', rawFrame(FrameType.WINDOW_UPDATE, 0, 0, u32(0)), ErrorCode.PROTOCOL_ERROR],
    ['DATA on stream 0 (6.1)', rawFrame(FrameType.DATA, 0, 0), ErrorCode.PROTOCOL_ERROR],
    ['HEADERS on stream 0 (6.2)', rawFrame(FrameType.HEADERS, Flag.END_HEADERS, 0), ErrorCode.PROTOCOL_ERROR],
    ['PRIORITY on stream 0 (6.3)', rawFrame(FrameType.PRIORITY, 0, 0, Buffer.alloc(5)), ErrorCode.PROTOCOL_ERROR],
    ['RST_STREAM on stream 0 (6.4)', rawFrame(FrameType.RST_STREAM, 0, 0, u32(0)), ErrorCode.PROTOCOL_ERROR],
    ['PUSH_PROMISE on stream 0 (6.6)', rawFrame(FrameType.PUSH_PROMISE, 0, 0, u32(2)), ErrorCode.PROTOCOL_ERROR],
    ['CONTINUATION on stream 0 (6.10)', rawFrame(FrameType.CONTINUATION, 0, 0), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS on stream 1 (6.5)', rawFrame(FrameType.SETTINGS, 0, 1), ErrorCode.PROTOCOL_ERROR],
    ['PING on stream 1 (6.7)', rawFrame(FrameType.PING, 0, 1, Buffer.alloc(8)), ErrorCode.PROTOCOL_ERROR],
    ['GOAWAY on stream 1 (6.8)', rawFrame(FrameType.GOAWAY, 0, 1, Buffer.alloc(8)), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS_ENABLE_PUSH of 2 (6.5.2)', rawFrame(FrameType.SETTINGS, 0, 0, settingsPayload([[2, 2]])), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1 (6.5.2)', rawFrame(FrameType.SETTINGS, 0, 0, settingsPayload([[4, 2 ** 31]])), ErrorCode.FLOW_CONTROL_ERROR],
    ['SETTINGS_MAX_FRAME_SIZE under 16384 (6.5.2)', rawFrame(FrameType.SETTINGS, 0, 0, settingsPayload([[5, 16_383]])), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS_MAX_FRAME_SIZE over 2^24-1 (6.5.2)', rawFrame(FrameType.SETTINGS, 0, 0, settingsPayload([[5, 2 ** 24]])), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS_ENABLE_CONNECT_PROTOCOL of 2 (RFC 8441 section 3)', rawFrame(FrameType.SETTINGS, 0, 0, settingsPayload([[8, 2]])), ErrorCode.PROTOCOL_ERROR],
    ['HEADERS with PRIORITY too short for it (4.2)', rawFrame(FrameType.HEADERS, Flag.PRIORITY, 1, Buffer.alloc(4)), ErrorCode.FRAME_SIZE_ERROR],
    ['PUSH_PROMISE too short for its stream id (4.2)', rawFrame(FrameType.PUSH_PROMISE, 0, 1, Buffer.alloc(3)), ErrorCode.FRAME_SIZE_ERROR]
  ]
  for (const [name, frame, code] of connectionCases) {
    it(`raises a connection error for ${name}`, () => { assert.equal(connectionErrorOf(frame), code) })
  }

  // Stream-scoped errors: reported for their stream, and the frames after them are still read.
  const streamCases: Array<[string, Buffer, number]> = [
    ['PRIORITY of 4 bytes (6.3)', rawFrame(FrameType.PRIORITY, 0, 3, Buffer.alloc(4)), ErrorCode.FRAME_SIZE_ERROR],
    ['PRIORITY on itself (5.3.1)', rawFrame(FrameType.PRIORITY, 0, 3, Buffer.concat([u32(3), Buffer.from([0])])), ErrorCode.PROTOCOL_ERROR],
    ['HEADERS priority on itself (5.3.1)', rawFrame(FrameType.HEADERS, Flag.PRIORITY, 3, Buffer.concat([u32(3), Buffer.from([0])])), ErrorCode.PROTOCOL_ERROR],
    ['WINDOW_UPDATE of 0 on a stream (6.9)', rawFrame(FrameType.WINDOW_UPDATE, 0, 3, u32(0)), ErrorCode.PROTOCOL_ERROR]
  ]
  for (const [name, frame, code] of streamCases) {
    it(`reports a stream error for ${name} and reads on`, () => {
      const read = readAll([Buffer.concat([frame, rawFrame(FrameType.PING, 0, 0, Buffer.alloc(8))])])
      assert.deepEqual(read.streamErrors, [[3, code]])
      assert.equal(read.frames[0]?.kind, 'PING')
    })
  }

  it('accepts frames up to a larger advertised SETTINGS_MAX_FRAME_SIZE', () => {
    const read = readAll([rawFrame(FrameType.DATA, 0, 1, Buffer.alloc(20_000))], 32_768)
    assert.equal(read.frames.length, 1)
  })
})

describe('FrameWriter', () => {
  function written (writer: FrameWriter): Buffer {
    const queued = writer.queuedBytes
    const out = Buffer.concat(writer.take())
    assert.equal(out.length, queued)
    assert.equal(writer.queuedBytes, 0)
    return out
  }

  it('writes the preface, SETTINGS, ACKs and control frames the reader reads back', () => {
    const writer = new FrameWriter()
    writer.preface([[2, 0], [4, 1 << 20]])
    const wire = written(writer)
    assert.deepEqual(wire.subarray(0, 24), CLIENT_PREFACE)
    writer.settingsAck()
    writer.ping(Buffer.from('12345678'), false)
    writer.ping(Buffer.from('abcdefgh'), true)
    writer.rstStream(5, ErrorCode.CANCEL)
    writer.windowUpdate(0, 1000)
    writer.goaway(7, ErrorCode.ENHANCE_YOUR_CALM, Buffer.from('calm'))
    const read = readAll([wire.subarray(24), written(writer)])
    assert.deepEqual(read.frames, [
      { kind: 'SETTINGS', ack: false, settings: [[2, 0], [4, 1 << 20]] },
      { kind: 'SETTINGS', ack: true, settings: [] },
      normalise({ kind: 'PING', ack: false, data: Buffer.from('12345678') }),
      normalise({ kind: 'PING', ack: true, data: Buffer.from('abcdefgh') }),
      { kind: 'RST_STREAM', streamId: 5, errorCode: ErrorCode.CANCEL },
      { kind: 'WINDOW_UPDATE', streamId: 0, increment: 1000 },
      normalise({ kind: 'GOAWAY', lastStreamId: 7, errorCode: ErrorCode.ENHANCE_YOUR_CALM, debugData: Buffer.from('calm') })
    ])
  })

  it('joins consecutive control frames into one buffer', () => {
    const writer = new FrameWriter()
    for (let i = 0; i < 100; i++) writer.settingsAck()
    assert.equal(writer.take().length, 1)
  })

  it('splits a header block into HEADERS and CONTINUATION at the peer\'s max frame size (6.2, 6.10)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 70_000 }), fc.boolean(), (length, endStream) => {
      const writer = new FrameWriter()
      const block = Buffer.alloc(length, 7)
      writer.headers(9, block, endStream)
      const frames = readAll([written(writer)]).frames
      assert.equal(frames.length, Math.max(1, Math.ceil(length / 16_384)))
      const fragments = frames.map((frame) => {
        assert.ok(frame.kind === 'HEADERS' || frame.kind === 'CONTINUATION')
        assert.equal(frame.streamId, 9)
        return Buffer.from(frame.fragment as unknown as string, 'hex')
      })
      assert.deepEqual(Buffer.concat(fragments), block)
      assert.equal(frames[0]?.kind === 'HEADERS' && frames[0].endStream, endStream)
      assert.deepEqual(frames.map((frame) => 'endHeaders' in frame && frame.endHeaders), frames.map((_, i) => i === frames.length - 1))
    }), { numRuns: 40, seed: 7 })
  })

  it('splits DATA at the peer\'s max frame size, END_STREAM on the last frame only (6.1)', () => {
    const writer = new FrameWriter()
    writer.maxFrameSize = 20_000
    writer.data(3, Buffer.alloc(50_000, 1), true)
    writer.data(3, Buffer.alloc(0), true)
    const frames = readAll([written(writer)], 20_000).frames
    assert.deepEqual(frames.map((frame) => frame.kind === 'DATA' && [frame.flowLength, frame.endStream]), [[20_000, false], [20_000, false], [10_000, true], [0, true]])
  })
})
