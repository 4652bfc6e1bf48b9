/**
 * Real servers on 127.0.0.1 for tests: HTTP or HTTPS (with the test CA), raw TCP for
 * hand-written responses. Each one records its requests and closes with `close()`.
 */

import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { caCrt, serverCrt, serverKey } from './certs.js'

/** A running test server. */
export interface TestServer<S extends net.Server = net.Server> {
  server: S
  /** `http://127.0.0.1:PORT` or `https://localhost:PORT`. */
  origin: string
  port: number
  /** Requests seen so far (method, url, headers), oldest first. */
  requests: Array<{ method: string, url: string, headers: http.IncomingHttpHeaders }>
  /** Sockets accepted so far (to count connections). */
  connections: number
  close: () => Promise<void>
}

function track<S extends net.Server> (server: S, origin: (port: number) => string): Promise<TestServer<S>> {
  const sockets = new Set<net.Socket>()
  const result: TestServer<S> = {
    server,
    origin: '',
    port: 0,
    requests: [],
    connections: 0,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  }
  // Every raw socket is tracked so close() never waits on one that did not finish a TLS
  // handshake; connections are counted once usable (after the handshake for HTTPS).
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on(server instanceof https.Server ? 'secureConnection' : 'connection', () => { result.connections++ })
  server.on('request', (req: http.IncomingMessage) => {
    result.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      result.port = (server.address() as AddressInfo).port
      result.origin = origin(result.port)
      resolve(result)
    })
  })
}

/** Starts an HTTP server on 127.0.0.1 with a random port. */
export function startHttpServer (handler: http.RequestListener): Promise<TestServer<http.Server>> {
  const server = http.createServer({ keepAliveTimeout: 5000 }, handler)
  return track(server, (port) => `http://127.0.0.1:${port}`)
}

/** Starts an HTTPS server (certificate for localhost/127.0.0.1, signed by the test CA). */
export function startHttpsServer (handler: http.RequestListener): Promise<TestServer<https.Server>> {
  const server = https.createServer({ key: serverKey, cert: serverCrt, keepAliveTimeout: 5000 }, handler)
  return track(server, (port) => `https://localhost:${port}`)
}

/** Starts a raw TCP server; `onSocket` writes whatever bytes the test wants. */
export function startTcpServer (onSocket: (socket: net.Socket) => void): Promise<TestServer<net.Server>> {
  const server = net.createServer(onSocket)
  return track(server, (port) => `http://127.0.0.1:${port}`)
}

/** TLS options that trust the test CA. */
export const trustTestCa = { ca: caCrt }

/**
 * A raw server that calls `answer(socket, connection, request)` once per complete request head
 * it reads (bodies are not expected), numbering connections and requests from 1.
 */
export function startScriptedServer (answer: (socket: net.Socket, connection: number, request: number, head: string) => void): Promise<TestServer> {
  let connections = 0
  return startTcpServer((socket) => {
    const connection = ++connections
    let requests = 0
    let buffered = ''
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1')
      let end: number
      while ((end = buffered.indexOf('\r\n\r\n')) !== -1) {
        const head = buffered.slice(0, end)
        buffered = buffered.slice(end + 4)
        answer(socket, connection, ++requests, head)
      }
    })
  })
}
