/**
 * A WebSocket echo server over HTTP/2 (RFC 8441 extended CONNECT) on node:http2, h2c or TLS
 * with the test certificate. The WebSocket framing on each accepted stream is the `ws`
 * package's (an implementation independent of conduit's), given the stream as its socket. With
 * TLS the server also takes HTTP/1.1 Upgrade handshakes, so a client that falls back to
 * HTTP/1.1 reaches the same echo.
 */

import type http from 'node:http'
import type http2 from 'node:http2'
import type { Duplex } from 'node:stream'
import * as wsPackage from 'ws'
import { WebSocket as WsSocket, WebSocketServer } from 'ws'
import { startH2cServer, startH2sServer, respond } from './h2-server.js'
import type { H2TestServer } from './h2-server.js'

const MAX_PAYLOAD = 64 * 1024 * 1024

/** The parts of ws's extension negotiation a server uses (exported by ws, absent from its type definitions). */
interface PerMessageDeflate { accept: (offers: unknown) => object }
interface WsExtras {
  PerMessageDeflate: new (options: { isServer: boolean, maxPayload: number, threshold: number }) => PerMessageDeflate
  extension: { parse: (header: string) => Record<string, unknown>, format: (extensions: Record<string, object[]>) => string }
}
const { PerMessageDeflate, extension } = wsPackage as unknown as WsExtras
/** ws's server-side socket: made without an address, then given the stream (what its server does after an upgrade). */
type ServerSideSocket = WsSocket & { _protocol: string, _extensions: object, setSocket: (socket: Duplex, head: Buffer, options: object) => void }
const WsServerSocket = WsSocket as unknown as new (address: null, protocols: undefined, options: object) => ServerSideSocket

/** A running HTTP/2 WebSocket server. */
export interface H2WebSocketServer extends H2TestServer {
  /** `ws://127.0.0.1:PORT` (h2c) or `wss://localhost:PORT` (TLS). */
  url: string
  /** Headers of every extended CONNECT stream, pseudo-headers included, oldest first. */
  connects: http2.IncomingHttpHeaders[]
  /** Headers of every HTTP/1.1 Upgrade handshake, oldest first. */
  upgrades: http.IncomingHttpHeaders[]
  /** The server side of every WebSocket, in the order they opened. */
  sockets: WsSocket[]
}

/** Options of {@link startH2WebSocketServer}. */
export interface H2WebSocketOptions {
  tls?: boolean
  /** Advertise SETTINGS_ENABLE_CONNECT_PROTOCOL (default true). */
  enableConnectProtocol?: boolean
  /** Accept permessage-deflate when offered. */
  perMessageDeflate?: boolean
  /** Replaces the echo; `stream` is null for an HTTP/1.1 WebSocket. */
  onConnection?: (socket: WsSocket, stream: http2.ServerHttp2Stream | null) => void
}

function firstProtocol (header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(',') : header ?? ''
  return value.split(',')[0]!.trim()
}

/** Starts the server. */
export async function startH2WebSocketServer (options: H2WebSocketOptions = {}): Promise<H2WebSocketServer> {
  const connects: http2.IncomingHttpHeaders[] = []
  const upgrades: http.IncomingHttpHeaders[] = []
  const sockets: WsSocket[] = []
  const opened = (socket: WsSocket, stream: http2.ServerHttp2Stream | null): void => {
    sockets.push(socket)
    socket.on('error', () => {})
    if (options.onConnection !== undefined) options.onConnection(socket, stream)
    else socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }))
  }
  const onStream = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void => {
    if (headers[':method'] !== 'CONNECT' || headers[':protocol'] !== 'websocket') {
      respond(stream, 200, 'plain http/2')
      return
    }
    connects.push(headers)
    const answer: http2.OutgoingHttpHeaders = { ':status': 200 }
    const protocol = firstProtocol(headers['sec-websocket-protocol'])
    if (protocol !== '') answer['sec-websocket-protocol'] = protocol
    let deflate: PerMessageDeflate | null = null
    const offered = headers['sec-websocket-extensions']
    if (options.perMessageDeflate === true && typeof offered === 'string') {
      const offers = extension.parse(offered)
      if (offers['permessage-deflate'] !== undefined) {
        deflate = new PerMessageDeflate({ isServer: true, maxPayload: MAX_PAYLOAD, threshold: 0 })
        answer['sec-websocket-extensions'] = extension.format({ 'permessage-deflate': [deflate.accept(offers['permessage-deflate'])] })
      }
    }
    stream.respond(answer)
    // ws builds a server-side socket this way when its server completes an upgrade.
    const socket = new WsServerSocket(null, undefined, {})
    socket._protocol = protocol
    if (deflate !== null) socket._extensions = { 'permessage-deflate': deflate }
    socket.setSocket(stream, Buffer.alloc(0), { allowSynchronousEvents: true, maxPayload: MAX_PAYLOAD, skipUTF8Validation: false })
    opened(socket, stream)
  }
  const settings: http2.Settings = { enableConnectProtocol: options.enableConnectProtocol ?? true }
  const server = options.tls === true
    ? await startH2sServer(onStream, { allowHTTP1: true, settings })
    : await startH2cServer(onStream, settings)
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: options.perMessageDeflate ?? false, handleProtocols: (protocols) => protocols.values().next().value ?? false })
  server.server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrades.push(request.headers)
    wss.handleUpgrade(request, socket, head, (ws) => opened(ws, null))
  })
  const close = server.close
  return Object.assign(server, {
    url: server.origin.replace(/^http/, 'ws'),
    connects,
    upgrades,
    sockets,
    close: async () => {
      for (const socket of sockets) socket.terminate()
      wss.close()
      await close()
    }
  })
}
