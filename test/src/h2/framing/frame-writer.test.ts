import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { FrameReader } from '../../../../src/h2/framing/frame-reader.js'
import { FrameWriter } from '../../../../src/h2/framing/frame-writer.js'
import type { Frame } from '../../../../src/h2/framing/frames.js'

/** Reads back what `writer` queued. */
function readBack (writer: FrameWriter): Frame[] {
  const frames: Frame[] = []
  new FrameReader().push(Buffer.concat(writer.take()), { frame: (frame) => frames.push(frame), streamError: (error) => { throw error } })
  return frames
}

describe('FrameWriter', () => {
  it('writes every frame head whole when the frames outgrow a slab, whatever the mix (seeded property)', () => {
    // HEADERS and DATA heads are reserved between payloads; a reservation that starts a fresh
    // slab must write its head there, not in the slab it replaced.
    const step = fc.oneof(
      fc.record({ kind: fc.constant('headers' as const), length: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('data' as const), length: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('window' as const), length: fc.integer({ min: 1, max: 1000 }) })
    )
    fc.assert(fc.property(fc.array(step, { minLength: 1500, maxLength: 3000 }), (steps) => {
      const writer = new FrameWriter()
      steps.forEach((s, i) => {
        const id = 2 * i + 1
        if (s.kind === 'headers') writer.headers(id, Buffer.alloc(s.length, i & 0xff), true)
        else if (s.kind === 'data') writer.data(id, Buffer.alloc(s.length, i & 0xff), false)
        else writer.windowUpdate(id, s.length)
      })
      const frames = readBack(writer)
      assert.equal(frames.length, steps.length)
      frames.forEach((frame, i) => {
        const s = steps[i]!
        if (s.kind === 'headers') assert.deepEqual(frame, { kind: 'HEADERS', streamId: 2 * i + 1, endStream: true, endHeaders: true, fragment: Buffer.alloc(s.length, i & 0xff) })
        else if (s.kind === 'data') assert.deepEqual(frame, { kind: 'DATA', streamId: 2 * i + 1, endStream: false, data: Buffer.alloc(s.length, i & 0xff), flowLength: s.length, padding: 0, continued: false })
        else assert.deepEqual(frame, { kind: 'WINDOW_UPDATE', streamId: 2 * i + 1, increment: s.length })
      })
    }), { seed: 44_0003, numRuns: 20 })
  })
})
