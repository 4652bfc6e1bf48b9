import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Agent } from '../../src/dispatcher/agent.js'
import { ProxyAgent } from '../../presets/proxy-agent.js'
import { Socks5ProxyAgent } from '../../presets/socks5-proxy-agent.js'
import { EnvHttpProxyAgent } from '../../presets/env-http-proxy-agent.js'
import { dns } from '../../interceptors/dns/index.js'
import { debug } from '../../interceptors/debug.js'
import { WebSocket } from '../../src/websocket/websocket.js'
import { WebSocketStream } from '../../src/websocket/websocket-stream.js'
import type { CloseEvent, MessageEvent } from '../../src/websocket/dom-events.js'
import type { Dispatcher } from '../../src/dispatcher/dispatcher.js'
import { caCrt } from '../helpers/certs.js'
import { startWsEchoServer } from '../helpers/ws-server.js'
import type { WsEchoServer } from '../helpers/ws-server.js'
import { HELPER_START_TIMEOUT_MS, startAll } from '../helpers/start-all.js'
import { startSquid } from './helpers/squid.js'
import type { Squid } from './helpers/squid.js'
import { startMicrosocks } from './helpers/microsocks.js'
import type { Microsocks } from './helpers/microsocks.js'
import { startNginx } from './helpers/nginx.js'
import type { Nginx } from './helpers/nginx.js'
import { startPythonWebSocketServer } from './helpers/python-websockets.js'
import type { PythonWebSocketServer } from './helpers/python-websockets.js'

/** Opens a WebSocket through `dispatcher`, echoes text and binary, closes cleanly; returns what came back. */
async function echoRoundTrip (url: string, dispatcher: Dispatcher, protocols: string[] = []): Promise<{ text: unknown, binary: unknown, protocol: string, extensions: string, close: CloseEvent }> {
  const ws = new WebSocket(url, { dispatcher, protocols })
  ws.binaryType = 'arraybuffer'
  await once(ws, 'open')
  const received: unknown[] = []
  const both = new Promise<void>((resolve) => {
    ws.onmessage = (event: MessageEvent) => {
      received.push(event.data)
      if (received.length === 2) resolve()
    }
  })
  ws.send('héllo through the stack')
  ws.send(new Uint8Array([0, 1, 2, 255]))
  await both
  const closed = once(ws, 'close')
  ws.close(1000, 'done')
  const [close] = await closed as [CloseEvent]
  return { text: received[0], binary: [...new Uint8Array(received[1] as ArrayBuffer)], protocol: ws.protocol, extensions: ws.extensions, close }
}

function assertEchoed (result: Awaited<ReturnType<typeof echoRoundTrip>>): void {
  assert.equal(result.text, 'héllo through the stack')
  assert.deepEqual(result.binary, [0, 1, 2, 255])
  assert.deepEqual([result.close.code, result.close.reason, result.close.wasClean], [1000, 'done', true])
}

