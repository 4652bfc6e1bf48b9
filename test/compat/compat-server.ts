/**
 * The local server differential tests talk to: a few routes whose answers depend only on the
 * request, so undici and conduit get identical responses to compare.
 *
 * - `/echo...`: JSON of the method, target, request headers (minus per-client ones) and body
 * - `/status/NNN`: that status, with a short body
 * - `/chunks`: a chunked body in three writes, with a trailer
 * - `/big?bytes=N`: N bytes of `x` (bounded to 8 MiB)
 * - `/hang`: never answers (for aborts and timeouts)
 * - `/continue`: answers 100 Continue only when asked, then echoes the body length
 * - upgrade requests: 101 with the protocol echoed, then an echo of whatever the client writes
 * - `CONNECT`: 200, then the same echo
 */

import type http from 'node:http'
import type { Duplex } from 'node:stream'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

/** Request headers that differ between clients for reasons of their own, left out of echoes. */
const CLIENT_SPECIFIC = new Set(['user-agent', 'connection', 'keep-alive'])

const MAX_BIG_BYTES = 8 * 1024 * 1024

function echoHeaders (headers: http.IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CLIENT_SPECIFIC.has(name)).sort(([a], [b]) => a.localeCompare(b)))
}

function route (req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname.startsWith('/status/')) {
    res.statusCode = Number(url.pathname.slice('/status/'.length))
    res.end(`status ${res.statusCode}`)
    return
  }
  if (url.pathname === '/chunks') {
    res.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-checksum' })
    res.write('one,')
    setImmediate(() => {
      res.write('two,')
      res.addTrailers({ 'x-checksum': 'abc' })
      res.end('three')
    })
    return
  }
  if (url.pathname === '/big') {
    const bytes = Math.min(Number(url.searchParams.get('bytes') ?? '0'), MAX_BIG_BYTES)
    res.setHeader('content-length', bytes)
    res.end(Buffer.alloc(bytes, 'x'))
    return
  }
  if (url.pathname === '/hang') return
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString()
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: echoHeaders(req.headers), body }))
  })
}

function echoSocket (socket: Duplex, head: Buffer): void {
  if (head.length > 0) socket.write(head)
  socket.on('data', (chunk: Buffer) => socket.write(chunk))
  socket.on('error', () => {})
}

/** Starts the compat server on 127.0.0.1. */
export async function startCompatServer (): Promise<TestServer<http.Server>> {
  const server = await startHttpServer(route)
  server.server.on('checkContinue', (req, res) => {
    res.writeContinue()
    route(req, res)
  })
  server.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: ${String(req.headers.upgrade)}\r\nx-path: ${req.url ?? ''}\r\n\r\n`)
    echoSocket(socket, head)
  })
  server.server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.write(`HTTP/1.1 200 Connection Established\r\nx-target: ${req.url ?? ''}\r\n\r\n`)
    echoSocket(socket, head)
  })
  return server
}
