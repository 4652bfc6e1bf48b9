import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createDeflateRaw, constants as zlibConstants } from 'node:zlib'
import type { DeflateRaw } from 'node:zlib'
import { Agent } from '../../../src/dispatcher/agent.js'
import { WebSocket } from '../../../src/websocket/websocket.js'
import type { CloseEvent, ErrorEvent } from '../../../src/websocket/dom-events.js'
import { freePort } from '../../helpers/free-port.js'
import { frame, startHostileServer } from '../../helpers/hostile-websocket-server.js'
import type { HostileOptions, HostileServer } from '../../helpers/hostile-websocket-server.js'

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }

/** Waits for the error and close events of a failing WebSocket. */
async function failure (ws: WebSocket): Promise<{ error: ErrorEvent | null, close: CloseEvent }> {
  let error: ErrorEvent | null = null
  ws.addEventListener('error', (event) => { error = event as ErrorEvent })
  const [close] = await once(ws, 'close') as [CloseEvent]
  return { error, close }
}

/** A server answering the handshake with `response`; returns the WebSocket's failure. */
async function handshakeAnswered (options: HostileOptions, init: { protocols?: string[], perMessageDeflate?: boolean } = {}): Promise<{ message: string, code: string, close: CloseEvent, server: HostileServer }> {
  const server = await startHostileServer(() => {}, options)
  const agent = new Agent()
  try {
    const ws = new WebSocket(server.url, { dispatcher: agent, ...init })
    const { error, close } = await failure(ws)
    const err = error!.error as Error & { code: string }
    await Promise.all(server.connections.map((c) => c.closed))
    return { message: err.message, code: err.code, close, server }
  } finally {
    await agent.close()
    await server.close()
  }
}

/** A deflate stream inflating to more than `gib` GiB of zeros, built without ever holding the inflated data. */
async function inflatingBomb (gib: number): Promise<Buffer> {
  const deflater: DeflateRaw = createDeflateRaw({ level: 9 })
  const chunks: Buffer[] = []
  deflater.on('data', (chunk: Buffer) => chunks.push(chunk))
  const flushAfter = async (data: Buffer): Promise<Buffer> => {
    chunks.length = 0
    deflater.write(data)
    await new Promise<void>((resolve) => deflater.flush(zlibConstants.Z_SYNC_FLUSH, () => resolve()))
    return Buffer.concat(chunks)
  }
  // After 64 KiB of zeros the window holds only zeros, so the block for the next MiB of zeros
  // (back-references only) is valid again after itself: repeating it repeats the MiB.
  const start = await flushAfter(Buffer.alloc(64 * 1024))
  const mebibyte = await flushAfter(Buffer.alloc(1024 * 1024))
  deflater.close()
  return Buffer.concat([start, ...Array.from({ length: gib * 1024 }, () => mebibyte)])
}

