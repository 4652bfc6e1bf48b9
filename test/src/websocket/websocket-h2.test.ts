import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import http2 from 'node:http2'
import { Agent } from '../../../src/dispatcher/agent.js'
import { WebSocket } from '../../../src/websocket/websocket.js'
import type { CloseEvent, MessageEvent } from '../../../src/websocket/dom-events.js'
import { caCrt } from '../../helpers/certs.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'
import { frame } from '../../helpers/hostile-websocket-server.js'
import { startH2WebSocketServer } from '../../helpers/h2-websocket-server.js'
import type { H2WebSocketServer } from '../../helpers/h2-websocket-server.js'

function nextMessage (ws: WebSocket): Promise<unknown> {
  return once(ws, 'message').then(([event]) => (event as MessageEvent).data)
}

function closed (ws: WebSocket): Promise<CloseEvent> {
  return once(ws, 'close').then(([event]) => event as CloseEvent)
}

async function echoOnce (ws: WebSocket, text: string): Promise<unknown> {
  const reply = nextMessage(ws)
  ws.send(text)
  return await reply
}

describe('WebSocket over HTTP/2 (RFC 8441 extended CONNECT)', () => {
  let h2c: H2WebSocketServer
  let tls: H2WebSocketServer
  let compressing: H2WebSocketServer
  let without: H2WebSocketServer
  const h2cAgent = new Agent({ h2c: true })
  const tlsAgent = new Agent({ allowH2: true, connect: { ca: caCrt } })

  before(async () => {
    [h2c, tls, compressing, without] = await Promise.all([
      startH2WebSocketServer(),
      startH2WebSocketServer({ tls: true }),
      startH2WebSocketServer({ perMessageDeflate: true }),
      startH2WebSocketServer({ tls: true, enableConnectProtocol: false })
    ])
  })
  after(async () => {
    await Promise.all([h2cAgent.close(), tlsAgent.close()])
    await Promise.all([h2c?.close(), tls?.close(), compressing?.close(), without?.close()])
  })

  it('opens an h2c WebSocket as an extended CONNECT stream, echoes, and closes cleanly', async () => {
    const ws = new WebSocket(`${h2c.url}/chat?room=1`, { dispatcher: h2cAgent, protocols: ['chat', 'other'] })
    await once(ws, 'open')
    assert.equal(ws.protocol, 'chat')
    const connect = h2c.connects.at(-1)!
    assert.equal(connect[':method'], 'CONNECT')
    assert.equal(connect[':protocol'], 'websocket')
    assert.equal(connect[':scheme'], 'http')
    assert.equal(connect[':path'], '/chat?room=1')
    assert.equal(connect[':authority'], new URL(h2c.url).host)
    assert.equal(connect['sec-websocket-version'], '13')
    assert.equal(connect['sec-websocket-protocol'], 'chat, other')
    // RFC 8441 section 5: no key, and nothing of the HTTP/1.1 Upgrade.
    assert.equal(connect['sec-websocket-key'], undefined)
    assert.equal(connect.upgrade, undefined)
    assert.equal(h2c.upgrades.length, 0)
    assert.equal(await echoOnce(ws, 'héllo over h2'), 'héllo over h2')
    ws.binaryType = 'arraybuffer'
    const binary = nextMessage(ws)
    ws.send(new Uint8Array([1, 2, 3]))
    assert.deepEqual(new Uint8Array(await binary as ArrayBuffer), new Uint8Array([1, 2, 3]))
    const done = closed(ws)
    ws.close(4000, 'bye')
    const event = await done
    assert.deepEqual([event.code, event.reason, event.wasClean], [4000, 'bye', true])
  })

  it('opens a wss WebSocket on the TLS session ALPN negotiated, with the test CA', async () => {
    const ws = new WebSocket(`${tls.url}/secure`, { dispatcher: tlsAgent })
    await once(ws, 'open')
    assert.equal(tls.connects.at(-1)![':scheme'], 'https')
    assert.equal(tls.upgrades.length, 0)
    assert.equal(await echoOnce(ws, 'over TLS'), 'over TLS')
    const done = closed(ws)
    ws.close()
    assert.equal((await done).wasClean, true)
  })

  it('closes cleanly when the server starts the close handshake', async () => {
    const ws = new WebSocket(`${h2c.url}/server-closes`, { dispatcher: h2cAgent })
    await once(ws, 'open')
    const done = closed(ws)
    h2c.sockets.at(-1)!.close(4001, 'server done')
    const event = await done
    assert.deepEqual([event.code, event.reason, event.wasClean], [4001, 'server done', true])
  })

  it('negotiates permessage-deflate over the stream and round-trips compressed messages', async () => {
    const ws = new WebSocket(compressing.url, { dispatcher: h2cAgent })
    await once(ws, 'open')
    assert.match(ws.extensions, /^permessage-deflate/)
    assert.match(String(compressing.connects.at(-1)!['sec-websocket-extensions']), /permessage-deflate/)
    const big = 'compress me '.repeat(20_000)
    assert.equal(await echoOnce(ws, big), big)
    assert.equal(await echoOnce(ws, 'small'), 'small')
    const done = closed(ws)
    ws.close(1000)
    assert.equal((await done).wasClean, true)
  })

  it('multiplexes several WebSockets and plain requests on one session', async () => {
    const server = await startH2WebSocketServer()
    const agent = new Agent({ h2c: true })
    try {
      const sockets = Array.from({ length: 5 }, (_, i) => new WebSocket(`${server.url}/m${i}`, { dispatcher: agent }))
      await Promise.all(sockets.map((ws) => once(ws, 'open')))
      const replies = await Promise.all(sockets.map((ws, i) => echoOnce(ws, `socket ${i}`)))
      assert.deepEqual(replies, sockets.map((_, i) => `socket ${i}`))
      const plain = await agent.request({ origin: server.origin, path: '/plain', method: 'GET' })
      assert.equal(await plain.body.text(), 'plain http/2')
      assert.equal(server.sessions, 1)
      assert.equal(server.connects.length, 5)
      await Promise.all(sockets.map(async (ws) => {
        const done = closed(ws)
        ws.close()
        assert.equal((await done).wasClean, true)
      }))
      // The session outlives its WebSockets.
      const again = await agent.request({ origin: server.origin, path: '/after', method: 'GET' })
      assert.equal(again.statusCode, 200)
      await again.body.dump()
      assert.equal(server.sessions, 1)
    } finally {
      await agent.close()
      await server.close()
    }
  })

  it('fails with 1006 when the server resets the stream inside a message, and the session carries on', async () => {
    const server = await startH2WebSocketServer({
      onConnection: (socket, stream) => {
        socket.on('message', () => {
          // The first fragment of a text message, then RST_STREAM.
          stream!.write(frame(0x1, 'half a mess', { fin: false }), () => stream!.close(http2.constants.NGHTTP2_INTERNAL_ERROR))
        })
      }
    })
    const agent = new Agent({ h2c: true })
    try {
      const ws = new WebSocket(`${server.url}/reset`, { dispatcher: agent })
      await once(ws, 'open')
      let messages = 0
      ws.onmessage = () => { messages++ }
      const errored = once(ws, 'error')
      const done = closed(ws)
      ws.send('go')
      await errored
      const event = await done
      assert.deepEqual([event.code, event.wasClean, messages], [1006, false, 0])
      assert.equal(ws.readyState, WebSocket.CLOSED)
      const plain = await agent.request({ origin: server.origin, path: '/still-there', method: 'GET' })
      assert.equal(await plain.body.text(), 'plain http/2')
      assert.equal(server.sessions, 1)
    } finally {
      await agent.close()
      await server.close()
    }
  })

  it('falls back to an HTTP/1.1 Upgrade on a connection of its own when the server does not enable extended CONNECT', async () => {
    const agent = new Agent({ allowH2: true, connect: { ca: caCrt } })
    try {
      const first = await agent.request({ origin: without.origin, path: '/first', method: 'GET' })
      assert.equal(await first.body.text(), 'plain http/2')
      const ws = new WebSocket(`${without.url}/fallback`, { dispatcher: agent, protocols: 'chat' })
      await once(ws, 'open')
      assert.equal(ws.protocol, 'chat')
      assert.equal(without.connects.length, 0)
      assert.equal(without.upgrades.length, 1)
      assert.equal(without.upgrades[0]!['sec-websocket-version'], '13')
      assert.equal(await echoOnce(ws, 'over http/1.1'), 'over http/1.1')
      // The HTTP/2 session stays the one for plain requests.
      const second = await agent.request({ origin: without.origin, path: '/second', method: 'GET' })
      assert.equal(await second.body.text(), 'plain http/2')
      assert.equal(without.sessions, 1)
      const done = closed(ws)
      ws.close(1000)
      assert.equal((await done).wasClean, true)
    } finally {
      await agent.close()
    }
  })

  it('falls back when the WebSocket is the first request of the agent', async () => {
    const agent = new Agent({ allowH2: true, connect: { ca: caCrt } })
    try {
      const upgradesBefore = without.upgrades.length
      const ws = new WebSocket(`${without.url}/first`, { dispatcher: agent })
      await once(ws, 'open')
      assert.equal(without.upgrades.length, upgradesBefore + 1)
      assert.equal(await echoOnce(ws, 'first'), 'first')
      const done = closed(ws)
      ws.close()
      assert.equal((await done).wasClean, true)
    } finally {
      await agent.close()
    }
  })
})

