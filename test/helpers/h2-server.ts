/**
 * Real HTTP/2 servers on 127.0.0.1 for tests, on node:http2: h2c (cleartext, prior knowledge)
 * or TLS with ALPN (the test certificate; HTTP/1.1 offered too unless told otherwise). Each one
 * counts its sessions and records its streams' headers, and closes every session on `close()`.
 */

import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { serverCrt, serverKey } from './certs.js'

/** Handles one stream; `headers` are the request's, pseudo-headers included. */
export type H2StreamHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, session: http2.ServerHttp2Session) => void

/** A running HTTP/2 test server. */
export interface H2TestServer {
  server: http2.Http2Server | http2.Http2SecureServer
  /** `http://127.0.0.1:PORT` (h2c) or `https://localhost:PORT` (TLS). */
  origin: string
  /** Sessions (connections) opened so far. */
  sessions: number
  /** Request headers of every stream, oldest first. */
  streams: http2.IncomingHttpHeaders[]
  /** The sessions still open. */
  open: Set<http2.ServerHttp2Session>
  close: () => Promise<void>
}

function track (server: http2.Http2Server | http2.Http2SecureServer, handler: H2StreamHandler, scheme: string, host: string): Promise<H2TestServer> {
  const result: H2TestServer = {
    server,
    origin: '',
    sessions: 0,
    streams: [],
    open: new Set(),
    close: () => new Promise<void>((resolve) => {
      for (const session of result.open) session.destroy()
      server.close(() => resolve())
    })
  }
  server.on('session', (session: http2.ServerHttp2Session) => {
    result.sessions++
    result.open.add(session)
    session.on('error', () => {})
    session.on('close', () => result.open.delete(session))
  })
  server.on('stream', (stream, headers) => {
    result.streams.push(headers)
    stream.on('error', () => {})
    handler(stream, headers, stream.session as http2.ServerHttp2Session)
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      result.origin = `${scheme}://${host}:${(server.address() as AddressInfo).port}`
      resolve(result)
    })
  })
}

/** Starts an h2c server (HTTP/2 without TLS, prior knowledge); `options` go to node:http2 as they are. */
export function startH2cServer (handler: H2StreamHandler, settings?: http2.Settings, options: http2.ServerOptions = {}): Promise<H2TestServer> {
  return track(http2.createServer({ ...options, settings }), handler, 'http', '127.0.0.1')
}

/** Starts an HTTP/2 server over TLS; with `allowHTTP1` an HTTP/1.1 client is served too (by `handler1`). */
export function startH2sServer (handler: H2StreamHandler, options: { allowHTTP1?: boolean, settings?: http2.Settings, maxSessionMemory?: number } = {}): Promise<H2TestServer> {
  const server = http2.createSecureServer({ key: serverKey, cert: serverCrt, allowHTTP1: options.allowHTTP1 ?? false, settings: options.settings, maxSessionMemory: options.maxSessionMemory })
  return track(server, handler, 'https', 'localhost')
}

/** Answers a stream with `status`, `body` and optional extra headers. */
export function respond (stream: http2.ServerHttp2Stream, status: number, body: string | Buffer, headers: http2.OutgoingHttpHeaders = {}): void {
  if (stream.destroyed || stream.closed) return
  stream.respond({ ':status': status, 'content-length': Buffer.byteLength(body), ...headers })
  stream.end(body)
}