describe('WebSocket with bad input', () => {
  before(() => { process.on('unhandledRejection', onUnhandled) })
  after(() => {
    process.off('unhandledRejection', onUnhandled)
    assert.deepEqual(unhandled, [])
  })

  it('refuses an invalid URL with a SyntaxError naming it, credentials hidden', () => {
    for (const url of ['not a url', 'ftp://user:secret@example.org/', 'ws://example.org/#fragment']) {
      assert.throws(() => new WebSocket(url), (err: DOMException) => {
        assert.equal(err.name, 'SyntaxError')
        assert.ok(err instanceof DOMException)
        assert.doesNotMatch(err.message, /secret/)
        assert.match(err.message, url.startsWith('ftp') ? /ftp:/ : /#|not a url/)
        return true
      })
    }
  })

  it('refuses a bad subprotocol list with a SyntaxError naming the protocol', () => {
    for (const protocols of [['a b'], ['chat', 'CHAT'], [''], ['x,y']]) {
      assert.throws(() => new WebSocket('ws://127.0.0.1:1/', protocols), (err: DOMException) => {
        assert.equal(err.name, 'SyntaxError')
        assert.match(err.message, /subprotocol/)
        return true
      })
    }
  })

  it('refuses bad options with an InvalidArgumentError naming the value', () => {
    assert.throws(() => new WebSocket('ws://127.0.0.1:1/', { maxMessageSize: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxMessageSize.*-1/ })
    assert.throws(() => new WebSocket('ws://127.0.0.1:1/', { closeTimeoutMs: 'soon' as unknown as number }), { code: 'LIB_ERR_INVALID_ARG', message: /closeTimeoutMs/ })
    assert.throws(() => new WebSocket('ws://127.0.0.1:1/', { maxFragments: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxFragments.*0/ })
    assert.throws(() => new WebSocket('ws://127.0.0.1:1/', { maxFragments: 1.5 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxFragments.*1\.5/ })
  })

  it('refuses send() while connecting and close() with a bad code or long reason, as the standard says', async () => {
    const port = await freePort()
    const agent = new Agent()
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { dispatcher: agent })
    assert.throws(() => ws.send('early'), { name: 'InvalidStateError' })
    assert.throws(() => ws.close(1001), { name: 'InvalidAccessError', message: /1001/ })
    assert.throws(() => ws.close(5000), { name: 'InvalidAccessError' })
    assert.throws(() => ws.close(1000, 'x'.repeat(124)), { name: 'SyntaxError', message: /124/ })
    const { error, close } = await failure(ws)
    assert.ok(error !== null)
    assert.deepEqual([close.code, close.wasClean], [1006, false])
    await agent.close()
  })

  it('a handshake answered with 200 fails with a WebSocketHandshakeError naming the status', async () => {
    const result = await handshakeAnswered({ response: () => 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok' })
    assert.equal(result.code, 'LIB_ERR_WEBSOCKET_HANDSHAKE')
    assert.match(result.message, /answered 200 OK instead of 101/)
    assert.deepEqual([result.close.code, result.close.wasClean], [1006, false])
  })

  it('a wrong accept key fails the handshake', async () => {
    const result = await handshakeAnswered({ response: () => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: d3JvbmcK\r\n\r\n' })
    assert.equal(result.code, 'LIB_ERR_WEBSOCKET_HANDSHAKE')
    assert.match(result.message, /Sec-WebSocket-Accept: "d3JvbmcK"/)
  })

  it('a 101 without Upgrade: websocket or Connection: Upgrade fails the handshake', async () => {
    const noUpgrade = await handshakeAnswered({ response: (accept) => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n` })
    assert.match(noUpgrade.message, /Upgrade: "h2c"/)
    const noConnection = await handshakeAnswered({ response: (accept) => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n` })
    assert.match(noConnection.message, /Connection: "keep-alive"/)
  })

  it('a subprotocol or extension that was not asked for fails the handshake', async () => {
    const answer = (extra: string) => (accept: string) => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${extra}\r\n`
    const protocol = await handshakeAnswered({ response: answer('Sec-WebSocket-Protocol: other\r\n') }, { protocols: ['chat'] })
    assert.match(protocol.message, /subprotocol "other", which was not asked for/)
    const extension = await handshakeAnswered({ response: answer('Sec-WebSocket-Extensions: permessage-deflate\r\n') }, { perMessageDeflate: false })
    assert.match(extension.message, /no extension was offered/)
    const unknown = await handshakeAnswered({ response: answer('Sec-WebSocket-Extensions: x-webkit-deflate-frame\r\n') })
    assert.match(unknown.message, /"x-webkit-deflate-frame", which was not offered/)
    const param = await handshakeAnswered({ response: answer('Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=30\r\n') })
    assert.match(param.message, /client_max_window_bits must be 8 to 15, got "30"/)
  })

  it('a refused connection is an error event and a close 1006', async () => {
    const agent = new Agent()
    const ws = new WebSocket(`ws://127.0.0.1:${await freePort()}/`, { dispatcher: agent })
    const { error, close } = await failure(ws)
    assert.match((error!.error as Error).message, /ECONNREFUSED/)
    assert.equal(close.code, 1006)
    await agent.close()
  })

  it('a server that never completes the close handshake is dropped after closeTimeoutMs', async () => {
    const server = await startHostileServer(() => {})
    const agent = new Agent()
    const ws = new WebSocket(server.url, { dispatcher: agent, closeTimeoutMs: 100 })
    await once(ws, 'open')
    ws.close(1000)
    const { error, close } = await failure(ws)
    assert.deepEqual([close.code, close.wasClean], [1006, false])
    assert.ok(error !== null)
    const connection = server.connections[0]!
    await connection.closed
    assert.equal((await connection.closeFrame)!.payload.readUInt16BE(0), 1000)
    await agent.close()
    await server.close()
  })

  it('a frame inflating to 1 GiB fails with 1009 at the default 64 MiB limit', async () => {
    const bomb = await inflatingBomb(1)
    assert.ok(bomb.length < 4 * 1024 * 1024, `the bomb is ${bomb.length} bytes`)
    const server = await startHostileServer((connection) => { connection.socket.write(frame(0x2, bomb, { rsv: 0x40 })) }, { extensions: 'permessage-deflate' })
    const agent = new Agent()
    const ws = new WebSocket(server.url, { dispatcher: agent })
    let messages = 0
    ws.onmessage = () => { messages++ }
    const { error, close } = await failure(ws)
    assert.equal(messages, 0)
    assert.equal((error!.error as { closeCode: number }).closeCode, 1009)
    assert.match((error!.error as Error).message, /message size limit of 67108864/)
    assert.equal(close.code, 1006)
    const connection = server.connections[0]!
    assert.equal((await connection.closeFrame)!.payload.readUInt16BE(0), 1009)
    await connection.closed
    await agent.close()
    await server.close()
  })
})