describe('WebSocket over HTTP/2: what a server without extended CONNECT gets over h2c', () => {
  it('fails the handshake clearly when the fallback HTTP/1.1 connection reaches a server that speaks only h2c', async () => {
    const server = await startH2WebSocketServer({ enableConnectProtocol: false })
    const agent = new Agent({ h2c: true })
    try {
      const ws = new WebSocket(`${server.url}/nowhere`, { dispatcher: agent })
      const errored = once(ws, 'error') as Promise<[Event & { error: Error }]>
      const done = closed(ws)
      const [error] = await errored
      assert.match(error.error.message, /other side closed/)
      const event = await done
      assert.deepEqual([event.code, event.wasClean, ws.readyState], [1006, false, WebSocket.CLOSED])
      assert.equal(server.connects.length, 0)
    } finally {
      await agent.close()
      await server.close()
    }
  })
})

// One h2c WebSocket that sends a message and closes, in a child process with NODE_DEBUG set.
const debugScript = (tls: boolean): string => `
  import * as conduit from ${JSON.stringify(indexUrl)}
  import { startH2WebSocketServer } from ${JSON.stringify(new URL('../../helpers/h2-websocket-server.js', import.meta.url).href)}
  import { caCrt } from ${JSON.stringify(new URL('../../helpers/certs.js', import.meta.url).href)}
  const server = await startH2WebSocketServer({ tls: ${tls} })
  console.error('HOST ' + new URL(server.url).host)
  const agent = new conduit.Agent(${tls} ? { allowH2: true, connect: { ca: caCrt } } : { h2c: true })
  const ws = new conduit.WebSocket(server.url + '/chat', { dispatcher: agent })
  ws.onopen = () => ws.send('hi')
  ws.onmessage = () => ws.close(1000, 'done')
  await new Promise((resolve) => { ws.onclose = resolve })
  await agent.close()
  await server.close()
`

