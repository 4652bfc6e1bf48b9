import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { Agent } from '../../../src/dispatcher/agent.js'
import { WebSocket } from '../../../src/websocket/websocket.js'
import { WebSocketStream } from '../../../src/websocket/websocket-stream.js'
import type { CloseEvent, MessageEvent } from '../../../src/websocket/dom-events.js'
import { closeFrame, deflated, frame, startHostileServer } from '../../helpers/hostile-websocket-server.js'
import type { HostileServer } from '../../helpers/hostile-websocket-server.js'
import { patterned } from '../connection/patterned-body.js'

const ECHO_CHILD = fileURLToPath(new URL('./ws-echo-child.js', import.meta.url))

// Sockets from the built-in connector read into one buffer shared by all of them, and the
// WebSocket parses each read in place. These cases make every kind of payload the parser keeps
// past one read (a header or payload cut by a read, fragments, a compressed message, ping and pong
// payloads) arrive across reads while other connections read into the same buffer.

const TEXT = 0x1
const BINARY = 0x2
const CONTINUATION = 0x0
const PING = 0x9
const PONG = 0xa

/** Distinct bytes per message, so a payload overwritten by another read shows. */
function pattern (length: number, seed: number): Buffer {
  const out = Buffer.alloc(length)
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 7) % 251
  return out
}

const unicode = 'grüße, 世界, 🎉 '.repeat(40)
const big = pattern(200 * 1024, 3)
const huge = pattern(1024 * 1024 + 5000, 4)

/** What the server sends, message by message, and what the client must receive. */
const script: Array<{ wire: Buffer, message?: string | Buffer }> = [
  { wire: frame(TEXT, unicode), message: unicode },
  { wire: frame(BINARY, pattern(1000, 1)), message: pattern(1000, 1) },
  { wire: Buffer.concat([frame(BINARY, pattern(300, 2).subarray(0, 100), { fin: false }), frame(PING, 'ping-1'), frame(CONTINUATION, pattern(300, 2).subarray(100))]), message: pattern(300, 2) },
  { wire: frame(BINARY, big), message: big },
  { wire: frame(PONG, 'pong-1') },
  { wire: frame(TEXT, deflated('compressed '.repeat(500)), { rsv: 0x40 }), message: 'compressed '.repeat(500) },
  { wire: frame(BINARY, huge), message: huge },
  { wire: Buffer.concat([frame(TEXT, Buffer.from(unicode).subarray(0, 7), { fin: false }), frame(CONTINUATION, Buffer.from(unicode).subarray(7))]), message: unicode }
]
const wire = Buffer.concat([...script.map((step) => step.wire), closeFrame(1000)])
const expected = script.flatMap((step) => step.message === undefined ? [] : [step.message])

/** Writes `bytes` in pieces of 1 to 5000 bytes, waiting between them so each is a read of its own. */
async function trickle (socket: import('node:net').Socket, bytes: Buffer, seed: number): Promise<void> {
  let at = 0
  let n = seed
  while (at < bytes.length && !socket.destroyed) {
    n = (n * 1103515245 + 12345) % 2147483648
    // Mostly small pieces (cut headers, cut UTF-8), now and then a large one.
    const size = n % 7 === 0 ? 60_000 + (n % 9000) : 1 + (n % 5000)
    socket.write(bytes.subarray(at, at + size))
    at += size
    await sleep(1)
  }
}

function same (received: Array<string | Uint8Array>): void {
  assert.equal(received.length, expected.length)
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i]!
    const got = received[i]!
    if (typeof want === 'string') assert.equal(got, want, `message ${i}`)
    else assert.ok(Buffer.from(got as Uint8Array).equals(want), `message ${i}: bytes differ`)
  }
}

