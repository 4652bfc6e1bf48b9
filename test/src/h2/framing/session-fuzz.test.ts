// A seeded fuzz run of random frame sequences against the session: valid, malformed and
// out-of-order frames from a server on 127.0.0.1, which then ends the connection. Every run must
// end the session (no hang), raise nothing outside the library's errors (no crash), and keep its
// listeners consistent: each stream closed exactly once, nothing after its close.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { LibraryError } from '../../../../src/errors.js'
import type { LibraryError as LibraryErrorType } from '../../../../src/errors.js'
import { H2Session } from '../../../../src/h2/framing/session.js'
import type { HeaderList } from '../../../../src/h2/framing/header-codec.js'
import type { StreamListener } from '../../../../src/h2/framing/h2-stream.js'
import { encodeLiteralBlock, literalCodec } from './literal-codec.js'
import { rawFrame, settingsPayload, u32 } from './raw-frames.js'
import { GET } from './session-harness.js'

const RUNS = 2000
const PARALLEL = 8

/** mulberry32: a small seeded generator, so a failing run can be replayed by its index. */
function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

function frames (next: () => number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const int = (max: number): number => Math.floor(next() * max)
  const out: Buffer[] = [rawFrame(4, 0, 0, settingsPayload(next() < 0.3 ? [[4, int(200_000)], [3, int(5)]] : []))]
  const count = 1 + int(12)
  for (let i = 0; i < count; i++) {
    const type = pick([0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x42])
    const streamId = pick([0, 1, 1, 1, 3, 2, 5, 7, 0x7fffffff])
    const flags = next() < 0.5 ? pick([0, 1, 4, 5, 8, 0x20, 0x25]) : int(256)
    let payload: Buffer
    const headers: HeaderList = pick([[[':status', '200']], [[':status', '103']], [[':status', '101']], [['x-trailer', '1']], [[':status', 'abc']]])
    switch (next() < 0.8 ? type : -1) {
      case 0: payload = Buffer.alloc(int(100)); break
      case 1: case 9: payload = encodeLiteralBlock(headers); break
      case 2: payload = Buffer.concat([u32(int(10)), Buffer.from([1])]); break
      case 3: case 8: payload = u32(int(3) === 0 ? 0 : int(2 ** 31)); break
      case 4: payload = settingsPayload([[pick([1, 2, 3, 4, 5, 6, 8, 99]), int(2 ** 32)]]); break
      case 5: payload = Buffer.concat([u32(2), encodeLiteralBlock(headers)]); break
      case 6: payload = Buffer.alloc(8); break
      case 7: payload = Buffer.concat([u32(int(6)), u32(int(14))]); break
      default: payload = Buffer.from(Array.from({ length: int(40) }, () => int(256)))
    }
    out.push(rawFrame(type, flags, streamId, payload))
  }
  const wire = Buffer.concat(out)
  // Sometimes cut the last frame short, as a connection that drops mid-frame does.
  return next() < 0.1 ? wire.subarray(0, wire.length - 1 - int(8)) : wire
}

class CheckedListener implements StreamListener {
  closes = 0
  violations: string[] = []
  readonly session: () => H2Session
  readonly id: () => number
  constructor (session: () => H2Session, id: () => number) {
    this.session = session
    this.id = id
  }

  onHeaders (): void { if (this.closes > 0) this.violations.push('headers after close') }
  onData (data: Buffer): void {
    if (this.closes > 0) this.violations.push('data after close')
    this.session().consumed(this.id(), data.length)
  }

  onClose (error: LibraryErrorType | null): void {
    this.closes++
    if (error !== null && !(error instanceof LibraryError)) this.violations.push(`not a library error: ${String(error)}`)
  }
}

describe('H2Session fuzz', () => {
  it(`ends every one of ${RUNS} seeded random frame sequences without a crash or a hang, its streams closed once`, { timeout: 240_000 }, async () => {
    const pending: Buffer[] = []
    const server = net.createServer((socket) => {
      socket.on('error', () => {})
      const wire = pending.shift()!
      socket.once('data', () => { socket.end(wire) })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const port = (server.address() as AddressInfo).port
    let errors = 0
    const run = async (index: number): Promise<void> => {
      pending.push(frames(random(44_000 + index)))
      const socket = net.connect(port, '127.0.0.1')
      socket.on('error', () => {})
      let session: H2Session | undefined
      const closed = new Promise<LibraryErrorType | null>((resolve) => {
        session = new H2Session(socket, literalCodec(), { onClose: resolve }, { adaptiveWindow: index % 2 === 0 })
      })
      const listeners: CheckedListener[] = []
      for (let i = 0; i < 2; i++) {
        let id = 0
        const listener = new CheckedListener(() => session!, () => id)
        id = session!.request(GET, i === 0, listener)
        listeners.push(listener)
      }
      const error = await closed
      if (error !== null) errors++
      assert.ok(error === null || error instanceof LibraryError, `run ${index}: ${String(error)}`)
      await new Promise<void>((resolve) => { if (socket.destroyed) resolve(); else socket.once('close', () => { resolve() }) })
      for (const listener of listeners) {
        assert.deepEqual(listener.violations, [], `run ${index}`)
        assert.equal(listener.closes, 1, `run ${index}: a stream closed ${listener.closes} times`)
      }
      assert.equal(session!.closed, true)
      assert.equal(session!.openStreams, 0)
    }
    try {
      // Runs go in parallel batches; each connection takes the next sequence in connect order.
      for (let start = 0; start < RUNS; start += PARALLEL) {
        const batch: Array<Promise<void>> = []
        for (let index = start; index < Math.min(RUNS, start + PARALLEL); index++) {
          batch.push(run(index))
          await new Promise((resolve) => { setImmediate(resolve) })
        }
        await Promise.all(batch)
      }
    } finally {
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
    // Most random sequences break the protocol somewhere; a run of only clean ends would mean the fuzz reached nothing.
    assert.ok(errors > RUNS / 2, String(errors))
  })
})