function debugLines (stderr: string): { host: string, lines: string[] } {
  const host = /HOST (\S+)/.exec(stderr)![1]!
  const prefix = /^WEBSOCKET \d+: /
  return { host, lines: stderr.split('\n').filter((line) => prefix.test(line)).map((line) => line.replace(prefix, '')) }
}

describe('NODE_DEBUG=websocket over HTTP/2', () => {
  it('names h2 in the connection lines of an h2c WebSocket', async () => {
    const run = await runWithNodeDebug(debugScript(false), 'websocket')
    assert.equal(run.code, 0, run.stderr)
    const { host, lines } = debugLines(run.stderr)
    assert.deepEqual(lines, [
      `connecting to ${host} using http:h2`,
      `connected to ${host} using http:h2`,
      `sending request to GET http://${host}/chat`,
      `connection opened ${host}`
    ])
  })

  it('names the protocol ALPN chose once connected over TLS', async () => {
    const run = await runWithNodeDebug(debugScript(true), 'websocket')
    assert.equal(run.code, 0, run.stderr)
    const { host, lines } = debugLines(run.stderr)
    // Before the TLS handshake the protocol is not known yet: ALPN picks it.
    assert.deepEqual(lines, [
      `connecting to ${host} using https:h1`,
      `connected to ${host} using https:h2`,
      `sending request to GET https://${host}/chat`,
      // The peer's address, as for HTTP/1.1: the host name resolved.
      `connection opened 127.0.0.1:${host.split(':')[1]!}`
    ])
  })
})
