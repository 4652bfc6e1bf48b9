import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { WebSocket } from '../../../src/websocket/websocket.js'
import type { CloseEvent, ErrorEvent, MessageEvent } from '../../../src/websocket/dom-events.js'
import { Agent } from '../../../src/dispatcher/agent.js'
import { closeFrame, startHostileServer } from '../../helpers/hostile-websocket-server.js'
import type { HostileConnection, HostileServer } from '../../helpers/hostile-websocket-server.js'
import { protocolCases } from './protocol-cases.js'
import type { ProtocolCase } from './protocol-cases.js'

function play (testCase: ProtocolCase) {
  return (connection: HostileConnection): void => {
    const { socket } = connection
    void connection.closeFrame.then(() => socket.end())
    for (const chunk of testCase.send) socket.write(chunk)
    const ownClose = testCase.send.some((chunk) => chunk.length >= 2 && (chunk[0]! & 0x0f) === 0x8 && (chunk[0]! & 0x80) !== 0)
    if (!ownClose) socket.write(closeFrame(1000))
  }
}

// One server per extension answer; cases run one after the other and each connection takes the next.
describe('the protocol case table against a hostile server', () => {
  let plain: HostileServer
  let deflate: HostileServer
  const agent = new Agent()

  before(async () => {
    plain = await startHostileServer((connection) => { play(pending.shift()!)(connection) })
    deflate = await startHostileServer((connection) => { play(pending.shift()!)(connection) }, { extensions: 'permessage-deflate; server_no_context_takeover; client_no_context_takeover' })
  })
  after(async () => {
    await agent.close()
    await Promise.all([plain?.close(), deflate?.close()])
  })

  // Cases run one after the other, so the server takes the next case from this queue.
  const pending: ProtocolCase[] = []

  for (const testCase of protocolCases) {
    const expected = testCase.client === testCase.event ? `closes with ${testCase.event}` : `sends close ${testCase.client ?? '(no code)'}, reports ${testCase.event}`
    it(`${testCase.id} ${testCase.title}: ${expected}`, async () => {
      pending.push(testCase)
      const server = testCase.extensions === undefined ? plain : deflate
      const ws = new WebSocket(`${server.url}/${testCase.id}`, { dispatcher: agent, maxMessageSize: testCase.maxMessageSize, maxFragments: testCase.maxFragments, closeTimeoutMs: 5_000 })
      ws.binaryType = 'arraybuffer'
      const messages: string[] = []
      const errors: unknown[] = []
      ws.onmessage = (event: MessageEvent) => {
        messages.push(typeof event.data === 'string' ? event.data : `hex:${Buffer.from(event.data as ArrayBuffer).toString('hex')}`)
      }
      ws.onerror = (event: ErrorEvent) => { errors.push(event.error) }
      const closed = await new Promise<CloseEvent>((resolve) => { ws.onclose = resolve })
      const connection = server.connections.at(-1)!
      await connection.closed
      const clientClose = connection.frames.find((f) => f.opcode === 0x8)
      const pongs = connection.frames.filter((f) => f.opcode === 0xa).map((f) => f.payload.toString('hex'))
      assert.deepEqual(messages, testCase.messages ?? [])
      assert.deepEqual(pongs, testCase.pongs ?? [])
      assert.ok(connection.frames.every((f) => f.masked), 'every client frame is masked')
      assert.ok(clientClose !== undefined, 'the client sent a close frame')
      assert.equal(clientClose.payload.length >= 2 ? clientClose.payload.readUInt16BE(0) : null, testCase.client)
      assert.equal(closed.code, testCase.event)
      assert.equal(closed.wasClean, testCase.event !== 1006)
      assert.equal(errors.length, testCase.event === 1006 ? 1 : 0)
      if (testCase.event === 1006) assert.equal((errors[0] as { closeCode: number }).closeCode, testCase.client)
      assert.equal(ws.readyState, WebSocket.CLOSED)
    })
  }
})
