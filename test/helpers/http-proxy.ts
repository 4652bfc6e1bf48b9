/**
 * HTTP and HTTPS proxies for unit tests, built on the `proxy` package (absolute-form forwarding
 * and CONNECT), on 127.0.0.1 with a random port. Each records what it was asked and how many
 * connections it accepted, and can require credentials.
 */

import http from 'node:http'
import https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { createProxy } from 'proxy'
import { serverCrt, serverKey } from './certs.js'

/** One request the proxy received: absolute-form (`method` not CONNECT) or CONNECT. */
export interface ProxiedRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
}

/** A running test proxy. */
export interface TestProxy {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  url: string
  port: number
  /** Every request seen, CONNECT included, oldest first. */
  requests: ProxiedRequest[]
  /** Client connections accepted so far. */
  connections: number
  /** Client connections currently open. */
  open: () => number
  /** Resolves once no client connection is open. */
  idle: () => Promise<void>
  close: () => Promise<void>
}

/** Options of {@link startHttpProxy}. */
export interface TestProxyOptions {
  /** Accept only this exact `proxy-authorization` value (others get 407). */
  authorization?: string
  /** Serve TLS with the test certificate (or the given key pair). */
  tls?: boolean | { key: string, cert: string }
}

/**
 * Starts a forwarding proxy.
 * @example
 * const proxy = await startHttpProxy({ authorization: 'Basic dTpw' })
 */
export function startHttpProxy (options: TestProxyOptions = {}): Promise<TestProxy> {
  const tlsPair = options.tls === true ? { key: serverKey, cert: serverCrt } : options.tls || undefined
  const server = tlsPair === undefined ? http.createServer() : https.createServer(tlsPair)
  const proxy = createProxy(server)
  const sockets = new Set<Socket>()
  const idleWaiters: Array<() => void> = []
  const result: TestProxy = {
    url: '',
    port: 0,
    requests: [],
    connections: 0,
    open: () => sockets.size,
    idle: () => new Promise<void>((resolve) => {
      if (sockets.size === 0) resolve()
      else idleWaiters.push(resolve)
    }),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  }
  if (options.authorization !== undefined) {
    proxy.authenticate = (req) => req.headers['proxy-authorization'] === options.authorization
  }
  const record = (req: http.IncomingMessage): void => {
    result.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers })
  }
  server.prependListener('request', record)
  server.prependListener('connect', record)
  server.on(tlsPair === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
    result.connections++
    sockets.add(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      if (sockets.size === 0) for (const resolve of idleWaiters.splice(0)) resolve()
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      result.port = (server.address() as AddressInfo).port
      result.url = `${tlsPair === undefined ? 'http' : 'https'}://127.0.0.1:${result.port}`
      resolve(result)
    })
  })
}
