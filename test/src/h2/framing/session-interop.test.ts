// The session against node:http2's server (nghttp2), an implementation it shares no code with:
// SETTINGS both ways, PING, the connection WINDOW_UPDATE, a 1 MiB request body held back by the
// server's windows while it does not read, and GOAWAY. Response header blocks from nghttp2 use
// Huffman and indexing, which the test codec cannot decode, so no response head is read here.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { ErrorCode } from '../../../../src/h2/framing/protocol.js'
import { GET, StreamRecorder, openSession } from './session-harness.js'

const POST = GET.map(([name, value]): [string, string] => [name, name === ':method' ? 'POST' : value])

describe('H2Session with node:http2', { timeout: 30_000 }, () => {
  it('exchanges SETTINGS and PING, sends a 1 MiB body within the server\'s windows, and goes away cleanly', async () => {
    const body = randomBytes(1 << 20)
    const server = http2.createServer()
    let resume: () => void = () => {}
    const streamSeen = new Promise<http2.ServerHttp2Stream>((resolve) => { server.on('stream', resolve) })
    const remoteSettings = new Promise<http2.Settings>((resolve) => { server.on('session', (session) => { session.once('remoteSettings', resolve) }) })
    const goaway = new Promise<number>((resolve) => { server.on('session', (session) => { session.once('goaway', resolve) }) })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const opened = await openSession((server.address() as AddressInfo).port, { initialWindowSize: 100_000, connectionWindowSize: 1 << 20 })
      const settings = await remoteSettings
      assert.equal(settings.enablePush, false)
      assert.equal(settings.initialWindowSize, 100_000)
      assert.equal(settings.maxHeaderListSize, 16_384)

      const rtt = await new Promise<number>((resolve) => { opened.session.ping(resolve) })
      assert.ok(rtt >= 0)
      assert.equal(opened.session.remoteSettings.received, true)

      const stream = StreamRecorder.open(opened.session, POST, false)
      assert.equal(opened.session.write(stream.id, body, true), false)
      const serverStream = await streamSeen
      serverStream.pause()
      const hash = createHash('sha256')
      let received = 0
      const ended = new Promise<void>((resolve) => { serverStream.on('end', resolve) })
      resume = () => {
        serverStream.on('data', (chunk: Buffer) => { hash.update(chunk); received += chunk.length })
        serverStream.resume()
      }
      // While the server reads nothing, its windows hold most of the body back.
      await new Promise<number>((resolve) => { opened.session.ping(resolve) })
      assert.equal(stream.writable, 0)
      resume()
      await ended
      assert.equal(received, body.length)
      assert.equal(hash.digest('hex'), createHash('sha256').update(body).digest('hex'))
      assert.equal(stream.writable, 1)

      opened.session.reset(stream.id, ErrorCode.CANCEL)
      assert.equal((await stream.closed).error?.message.includes('CANCEL'), true)
      opened.session.close()
      assert.equal(await goaway, ErrorCode.NO_ERROR)
      assert.equal(await opened.closed, null)
      await opened.socketClosed
    } finally {
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
  })
})
