import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { UNDICI_MAJOR, undici } from '../helpers/undici-reference.js'
import { WebSocket } from '../../src/websocket/websocket.js'
import { Agent } from '../../src/dispatcher/agent.js'
import { caCrt } from '../helpers/certs.js'
import { startH2WebSocketServer } from '../helpers/h2-websocket-server.js'
import type { H2WebSocketServer } from '../helpers/h2-websocket-server.js'

type AnyWebSocket = { send: (data: string) => void, close: () => void, addEventListener: (type: string, listener: (event: Event) => void) => void }

/** Opens, echoes one message and closes; records what a caller sees and how the server was reached. */
async function observe (ws: AnyWebSocket, server: H2WebSocketServer): Promise<string[]> {
  const connects = server.connects.length
  const upgrades = server.upgrades.length
  const seen: string[] = []
  await new Promise<void>((resolve) => {
    ws.addEventListener('open', () => { seen.push('open'); ws.send('echo me') })
    ws.addEventListener('message', (event) => { seen.push(`message ${String((event as MessageEvent).data)}`); ws.close() })
    ws.addEventListener('error', () => seen.push('error'))
    ws.addEventListener('close', (event) => {
      seen.push(`close ${(event as CloseEvent).code}`)
      resolve()
    })
  })
  seen.push(`extended CONNECT ${server.connects.length - connects}, HTTP/1.1 upgrade ${server.upgrades.length - upgrades}`)
  return seen
}

describe('WebSocket over an allowH2 agent, compared with undici\'s', () => {
  let enabling: H2WebSocketServer
  let withoutSetting: H2WebSocketServer
  const agent = new Agent({ allowH2: true, connect: { ca: caCrt } })
  const undiciAgent = new undici.Agent({ allowH2: true, connect: { ca: caCrt } })

  before(async () => {
    [enabling, withoutSetting] = await Promise.all([
      startH2WebSocketServer({ tls: true }),
      startH2WebSocketServer({ tls: true, enableConnectProtocol: false })
    ])
  })
  after(async () => {
    await Promise.all([agent.close(), undiciAgent.close()])
    await Promise.all([enabling?.close(), withoutSetting?.close()])
  })

  const compare = async (server: H2WebSocketServer, expected: string[]): Promise<void> => {
    const ours = await observe(new WebSocket(`${server.url}/`, { dispatcher: agent }) as unknown as AnyWebSocket, server)
    const theirs = await observe(new undici.WebSocket(`${server.url}/`, { dispatcher: undiciAgent }) as unknown as AnyWebSocket, server)
    assert.deepEqual(ours, expected)
    if (UNDICI_MAJOR === 8) {
      assert.deepEqual(theirs, ours)
    } else {
      // An intended difference (docs/undici-differences.md): undici 7 refuses a WebSocket on an
      // HTTP/2 session, with or without extended CONNECT.
      assert.deepEqual(theirs.slice(0, 2), ['error', 'close 1006'])
    }
  }

  it('a server that enables extended CONNECT: the WebSocket is a stream of the HTTP/2 session', () =>
    compare(enabling, ['open', 'message echo me', 'close 1005', 'extended CONNECT 1, HTTP/1.1 upgrade 0']))

  it('a server that does not: the handshake goes over HTTP/1.1 on a connection of its own', () =>
    compare(withoutSetting, ['open', 'message echo me', 'close 1005', 'extended CONNECT 0, HTTP/1.1 upgrade 1']))
})
