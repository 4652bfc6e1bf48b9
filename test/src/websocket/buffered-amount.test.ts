import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { Agent } from '../../../src/dispatcher/agent.js'
import { WebSocket } from '../../../src/websocket/websocket.js'
import type { CloseEvent } from '../../../src/websocket/dom-events.js'
import { closeFrame, startHostileServer } from '../../helpers/hostile-websocket-server.js'
import type { HostileConnection, HostileServer } from '../../helpers/hostile-websocket-server.js'

const BINARY = 0x2
/** Upper bound of 64 KiB messages sent to fill the loopback buffers (64 MiB). */
const MAX_SENDS = 1000
/** Upper bound of 5 ms waits for the server to read everything (10 s). */
const MAX_WAITS = 2000

/** Waits, in bounded steps, until `done()` holds; fails the test when it never does. */
async function until (what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < MAX_WAITS && !done(); i++) await sleep(5)
  assert.ok(done(), `gave up waiting until ${what}`)
}

describe('WebSocket bufferedAmount while the socket backs up', () => {
  let server: HostileServer
  let agent: Agent
  const connections: HostileConnection[] = []

  before(async () => {
    // The server reads nothing until the test resumes it, so the client's writes pile up.
    server = await startHostileServer((connection) => {
      connection.socket.pause()
      connections.push(connection)
    })
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  it('keeps counting messages the socket still holds and counts them down once they leave', async () => {
    const ws = new WebSocket(server.url, { dispatcher: agent })
    await once(ws, 'open')
    const message = Buffer.alloc(64 * 1024, 0x61)
    ws.send(Buffer.from('first'))
    assert.equal(ws.bufferedAmount, 5, 'a message counts until the task that sent it ends')
    await nextTurn()
    assert.equal(ws.bufferedAmount, 0, 'the kernel took the small message at once')
    let sends = 0
    while (sends < MAX_SENDS) {
      ws.send(message)
      sends++
      await nextTurn()
      if (ws.bufferedAmount > 0) break
    }
    assert.ok(ws.bufferedAmount > 0, `the socket never backed up after ${sends} messages of 64 KiB`)
    assert.ok(ws.bufferedAmount <= sends * message.length)

    const connection = connections[0]!
    connection.socket.resume()
    await until('the server read every message', () => connection.frames.length === sends + 1)
    await until('bufferedAmount is back to 0', () => ws.bufferedAmount === 0)
    assert.deepEqual(connection.frames.map((f) => [f.opcode, f.payload.length]),
      [[BINARY, 5], ...Array.from({ length: sends }, () => [BINARY, message.length])])
    assert.ok(connection.frames.slice(1).every((f) => f.payload.equals(message)))

    const closed = once(ws, 'close')
    connection.socket.end(closeFrame(1000))
    const [event] = await closed as [CloseEvent]
    assert.equal(event.code, 1000)
  })
})
