import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../../src/dispatcher/agent.js'
import { WebSocket } from '../../../src/websocket/websocket.js'
import { WebSocketStream } from '../../../src/websocket/websocket-stream.js'
import type { CloseEvent, MessageEvent } from '../../../src/websocket/dom-events.js'
import { closeFrame, frame, startHostileServer } from '../../helpers/hostile-websocket-server.js'
import type { HostileServer } from '../../helpers/hostile-websocket-server.js'

const BINARY = 0x2
const CONTINUATION = 0x0

/** Larger than one socket read (64 KiB), so its frame always arrives in several chunks. */
const big = Buffer.alloc(100 * 1024)
for (let i = 0; i < big.length; i++) big[i] = i % 251

/**
 * The messages each case sends, in the ways a payload can reach the client: sharing a socket
 * chunk with other frames, spanning chunks (copied into a buffer of its own and handed over),
 * and in fragments (joined).
 */
const sent: Buffer[] = [Buffer.from('abc'), big, Buffer.from('def'), Buffer.from('xyz')]
const wire = Buffer.concat([
  frame(BINARY, 'abc'),
  frame(BINARY, big),
  frame(BINARY, 'de', { fin: false }),
  frame(CONTINUATION, 'f'),
  frame(BINARY, 'xyz'),
  closeFrame(1000)
])

/** Every message holds exactly its own bytes, in a buffer no other message shares. */
function assertSeparate (received: Uint8Array[]): void {
  assert.deepEqual(received.map((bytes) => Buffer.from(bytes).toString('hex')), sent.map((bytes) => bytes.toString('hex')))
  for (const bytes of received) {
    assert.equal(bytes.byteOffset, 0)
    assert.equal(bytes.buffer.byteLength, bytes.length, 'no bytes of other frames are reachable through the buffer')
  }
  assert.equal(new Set(received.map((bytes) => bytes.buffer)).size, received.length)
  // Writing into one message leaves the ones after it as they were.
  for (let i = 0; i < received.length; i++) {
    received[i]!.fill(0)
    for (let j = i + 1; j < received.length; j++) assert.ok(Buffer.from(received[j]!).equals(sent[j]!))
  }
}

describe('binary messages as ArrayBuffers and stream chunks', () => {
  let server: HostileServer
  const agent = new Agent()

  before(async () => {
    server = await startHostileServer(({ socket }) => { socket.write(wire) })
  })
  after(async () => {
    await agent.close()
    await server?.close()
  })

  it('WebSocket with binaryType arraybuffer gives each message an ArrayBuffer of exactly its bytes', async () => {
    const ws = new WebSocket(server.url, { dispatcher: agent })
    ws.binaryType = 'arraybuffer'
    const received: Uint8Array[] = []
    ws.onmessage = (event: MessageEvent) => {
      assert.ok(event.data instanceof ArrayBuffer)
      assert.equal(event.target, ws)
      received.push(new Uint8Array(event.data))
    }
    const closed = await new Promise<CloseEvent>((resolve) => { ws.onclose = resolve })
    assert.equal(closed.code, 1000)
    assertSeparate(received)
  })

  it('WebSocketStream gives each binary message a Uint8Array of exactly its bytes', async () => {
    const wss = new WebSocketStream(server.url, { dispatcher: agent })
    const { readable } = await wss.opened
    const received: Uint8Array[] = []
    const reader = readable.getReader()
    for (let next = await reader.read(); next.done !== true; next = await reader.read()) {
      assert.ok(next.value instanceof Uint8Array)
      received.push(next.value)
    }
    assert.equal((await wss.closed).closeCode, 1000)
    assertSeparate(received)
  })
})