describe('WebSocket reads parsed in place from the shared read buffer', () => {
  let server: HostileServer
  const agent = new Agent()

  before(async () => {
    let seed = 1
    server = await startHostileServer(({ socket }) => { void trickle(socket, wire, seed++) }, { extensions: 'permessage-deflate' })
  })
  after(async () => {
    await agent.close()
    await server?.close()
  })

  it('six WebSockets at once receive every message intact, pings answered with their payloads', async () => {
    const pings: string[] = []
    const pongs: string[] = []
    const onPing = (message: unknown): void => { pings.push(Buffer.from((message as { payload: Uint8Array }).payload).toString()) }
    const onPong = (message: unknown): void => { pongs.push(Buffer.from((message as { payload: Uint8Array }).payload).toString()) }
    subscribe('conduit:websocket:ping', onPing)
    subscribe('conduit:websocket:pong', onPong)
    try {
      const runs = Array.from({ length: 6 }, async () => {
        const ws = new WebSocket(server.url, { dispatcher: agent })
        ws.binaryType = 'arraybuffer'
        const received: Array<string | Uint8Array> = []
        ws.onmessage = (event: MessageEvent) => {
          received.push(typeof event.data === 'string' ? event.data : new Uint8Array(event.data as ArrayBuffer))
        }
        const closed = await new Promise<CloseEvent>((resolve) => { ws.onclose = resolve })
        assert.equal(closed.code, 1000)
        assert.equal(closed.wasClean, true)
        same(received)
      })
      await Promise.all(runs)
    } finally {
      unsubscribe('conduit:websocket:ping', onPing)
      unsubscribe('conduit:websocket:pong', onPong)
    }
    // Payloads kept by a subscriber are still theirs after later reads.
    assert.deepEqual(pings, Array(6).fill('ping-1'))
    assert.deepEqual(pongs, Array(6).fill('pong-1'))
    const answers = server.connections.slice(-6).map((c) => c.frames.filter((f) => f.opcode === PONG).map((f) => f.payload.toString()))
    assert.deepEqual(answers, Array(6).fill(['ping-1']))
  })

  it('a WebSocketStream read slowly (its socket paused and resumed) receives every message intact', async () => {
    const wss = new WebSocketStream(server.url, { dispatcher: agent })
    const { readable } = await wss.opened
    const received: Array<string | Uint8Array> = []
    const reader = readable.getReader()
    for (let next = await reader.read(); next.done !== true; next = await reader.read()) {
      received.push(next.value as string | Uint8Array)
      await sleep(2)
    }
    assert.equal((await wss.closed).closeCode, 1000)
    same(received)
  })
})

describe('WebSocket under load against an echo server in another process', () => {
  /** Message `i` of a connection: from empty to 300 KiB, every seventh 1.2 MiB (above the 1 MiB prefill). */
  function sizeOf (i: number): number {
    return i % 7 === 6 ? 1200 * 1024 + i : [0, 5, 125, 126, 1024, 65_535, 65_536, 200_000, 300 * 1024][i % 9]! + i
  }

  it('16 connections (half with permessage-deflate), 30 messages each: every byte comes back', async (t) => {
    const child = spawn(process.execPath, [ECHO_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] })
    t.after(() => { child.stdin.end() })
    const [line] = await once(createInterface({ input: child.stdout }), 'line') as [string]
    const [plainPort, deflatePort] = line.split(' ').map(Number)
    const agent = new Agent({ connections: 32 })
    t.after(() => agent.close())
    const connection = async (c: number): Promise<number> => {
      const port = c % 2 === 0 ? plainPort : deflatePort
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { dispatcher: agent })
      ws.binaryType = 'arraybuffer'
      await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject })
      assert.equal(ws.extensions === '', c % 2 === 0)
      let checked = 0
      for (let i = 0; i < 30; i++) {
        const bytes = patterned(c * 100 + i, sizeOf(i))
        // Every third message is text (the pattern mapped to ASCII), the rest binary.
        const text = i % 3 === 0 ? bytes.toString('latin1').replace(/[^\x20-\x7e]/g, 'a') : null
        const echoed = new Promise<MessageEvent>((resolve) => { ws.onmessage = resolve })
        ws.send(text ?? bytes)
        const { data } = await echoed
        if (text !== null) assert.equal(data, text, `connection ${c}, message ${i}`)
        else assert.ok(Buffer.from(data as ArrayBuffer).equals(bytes), `connection ${c}, message ${i}: bytes differ`)
        checked++
      }
      const closed = new Promise<CloseEvent>((resolve) => { ws.onclose = resolve })
      ws.close(1000)
      assert.equal((await closed).code, 1000)
      return checked
    }
    const counts = await Promise.all(Array.from({ length: 16 }, (_, c) => connection(c)))
    assert.deepEqual(counts, Array(16).fill(30))
  })
})
