import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Agent, request } from '../../../src/index.js'
import { startHttpServer, startHttpsServer, startTcpServer, trustTestCa } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { RecordingHandler } from '../dispatcher/recording-handler.js'
import { patterned, patternedSize } from './patterned-body.js'

const BODY_BYTES = 300 * 1024
const ORIGIN_CHILD = fileURLToPath(new URL('./patterned-origin-child.js', import.meta.url))

/** Answers /N with patterned(N) written in uneven pieces, so the reads of the connections interleave. */
function answer (req: IncomingMessage, res: ServerResponse): void {
  const body = patterned(Number(req.url!.slice(1)), BODY_BYTES)
  res.writeHead(200, { 'content-length': body.length })
  let at = 0
  const next = (): void => {
    if (at >= body.length) { res.end(); return }
    const piece = body.subarray(at, at + 7000 + (at % 50_000))
    at += piece.length
    res.write(piece, () => setImmediate(next))
  }
  next()
}

async function fetchAll (t: TestContext, server: TestServer, agentOptions: ConstructorParameters<typeof Agent>[0]): Promise<void> {
  const agent = new Agent({ connections: 6, ...agentOptions })
  t.after(async () => { await agent.close(); await server.close() })
  const handlers = Array.from({ length: 12 }, (_, n) => {
    const handler = new RecordingHandler()
    agent.dispatch({ origin: server.origin, path: `/${n}`, method: 'GET' }, handler)
    return handler
  })
  await Promise.all(handlers.map((h) => h.done))
  // The chunks were kept as delivered and only read now, after every connection's later reads.
  handlers.forEach((handler, n) => {
    assert.equal(handler.error, null)
    assert.ok(Buffer.concat(handler.chunks).equals(patterned(n, BODY_BYTES)), `response ${n} changed after delivery`)
  })
}

describe('socket reads into the shared buffer', () => {
  it('hands out body chunks of their own: later reads of other connections never change them', { timeout: 20_000 }, async (t) => {
    await fetchAll(t, await startHttpServer(answer), {})
  })

  it('does the same over TLS', { timeout: 20_000 }, async (t) => {
    await fetchAll(t, await startHttpsServer(answer), { connect: trustTestCa })
  })

  it('keeps the bytes read while a body is paused, in order, for when it resumes', { timeout: 20_000 }, async (t) => {
    const server = await startHttpServer(answer)
    const agent = new Agent({ connections: 4 })
    t.after(async () => { await agent.close(); await server.close() })
    const handlers = Array.from({ length: 4 }, (_, n) => {
      const handler = new RecordingHandler()
      let paused = 0
      // Each response pauses on its first chunks, while the other connections go on reading.
      handler.onChunk = (controller) => {
        if (paused++ < 3) {
          controller.pause()
          setTimeout(() => controller.resume(), 30)
        }
      }
      agent.dispatch({ origin: server.origin, path: `/${n}`, method: 'GET' }, handler)
      return handler
    })
    await Promise.all(handlers.map((h) => h.done))
    handlers.forEach((handler, n) => {
      assert.equal(handler.error, null)
      assert.ok(Buffer.concat(handler.chunks).equals(patterned(n, BODY_BYTES)), `response ${n} lost or reordered bytes`)
    })
  })

  it('hands an upgraded socket over with the bytes after the head, and later reads as data events', { timeout: 10_000 }, async (t) => {
    const server = await startTcpServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: test\r\n\r\nfirst;')
        setTimeout(() => socket.write(patterned(1, 100_000)), 20)
        setTimeout(() => socket.end('last'), 40)
      })
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const handler = new RecordingHandler()
    agent.dispatch({ origin: server.origin, path: '/', method: 'GET', upgrade: 'test' }, handler)
    await handler.done
    const socket = handler.socket!
    const received: Buffer[] = []
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    await once(socket, 'end')
    socket.destroy()
    assert.ok(Buffer.concat(received).equals(Buffer.concat([Buffer.from('first;'), patterned(1, 100_000), Buffer.from('last')])))
  })

  it('under load against an origin in another process, delivers every body byte for byte, both framings, with uploads', { timeout: 60_000 }, async (t) => {
    const child = spawn(process.execPath, [ORIGIN_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] })
    t.after(() => { child.stdin.end() })
    const [line] = await once(createInterface({ input: child.stdout }), 'line') as [string]
    const origin = `http://127.0.0.1:${line.trim()}`
    const agent = new Agent({ connections: 8, pipelining: 1 })
    t.after(() => agent.close())
    const REQUESTS = 600
    let next = 0
    const failures: string[] = []
    const worker = async (): Promise<void> => {
      while (next < REQUESTS) {
        const n = next++
        if (n % 5 === 4) {
          const upload = patterned(n, patternedSize(n))
          const { statusCode, body } = await request(origin + '/echo', { method: 'POST', body: upload, dispatcher: agent })
          const echoed = Buffer.from(await body.bytes())
          if (statusCode !== 200 || !echoed.equals(upload)) failures.push(`POST ${n}`)
          continue
        }
        const { statusCode, body } = await request(`${origin}/${n}?chunked=${n % 2}`, { dispatcher: agent })
        // Chunks are kept as delivered and joined at the end, after other connections read on.
        const chunks: Buffer[] = []
        for await (const chunk of body) chunks.push(chunk as Buffer)
        if (statusCode !== 200 || !Buffer.concat(chunks).equals(patterned(n, patternedSize(n)))) failures.push(`GET ${n}`)
      }
    }
    await Promise.all(Array.from({ length: 50 }, worker))
    assert.deepEqual(failures, [])
  })
})
