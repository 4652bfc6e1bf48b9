// PING ACKs owed to a server that sends PINGs and reads nothing pile up in the client's socket
// (CVE-2019-9512, CVE-2019-9515): the session counts the replies it queues while the socket does
// not drain and ends the connection past maxQueuedControlReplies, so its memory stays bounded.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { H2ProtocolError } from '../../../../src/h2/framing/protocol-error.js'
import { ErrorCode, FrameType } from '../../../../src/h2/framing/protocol.js'
import { startHostileServer } from './hostile-server.js'
import { rawFrame } from './raw-frames.js'
import { openSession } from './session-harness.js'

const BATCH = Buffer.concat(Array.from({ length: 4096 }, () => rawFrame(FrameType.PING, 0, 0, Buffer.alloc(8))))
/** Enough PINGs to fill the loopback buffers many times over; the session must stop long before. */
const MAX_BATCHES = 4000

describe('H2Session control replies', () => {
  it('ends the connection with ENHANCE_YOUR_CALM naming maxQueuedControlReplies when its ACKs are not read', { timeout: 120_000 }, async () => {
    let batches = 0
    const server = await startHostileServer(async (c) => {
      await c.waitFor((frame) => frame.type === FrameType.SETTINGS)
      c.socket.pause()
      while (!c.socket.destroyed && batches < MAX_BATCHES) {
        batches++
        if (!c.socket.write(BATCH)) await new Promise((resolve) => { c.socket.once('drain', resolve); c.socket.once('close', resolve) })
      }
    })
    try {
      const opened = await openSession(server.port, { maxQueuedControlReplies: 100, floods: { maxPings: Number.MAX_SAFE_INTEGER } })
      const error = await opened.closed
      assert.ok(error instanceof H2ProtocolError, String(error))
      assert.equal(error.errorCode, ErrorCode.ENHANCE_YOUR_CALM)
      assert.equal(error.limit, 'maxQueuedControlReplies')
      await opened.socketClosed
      assert.ok(batches < MAX_BATCHES, String(batches))
    } finally {
      await server.close()
    }
  })
})
