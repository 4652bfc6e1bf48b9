/**
 * The scale suite's origin process: minimal HTTP/1.1 servers on several loopback addresses, a
 * node:http2 server over TLS, and a control server the client processes use to see how many
 * requests the origin holds and to let them go. Prints its addresses as one JSON line on stdout,
 * then serves until stdin closes.
 *
 * Paths, on both protocols: `/hold/<key>` is answered only once `/release/<key>` was asked on the
 * control server (then at once); `/close` is answered with `connection: close` and the socket
 * ended; anything else is answered at once on a keep-alive connection.
 * @module
 */

import http from 'node:http'
import http2 from 'node:http2'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { serverCrt, serverKey } from '../../test/helpers/certs.js'

/** How many loopback addresses the HTTP/1.1 origin listens on (127.0.0.1 upwards). */
const ADDRESSES = 16
/** A keep-alive hint long enough that no connection of a scenario is closed for idling. */
const KEEP_ALIVE = 'keep-alive: timeout=600\r\n'
const BODY = 'ok'
const OK = `HTTP/1.1 200 OK\r\ncontent-length: ${BODY.length}\r\n${KEEP_ALIVE}\r\n${BODY}`
const OK_CLOSE = `HTTP/1.1 200 OK\r\ncontent-length: ${BODY.length}\r\nconnection: close\r\n\r\n${BODY}`

/** Requests held per key, each a function that answers it. */
const held = new Map<string, Array<() => void>>()
const released = new Set<string>()
let openSockets = 0

/** Answers now if `key` was released, else keeps `answer` until it is. */
function holdOrAnswer (key: string, answer: () => void): void {
  if (released.has(key)) {
    answer()
    return
  }
  let list = held.get(key)
  if (list === undefined) held.set(key, list = [])
  list.push(answer)
}

function release (key: string): number {
  released.add(key)
  const list = held.get(key) ?? []
  held.delete(key)
  for (const answer of list) answer()
  return list.length
}

/** One request's path from its head (`GET /path HTTP/1.1`). */
function pathOf (head: string): string {
  const start = head.indexOf(' ') + 1
  return head.slice(start, head.indexOf(' ', start))
}

function onH1Socket (socket: net.Socket): void {
  openSockets++
  socket.on('close', () => { openSockets-- })
  socket.on('error', () => {})
  let pending = ''
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1')
    let end: number
    // Requests are GETs without a body: each ends at its blank line.
    while ((end = pending.indexOf('\r\n\r\n')) !== -1) {
      const path = pathOf(pending.slice(0, end))
      pending = pending.slice(end + 4)
      if (path === '/close') {
        socket.end(OK_CLOSE)
      } else if (path.startsWith('/hold/')) {
        holdOrAnswer(path.slice(6), () => { if (!socket.destroyed) socket.write(OK) })
      } else {
        socket.write(OK)
      }
    }
  })
}

function listen (server: net.Server | http.Server | http2.Http2SecureServer, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port))
  })
}

function h2Server (): http2.Http2SecureServer {
  // Far more concurrent streams than node:http2's default of 100, and session memory for them.
  const server = http2.createSecureServer({ key: serverKey, cert: serverCrt, maxSessionMemory: 1024, settings: { maxConcurrentStreams: 5000 } })
  server.on('session', (session) => session.on('error', () => {}))
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {})
    const path = String(headers[':path'])
    const answer = (): void => {
      if (stream.destroyed) return
      stream.respond({ ':status': 200, 'content-length': BODY.length })
      stream.end(BODY)
    }
    if (path.startsWith('/hold/')) holdOrAnswer(path.slice(6), answer)
    else answer()
  })
  return server
}

/** `/count/<key>`: requests held for key; `/release/<key>`: answers them; `/sockets`: open HTTP/1.1 sockets. */
function controlServer (): http.Server {
  return http.createServer((req, res) => {
    const url = req.url ?? ''
    let figure: number
    if (url.startsWith('/count/')) figure = held.get(url.slice(7))?.length ?? 0
    else if (url.startsWith('/release/')) figure = release(url.slice(9))
    else if (url === '/sockets') figure = openSockets
    else figure = -1
    res.setHeader('connection', 'close')
    res.end(String(figure))
  })
}

const h1: Array<{ address: string, port: number }> = []
for (let i = 1; i <= ADDRESSES; i++) {
  const address = `127.0.0.${i}`
  h1.push({ address, port: await listen(net.createServer(onH1Socket), address) })
}
const h2Port = await listen(h2Server(), '127.0.0.1')
const controlPort = await listen(controlServer(), '127.0.0.1')
process.stdout.write(JSON.stringify({ h1, h2Port, controlPort }) + '\n')
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
