/**
 * The WebSocket echo clients the benchmarks share: one connection opened with conduit, undici or
 * `ws`, each receiving binary messages as ArrayBuffers, and the send-wait-repeat echo loop.
 * @module
 */

import WsWebSocket from 'ws'
import { undici } from '../../test/helpers/undici-reference.js'
import { Agent, WebSocket } from '../../src/index.js'

const { WebSocket: UndiciWebSocket } = undici

/** What the benchmarks need of a client connection. */
export interface EchoSocket {
  /** Sends one binary message. */
  send (data: Buffer): void
  /** Sets the one listener of incoming messages, replacing the previous one. */
  onMessage (listener: () => void): void
  /** Starts the close handshake. */
  close (): void
}

/** The libraries an echo client can use. */
export type EchoLibrary = 'conduit' | 'undici' | 'ws'

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

/** Opens one echo connection to `url` with `library`; conduit's goes through `agent`. */
export function openEchoSocket (library: string, url: string, agent: Agent): Promise<EchoSocket> {
  if (library === 'conduit') return openConduit(url, agent)
  if (library === 'undici') return openUndici(url)
  if (library === 'ws') return openWs(url)
  throw new TypeError(`library must be conduit, undici or ws, got ${library}`)
}

/** Runs `count` echo round trips on `socket`, one message in flight: send, wait for the echo, repeat. */
export function echoRoundTrips (socket: EchoSocket, payload: Buffer, count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count
    socket.onMessage(() => {
      if (--left === 0) resolve()
      else socket.send(payload)
    })
    socket.send(payload)
  })
}
