/**
 * A `ws` package server on 127.0.0.1 for WebSocket tests: echoes every message back (binary as
 * binary), answers the first subprotocol offered, and can speak over TLS with the test
 * certificate.
 */

import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import type { ServerOptions, WebSocket as WsSocket } from 'ws'
import { serverCrt, serverKey } from './certs.js'

/** A running `ws` echo server. */
export interface WsEchoServer {
  /** `ws://127.0.0.1:PORT` or `wss://localhost:PORT`. */
  url: string
  port: number
  wss: WebSocketServer
  /** Handshake request headers seen, oldest first. */
  requests: http.IncomingHttpHeaders[]
  close: () => Promise<void>
}

/** Starts an echo server; `onConnection` replaces the echo. */
export function startWsEchoServer (options: { tls?: boolean, perMessageDeflate?: ServerOptions['perMessageDeflate'], onConnection?: (socket: WsSocket, request: http.IncomingMessage) => void } = {}): Promise<WsEchoServer> {
  const server = options.tls === true ? https.createServer({ cert: serverCrt, key: serverKey }) : http.createServer()
  const wss = new WebSocketServer({
    server,
    perMessageDeflate: options.perMessageDeflate ?? false,
    handleProtocols: (protocols) => protocols.values().next().value ?? false
  })
  const requests: http.IncomingHttpHeaders[] = []
  wss.on('connection', (socket, request) => {
    requests.push(request.headers)
    if (options.onConnection !== undefined) {
      options.onConnection(socket, request)
      return
    }
    socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }))
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `${options.tls === true ? 'wss://localhost' : 'ws://127.0.0.1'}:${port}`,
        port,
        wss,
        requests,
        close: () => new Promise<void>((done) => {
          for (const client of wss.clients) client.terminate()
          wss.close()
          server.closeAllConnections?.()
          server.close(() => done())
        })
      })
    })
  })
}