describe('WebSocket against real servers and proxies', () => {
  let echo: WsEchoServer
  let secure: WsEchoServer
  let python: PythonWebSocketServer
  let squid: Squid
  let socks: Microsocks
  let nginx: Nginx

  before(async () => {
    [echo, secure] = await Promise.all([startWsEchoServer(), startWsEchoServer({ tls: true })])
    ;[python, squid, socks, nginx] = await startAll([
      startPythonWebSocketServer(),
      startSquid(),
      startMicrosocks(),
      startNginx({}, { websocketUpstream: echo.port })
    ])
  }, { timeout: HELPER_START_TIMEOUT_MS })
  after(() => Promise.all([echo?.close(), secure?.close(), python?.stop(), squid?.stop(), socks?.stop(), nginx?.stop()]))

  it('talks to Debian\'s python3-websockets server, with a subprotocol and permessage-deflate', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const result = await echoRoundTrip(python.url, agent, ['chat'])
    assertEchoed(result)
    assert.equal(result.protocol, 'chat')
    assert.match(result.extensions, /^permessage-deflate/)
  })

  it('exchanges many compressed messages with python3-websockets, context kept between them', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const ws = new WebSocket(python.url, { dispatcher: agent })
    await once(ws, 'open')
    const sent = Array.from({ length: 50 }, (_, i) => `message ${i} `.repeat(i * 10))
    const received: string[] = []
    const all = new Promise<void>((resolve) => {
      ws.onmessage = (event: MessageEvent) => {
        received.push(event.data as string)
        if (received.length === sent.length) resolve()
      }
    })
    for (const text of sent) ws.send(text)
    await all
    assert.deepEqual(received, sent)
    const closed = once(ws, 'close')
    ws.close()
    await closed
  })

  it('goes through squid with CONNECT (ProxyAgent), for ws: and for wss:', async (t) => {
    const agent = new ProxyAgent({ uri: squid.url, requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    assertEchoed(await echoRoundTrip(echo.url, agent))
    assertEchoed(await echoRoundTrip(secure.url, agent))
    assert.match(await squid.accessLog(), /CONNECT (127\.0\.0\.1|localhost):/)
  })

  it('goes through EnvHttpProxyAgent to squid, and around it for a NO_PROXY host', async (t) => {
    const agent = new EnvHttpProxyAgent({ httpProxy: squid.url, httpsProxy: squid.url, noProxy: `localhost:${secure.port}`, connect: { ca: caCrt }, requestTls: { ca: caCrt } } as ConstructorParameters<typeof EnvHttpProxyAgent>[0])
    t.after(() => agent.close())
    const tunnelsToSecure = async (): Promise<number> => (await squid.accessLog()).split('\n').filter((line) => line.includes(`:${secure.port}`)).length
    const before = await tunnelsToSecure()
    assertEchoed(await echoRoundTrip(echo.url, agent))
    assertEchoed(await echoRoundTrip(secure.url, agent))
    assert.equal(await tunnelsToSecure(), before)
  })

  it('goes through microsocks (Socks5ProxyAgent), for ws: and for wss:', async (t) => {
    const agent = new Socks5ProxyAgent(socks.url, { requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    assertEchoed(await echoRoundTrip(echo.url, agent))
    assertEchoed(await echoRoundTrip(secure.url, agent))
  })

  it('goes through nginx proxying the upgrade over TLS', async (t) => {
    const agent = new Agent({ connect: { ca: caCrt } })
    t.after(() => agent.close())
    const url = `${nginx.origin.replace('https:', 'wss:')}/ws/echo`
    assertEchoed(await echoRoundTrip(url, agent))
    assert.equal(echo.requests.at(-1)!.upgrade, 'websocket')
  })

  it('goes through a composed stack: the dns and debug interceptors see the handshake', async (t) => {
    const lines: string[] = []
    const agent = new Agent().compose(dns({ affinity: 4 }), debug({ logger: (line) => lines.push(line) }))
    t.after(() => agent.close())
    const url = echo.url.replace('127.0.0.1', 'localhost')
    assertEchoed(await echoRoundTrip(`${url}/stacked`, agent))
    assert.ok(lines.some((line) => /sending request to GET http:\/\/localhost:\d+\/stacked/.test(line)), lines.join('\n'))
  })

  it('WebSocketStream echoes through squid with backpressure-aware streams', async (t) => {
    const agent = new ProxyAgent({ uri: squid.url })
    t.after(() => agent.close())
    const wss = new WebSocketStream(echo.url, { dispatcher: agent })
    const { readable, writable } = await wss.opened
    const writer = writable.getWriter()
    const reader = readable.getReader()
    await writer.write('stream text')
    await writer.write(new Uint8Array([7, 7]))
    assert.equal((await reader.read()).value, 'stream text')
    assert.deepEqual([...(await reader.read()).value as Uint8Array], [7, 7])
    wss.close({ closeCode: 1000, reason: 'finished' })
    assert.deepEqual(await wss.closed, { closeCode: 1000, reason: 'finished' })
  })
})
