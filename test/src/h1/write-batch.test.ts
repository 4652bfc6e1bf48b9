import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { holdWritesForTurn } from '../../../src/h1/write-batch.js'

/** A writable that records each batch it is handed (one entry per _write or _writev call). */
function recordingSocket (): { socket: Writable, batches: string[][] } {
  const batches: string[][] = []
  const socket = new Writable({
    write (chunk: Buffer, _encoding, done) { batches.push([chunk.toString()]); done() },
    writev (chunks, done) { batches.push(chunks.map((c) => String(c.chunk))); done() }
  })
  return { socket, batches }
}

describe('holdWritesForTurn()', () => {
  it('holds the writes of this turn and hands them over together at its end', async () => {
    const a = recordingSocket()
    const b = recordingSocket()
    holdWritesForTurn(a.socket)
    a.socket.write('head 1')
    holdWritesForTurn(b.socket)
    b.socket.write('head 2')
    holdWritesForTurn(a.socket)
    a.socket.write('head 3')
    assert.deepEqual(a.batches, [])
    assert.deepEqual(b.batches, [])
    await nextTurn()
    assert.deepEqual(a.batches, [['head 1', 'head 3']])
    assert.deepEqual(b.batches, [['head 2']])
    assert.equal(a.socket.writableCorked, 0)
  })

  it('holds a socket written to while the batch is handed over until the next turn', async () => {
    const a = recordingSocket()
    const b = recordingSocket()
    holdWritesForTurn(a.socket)
    a.socket.write('first', () => {
      holdWritesForTurn(b.socket)
      b.socket.write('second')
    })
    await nextTurn()
    assert.deepEqual(a.batches, [['first']])
    await nextTurn()
    await nextTurn()
    assert.deepEqual(b.batches, [['second']])
    assert.equal(b.socket.writableCorked, 0)
  })

  it('hands over the other sockets of a batch when one was destroyed meanwhile', async () => {
    const a = recordingSocket()
    const b = recordingSocket()
    holdWritesForTurn(a.socket)
    a.socket.write('lost')
    a.socket.on('error', () => {})
    a.socket.destroy()
    holdWritesForTurn(b.socket)
    b.socket.write('kept')
    await nextTurn()
    assert.deepEqual(a.batches, [])
    assert.deepEqual(b.batches, [['kept']])
  })
})
