import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../helpers/undici-reference.js'
const { WebSocket: UndiciWebSocket, Agent: UndiciAgent } = undici
import { WebSocket } from '../../src/websocket/websocket.js'
import { Agent } from '../../src/dispatcher/agent.js'
import { startWsEchoServer } from '../helpers/ws-server.js'
import type { WsEchoServer } from '../helpers/ws-server.js'
import { startHostileServer } from '../helpers/hostile-websocket-server.js'
import type { HostileServer } from '../helpers/hostile-websocket-server.js'

type AnyWebSocket = { readyState: number, protocol: string, extensions: string, binaryType: string, send: (data: string | Uint8Array) => void, close: (code?: number, reason?: string) => void, addEventListener: (type: string, listener: (event: Event) => void) => void }

/** Runs one scenario and records what a caller can observe: events in order with their data. */
async function observe (ws: AnyWebSocket, script: (ws: AnyWebSocket, event: string) => void): Promise<string[]> {
  const seen: string[] = [`initial ${ws.readyState} ${ws.binaryType}`]
  script(ws, 'created')
  seen.push(`after creation ${ws.readyState}`)
  return new Promise((resolve) => {
    for (const type of ['open', 'message', 'error', 'close']) {
      ws.addEventListener(type, (event: Event) => {
        const e = event as Event & { data?: unknown, code?: number, reason?: string, wasClean?: boolean }
        let line = `${type} state=${ws.readyState}`
        if (type === 'open') line += ` protocol=${ws.protocol} extensions=${ws.extensions.split(';')[0]}`
        if (type === 'message') line += ` ${typeof e.data === 'string' ? `text:${e.data}` : `${Object.prototype.toString.call(e.data)}`}`
        if (type === 'close') line += ` ${e.code} ${e.reason} ${e.wasClean}`
        if (type === 'error') line += ` ${event.constructor.name}`
        seen.push(line)
        script(ws, type)
        if (type === 'close') resolve(seen)
      })
    }
  })
}

describe('WebSocket compared with undici\'s, event by event', () => {
  let echo: WsEchoServer
  let deflating: WsEchoServer
  let refusing: HostileServer
  const agent = new Agent()
  const undiciAgent = new UndiciAgent()

  before(async () => {
    [echo, deflating, refusing] = await Promise.all([
      startWsEchoServer(),
      startWsEchoServer({ perMessageDeflate: true }),
      startHostileServer(() => {}, { response: () => 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n' })
    ])
  })
  after(async () => {
    await Promise.all([agent.close(), undiciAgent.close()])
    await Promise.all([echo?.close(), deflating?.close(), refusing?.close()])
  })

  const both = async (url: string, init: { protocols?: string[] }, script: (ws: AnyWebSocket, event: string) => void): Promise<void> => {
    const ours = await observe(new WebSocket(url, { ...init, dispatcher: agent }) as unknown as AnyWebSocket, script)
    const theirs = await observe(new UndiciWebSocket(url, { ...init, dispatcher: undiciAgent }) as unknown as AnyWebSocket, script)
    assert.deepEqual(ours, theirs)
  }

  it('echo, binary as Blob, close with code and reason', () => both(echo.url, { protocols: ['a', 'b'] }, (ws, event) => {
    if (event === 'open') {
      ws.send('one')
      ws.send(new Uint8Array([1]))
    }
    if (event === 'message' && ws.readyState === 1) ws.close(4001, 'enough')
  }))

  it('permessage-deflate negotiated and a close without a code (reported as 1005)', () => both(deflating.url, {}, (ws, event) => {
    if (event === 'open') ws.send('compressed?')
    if (event === 'message') ws.close()
  }))

  it('a handshake answered with 200: error, then close 1006', () => both(refusing.url, {}, () => {}))

  // close() while connecting is an intended difference (docs/undici-differences.md): undici 7
  // fires no event at all, conduit fails the connection as the standard says (error, close 1006).

  it('the same SyntaxErrors for a bad URL and bad subprotocols', () => {
    for (const [url, protocols] of [['ftp://x/', undefined], ['ws://x/#f', undefined], ['ws://x/', ['a', 'a']], ['ws://x/', ['a b']]] as const) {
      const name = (make: () => unknown): string => { try { make(); return 'no error' } catch (err) { return `${(err as Error).constructor.name}/${(err as Error).name}` } }
      assert.equal(name(() => new WebSocket(url, protocols as string[] | undefined)), name(() => new UndiciWebSocket(url, protocols as string[] | undefined)), `${url} ${String(protocols)}`)
    }
  })
})
