/**
 * One client of the WebSocket benchmark, in its own process: opens `connections` WebSockets with
 * one library (conduit, undici or ws), runs `messages` echo round trips on each (send, wait for
 * the echo, repeat), and prints `{ roundTrips, seconds, cpuMicros }` as JSON. `warmup` round trips
 * per connection run first and are not measured, so every library is timed with its code compiled.
 * Every client sends Buffers (binary messages) and receives them as ArrayBuffers.
 * Arguments: `<library> <url> <size> <connections> <messages> [warmup]`.
 * @module
 */

import { undici } from '../test/helpers/undici-reference.js'
const { WebSocket: UndiciWebSocket } = undici
import WsWebSocket from 'ws'
import { Agent, WebSocket } from '../src/index.js'

/** What the benchmark needs of a client connection. */
interface EchoSocket {
  send (data: Buffer): void
  onMessage (listener: () => void): void
  close (): void
}

async function openConduit (url: string, agent: Agent): Promise<EchoSocket> {
  const ws = new WebSocket(url, { dispatcher: agent, perMessageDeflate: false })
  ws.binaryType = 'arraybuffer'
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject })
  return { send: (data) => ws.send(data), onMessage: (listener) => { ws.onmessage = listener }, close: () => ws.close() }
}

async function openUndici (url: string): Promise<EchoSocket> {
  const ws = new UndiciWebSocket(url)
  ws.binaryType = 'arraybuffer'
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject })
  return { send: (data) => ws.send(data), onMessage: (listener) => { ws.onmessage = listener }, close: () => ws.close() }
}

async function openWs (url: string): Promise<EchoSocket> {
  const ws = new WsWebSocket(url, { perMessageDeflate: false })
  // Like the other two: each binary message arrives as a fresh ArrayBuffer, not as a view of the
  // socket's chunk (ws's default 'nodebuffer'), which the standard's WebSocket cannot offer.
  ws.binaryType = 'arraybuffer'
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  // Replaces the listener, as onmessage does for the other two: the warm-up set one already.
  return { send: (data) => ws.send(data), onMessage: (listener) => { ws.removeAllListeners('message'); ws.on('message', listener) }, close: () => ws.close() }
}

const [library, url, sizeText, connectionsText, messagesText, warmupText = '0'] = process.argv.slice(2)
const size = Number(sizeText)
const connections = Number(connectionsText)
const messages = Number(messagesText)
const warmup = Number(warmupText)
const agent = new Agent({ connections: null })
const open = (): Promise<EchoSocket> => library === 'conduit' ? openConduit(url!, agent) : library === 'undici' ? openUndici(url!) : openWs(url!)
const sockets = await Promise.all(Array.from({ length: connections }, open))
const payload = Buffer.alloc(size, 0x61)

function run (socket: EchoSocket, count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count
    socket.onMessage(() => {
      if (--left === 0) resolve()
      else socket.send(payload)
    })
    socket.send(payload)
  })
}

if (warmup > 0) await Promise.all(sockets.map((socket) => run(socket, warmup)))
const cpuBefore = process.cpuUsage()
const started = process.hrtime.bigint()
await Promise.all(sockets.map((socket) => run(socket, messages)))
const seconds = Number(process.hrtime.bigint() - started) / 1e9
const cpu = process.cpuUsage(cpuBefore)
for (const socket of sockets) socket.close()
process.stdout.write(`${JSON.stringify({ roundTrips: connections * messages, seconds, cpuMicros: cpu.user + cpu.system })}\n`)
await agent.close()
process.exit(0)
