import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { UNDICI_MAJOR, undici } from '../helpers/undici-reference.js'
const { WebSocket: UndiciWebSocket, Agent: UndiciAgent } = undici
import { WebSocket } from '../../src/websocket/websocket.js'
import { Agent } from '../../src/dispatcher/agent.js'
import { startWsEchoServer } from '../helpers/ws-server.js'
import type { WsEchoServer } from '../helpers/ws-server.js'
import { closeFrame, startHostileServer } from '../helpers/hostile-websocket-server.js'
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

/** What a server saw of a handshake: the raw header lines as sent. */
async function rawHandshakeHeaders (make: (url: string) => { close: () => void, addEventListener: (type: string, listener: () => void) => void }): Promise<string[]> {
  const server = await startHostileServer(() => {})
  try {
    const ws = make(server.url)
    await new Promise<void>((resolve) => ws.addEventListener('open', () => resolve()))
    ws.close()
    return server.connections[0]!.rawLines
  } finally {
    await server.close()
  }
}

describe('WebSocket handshake, auth, send() and WebSocketStream compared with undici', () => {
  const agent = new Agent()
  const undiciAgent = new UndiciAgent()
  after(async () => { await Promise.all([agent.close(), undiciAgent.close()]) })

  it('sends the caller\'s header names as written, as undici does', async () => {
    const headers = { 'X-Trace-Id': 'abc', 'User-Agent': 'drop-in/1', accept: 'text/plain' }
    const ours = await rawHandshakeHeaders((url) => new WebSocket(url, { dispatcher: agent, headers }))
    const theirs = await rawHandshakeHeaders((url) => new UndiciWebSocket(url, { dispatcher: undiciAgent, headers }) as never)
    for (const lines of [ours, theirs]) {
      assert.ok(lines.includes('X-Trace-Id: abc'), lines.join(' | '))
      assert.ok(lines.includes('User-Agent: drop-in/1'), lines.join(' | '))
    }
  })

  it('answers a 401 with the URL\'s user:pass@ as Basic credentials, once, as undici does', async () => {
    const expected = `Basic ${Buffer.from('me:s3cret').toString('base64')}`
    const seen: Array<string | undefined> = []
    const server = await startHostileServer(() => {}, {
      response: (accept, headers) => {
        seen.push(headers.authorization)
        return headers.authorization === expected
          ? `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`
          : 'HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Basic realm="ws"\r\ncontent-length: 0\r\n\r\n'
      }
    })
    try {
      const url = server.url.replace('ws://', 'ws://me:s3cret@')
      for (const make of [(u: string) => new WebSocket(u, { dispatcher: agent }), (u: string) => new UndiciWebSocket(u, { dispatcher: undiciAgent })]) {
        const ws = make(url) as unknown as AnyWebSocket
        await new Promise<void>((resolve, reject) => {
          ws.addEventListener('open', () => resolve())
          ws.addEventListener('error', () => reject(new Error('the handshake failed')))
        })
        ws.close()
        assert.deepEqual(seen.splice(0), [undefined, expected])
      }
    } finally {
      await server.close()
    }
  })

  it('send(): a SharedArrayBuffer goes out as its string form, as undici sends it; a view of one is a TypeError', async () => {
    const received: Array<{ opcode: number, text: string }> = []
    const server = await startHostileServer((connection) => {
      void connection.closeFrame.then(() => connection.socket.end(closeFrame(1000)))
      connection.socket.on('data', () => {
        for (const f of connection.frames.splice(0)) if (f.opcode === 1 || f.opcode === 2) received.push({ opcode: f.opcode, text: f.payload.toString() })
      })
    })
    try {
      for (const make of [(u: string) => new WebSocket(u, { dispatcher: agent }), (u: string) => new UndiciWebSocket(u, { dispatcher: undiciAgent })]) {
        const ws = make(server.url) as unknown as AnyWebSocket & { send: (data: unknown) => void }
        await new Promise<void>((resolve) => ws.addEventListener('open', () => resolve()))
        ws.send(new SharedArrayBuffer(0))
        ws.send(new SharedArrayBuffer(2))
        ws.send(42)
        ws.close()
        await new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()))
      }
      const each = [{ opcode: 1, text: '[object SharedArrayBuffer]' }, { opcode: 1, text: '[object SharedArrayBuffer]' }, { opcode: 1, text: '42' }]
      assert.deepEqual(received, [...each, ...each])
      const ws = new WebSocket(server.url, { dispatcher: agent })
      await new Promise<void>((resolve) => ws.addEventListener('open', () => resolve()))
      assert.throws(() => ws.send(new Uint8Array(new SharedArrayBuffer(2))), (err: Error) => err instanceof TypeError && /SharedArrayBuffer/.test(err.message))
      assert.throws(() => (ws.send as unknown as () => void)(), TypeError)
      ws.close()
    } finally {
      await server.close()
    }
  })

  it('WebSocketStream: an abort during the handshake rejects opened and closed with the signal\'s reason, as undici 8 does', async () => {
    const { WebSocketStream } = await import('../../src/websocket/websocket-stream.js')
    const silent = await startHostileServer(() => {}, { response: () => '' })
    try {
      const outcomes = []
      for (const Stream of [WebSocketStream, undici.WebSocketStream]) {
        const controller = new AbortController()
        const reason = new Error('given up')
        const stream = new (Stream as typeof WebSocketStream)(silent.url, { signal: controller.signal })
        setTimeout(() => controller.abort(reason), 50)
        const opened = await stream.opened.then(() => null, (err: unknown) => err as DOMException & { closeCode: number | null })
        const closed = await stream.closed.then(() => null, (err: unknown) => err as DOMException & { closeCode: number | null })
        outcomes.push(opened === reason && closed === reason ? 'the reason' : [opened?.name, opened?.closeCode, closed?.name, closed?.closeCode])
      }
      assert.equal(outcomes[0], 'the reason')
      // undici 7.30 rejected both with WebSocketErrors (docs/undici-differences.md, "undici 7 and undici 8").
      assert.deepEqual(outcomes[1], UNDICI_MAJOR === 8 ? 'the reason' : ['WebSocketError', null, 'WebSocketError', 1006])
    } finally {
      await silent.close()
    }
  })

  it('has WebIDL constants and enumerable members, as undici\'s WebSocket', () => {
    for (const Class of [WebSocket, UndiciWebSocket]) {
      for (const name of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) {
        for (const target of [Class, Class.prototype]) {
          const { writable, enumerable, configurable } = Object.getOwnPropertyDescriptor(target, name)!
          assert.deepEqual({ writable, enumerable, configurable }, { writable: false, enumerable: true, configurable: false }, name)
        }
      }
    }
    for (const key of Object.getOwnPropertyNames(WebSocket.prototype).filter((k) => k !== 'constructor')) {
      assert.equal(Object.getOwnPropertyDescriptor(WebSocket.prototype, key)!.enumerable, true, key)
    }
    assert.equal(Object.prototype.toString.call(WebSocket.prototype), '[object WebSocket]')
  })
})
