import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Agent } from '../../../src/dispatcher/agent.js'
import { WebSocket, ping } from '../../../src/websocket/websocket.js'
import type { CloseEvent, MessageEvent } from '../../../src/websocket/dom-events.js'
import { caCrt } from '../../helpers/certs.js'
import { startWsEchoServer } from '../../helpers/ws-server.js'
import type { WsEchoServer } from '../../helpers/ws-server.js'

function nextMessage (ws: WebSocket): Promise<MessageEvent> {
  return once(ws, 'message').then(([event]) => event as MessageEvent)
}

/** The next `count` messages; one chunk may carry several, so they are collected from one listener. */
function messages (ws: WebSocket, count: number): Promise<unknown[]> {
  return new Promise((resolve) => {
    const seen: unknown[] = []
    const listener = (event: Event): void => {
      seen.push((event as MessageEvent).data)
      if (seen.length === count) {
        ws.removeEventListener('message', listener)
        resolve(seen)
      }
    }
    ws.addEventListener('message', listener)
  })
}

function closed (ws: WebSocket): Promise<CloseEvent> {
  return once(ws, 'close').then(([event]) => event as CloseEvent)
}

describe('WebSocket against the ws package server', () => {
  let echo: WsEchoServer
  let compressing: WsEchoServer
  let secure: WsEchoServer
  const agent = new Agent()

  before(async () => {
    [echo, compressing, secure] = await Promise.all([
      startWsEchoServer(),
      startWsEchoServer({ perMessageDeflate: { threshold: 0 } }),
      startWsEchoServer({ tls: true })
    ])
  })
  after(async () => {
    await agent.close()
    await Promise.all([echo?.close(), compressing?.close(), secure?.close()])
  })

  it('opens, echoes text and binary in order, and closes cleanly with the code and reason given', async () => {
    const ws = new WebSocket(`${echo.url}/chat?room=1`, { dispatcher: agent })
    assert.equal(ws.readyState, WebSocket.CONNECTING)
    await once(ws, 'open')
    assert.equal(ws.readyState, WebSocket.OPEN)
    ws.binaryType = 'arraybuffer'
    const arrived = messages(ws, 4)
    ws.send('héllo')
    ws.send(new Uint8Array([1, 2, 3]))
    ws.send(new Blob(['blob']))
    ws.send(Buffer.from('after the blob'))
    const received = await arrived
    assert.equal(received[0], 'héllo')
    assert.deepEqual(new Uint8Array(received[1] as ArrayBuffer), new Uint8Array([1, 2, 3]))
    assert.equal(Buffer.from(received[2] as ArrayBuffer).toString(), 'blob')
    assert.equal(Buffer.from(received[3] as ArrayBuffer).toString(), 'after the blob')
    const done = closed(ws)
    ws.close(4000, 'bye')
    assert.equal(ws.readyState, WebSocket.CLOSING)
    const event = await done
    assert.deepEqual([event.code, event.reason, event.wasClean], [4000, 'bye', true])
    assert.equal(ws.bufferedAmount, 0)
    assert.equal(echo.requests.at(-1)!['sec-websocket-version'], '13')
  })

  it('delivers binary messages as Blobs by default', async () => {
    const ws = new WebSocket(echo.url, { dispatcher: agent })
    await once(ws, 'open')
    ws.send(new Uint8Array([9, 8]))
    const event = await nextMessage(ws)
    assert.ok(event.data instanceof Blob)
    assert.deepEqual(new Uint8Array(await (event.data as Blob).arrayBuffer()), new Uint8Array([9, 8]))
    ws.close()
    // A close without a code sends an empty close frame; the echo has no code either.
    assert.equal((await closed(ws)).code, 1005)
  })

  it('negotiates a subprotocol the server picks and exposes it', async () => {
    const ws = new WebSocket(echo.url, { protocols: ['chat.v2', 'chat.v1'], dispatcher: agent })
    await once(ws, 'open')
    assert.equal(ws.protocol, 'chat.v2')
    assert.equal(echo.requests.at(-1)!['sec-websocket-protocol'], 'chat.v2, chat.v1')
    ws.close()
    await closed(ws)
  })

  it('sends the extra handshake headers given', async () => {
    const ws = new WebSocket(echo.url, { dispatcher: agent, headers: { 'x-token': 'abc' } })
    await once(ws, 'open')
    assert.equal(echo.requests.at(-1)!['x-token'], 'abc')
    ws.close()
    await closed(ws)
  })

  it('negotiates permessage-deflate and keeps the context across messages', async () => {
    const ws = new WebSocket(compressing.url, { dispatcher: agent })
    await once(ws, 'open')
    assert.match(ws.extensions, /^permessage-deflate/)
    const texts = ['repeat '.repeat(200), 'repeat '.repeat(200), 'κόσμε'.repeat(1000), '']
    for (const text of texts) {
      ws.send(text)
      assert.equal((await nextMessage(ws)).data, text)
    }
    const big = Buffer.alloc(3 * 1024 * 1024, 7)
    ws.binaryType = 'arraybuffer'
    ws.send(big)
    assert.ok(Buffer.from((await nextMessage(ws)).data as ArrayBuffer).equals(big))
    ws.close()
    assert.equal((await closed(ws)).wasClean, true)
  })

  it('does not offer permessage-deflate when asked not to', async () => {
    const ws = new WebSocket(compressing.url, { dispatcher: agent, perMessageDeflate: false })
    await once(ws, 'open')
    assert.equal(ws.extensions, '')
    assert.equal(compressing.requests.at(-1)!['sec-websocket-extensions'], undefined)
    ws.close()
    await closed(ws)
  })

  it('connects over wss: with the TLS options of its dispatcher', async () => {
    const tlsAgent = new Agent({ connect: { ca: caCrt } })
    const ws = new WebSocket(secure.url, { dispatcher: tlsAgent })
    await once(ws, 'open')
    ws.send('secure')
    assert.equal((await nextMessage(ws)).data, 'secure')
    ws.close()
    await closed(ws)
    await tlsAgent.close()
  })

  it('accepts http: and https: URLs as ws: and wss:', async () => {
    const ws = new WebSocket(echo.url.replace('ws:', 'http:'), { dispatcher: agent })
    assert.equal(ws.url, `${echo.url}/`)
    await once(ws, 'open')
    ws.close()
    await closed(ws)
  })

  it('sends pings with ping() and publishes the pong on both channel names', async () => {
    const pongs: unknown[] = []
    const onPong = (message: unknown): void => { pongs.push(message) }
    diagnosticsChannel.subscribe('conduit:websocket:pong', onPong)
    diagnosticsChannel.subscribe('undici:websocket:pong', onPong)
    const ws = new WebSocket(echo.url, { dispatcher: agent })
    try {
      await once(ws, 'open')
      ping(ws, Buffer.from('are you there'))
      while (pongs.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
      const [message] = pongs as Array<{ payload: Buffer, websocket: WebSocket }>
      assert.equal(message!.payload.toString(), 'are you there')
      assert.equal(message!.websocket, ws)
      assert.throws(() => ping(ws, Buffer.alloc(126)), TypeError)
    } finally {
      diagnosticsChannel.unsubscribe('conduit:websocket:pong', onPong)
      diagnosticsChannel.unsubscribe('undici:websocket:pong', onPong)
      ws.close()
      await closed(ws)
    }
  })

  it('publishes open and close with undici\'s message shapes', async () => {
    const seen: Array<[string, Record<string, unknown>]> = []
    const names = ['undici:websocket:open', 'undici:websocket:close', 'conduit:websocket:open', 'conduit:websocket:close']
    const listeners = names.map((name) => {
      const listener = (message: unknown): void => { seen.push([name, message as Record<string, unknown>]) }
      diagnosticsChannel.subscribe(name, listener)
      return listener
    })
    try {
      const ws = new WebSocket(echo.url, { dispatcher: agent, protocols: 'p1' })
      await once(ws, 'open')
      ws.close(1000, 'done')
      await closed(ws)
      assert.deepEqual(seen.map(([name]) => name).sort(), [...names].sort())
      const open = seen.find(([name]) => name === 'undici:websocket:open')![1]
      assert.deepEqual(open.address, { address: '127.0.0.1', family: 'IPv4', port: echo.port })
      assert.equal(open.protocol, 'p1')
      assert.equal(open.websocket, ws)
      assert.equal((open.handshakeResponse as { status: number }).status, 101)
      const close = seen.find(([name]) => name === 'conduit:websocket:close')![1]
      assert.deepEqual([close.code, close.reason, close.websocket], [1000, 'done', ws])
    } finally {
      names.forEach((name, i) => diagnosticsChannel.unsubscribe(name, listeners[i]!))
    }
  })

  it('counts bufferedAmount up on send and down once the data is written', async () => {
    const ws = new WebSocket(echo.url, { dispatcher: agent })
    await once(ws, 'open')
    const echoed = messages(ws, 2)
    ws.send('x'.repeat(1000))
    ws.send(new Uint8Array(24))
    assert.equal(ws.bufferedAmount, 1024)
    await echoed
    assert.equal(ws.bufferedAmount, 0)
    ws.close()
    await closed(ws)
  })

  it('sets and clears event handler attributes', async () => {
    const ws = new WebSocket(echo.url, { dispatcher: agent })
    const calls: string[] = []
    const first = (): void => { calls.push('first') }
    ws.onopen = first
    assert.equal(ws.onopen, first)
    ws.onopen = () => { calls.push('second') }
    ws.addEventListener('open', () => { calls.push('listener') })
    await once(ws, 'open')
    ws.onopen = null
    assert.equal(ws.onopen, null)
    assert.deepEqual(calls, ['second', 'listener'])
    ws.close()
    await closed(ws)
  })

  it('closing while connecting fails the handshake: error, then close 1006', async () => {
    const ws = new WebSocket(echo.url, { dispatcher: agent })
    const events: string[] = []
    ws.onerror = () => { events.push('error') }
    ws.onopen = () => { events.push('open') }
    ws.close()
    assert.equal(ws.readyState, WebSocket.CLOSING)
    const event = await closed(ws)
    assert.deepEqual(events, ['error'])
    assert.deepEqual([event.code, event.wasClean], [1006, false])
  })

  it('reports a server that closes with a code as a clean close with that code', async () => {
    const server = await startWsEchoServer({ onConnection: (socket) => socket.close(4321, 'server says bye') })
    const ws = new WebSocket(server.url, { dispatcher: agent })
    const event = await closed(ws)
    assert.deepEqual([event.code, event.reason, event.wasClean], [4321, 'server says bye', true])
    await server.close()
  })
})
