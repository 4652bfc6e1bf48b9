/**
 * The transport benchmark's origin, run in its own process so its CPU never counts against a
 * client. By default a minimal `net` server: it finds each request head, skips the request body,
 * and writes the scenario's prebuilt response (`wire-answers.ts`) in one write. Its cost
 * per request is a fraction of a client's, so the client under test, not the origin, sets the pace.
 * `node h1-origin.js http` serves the same answers through node:http instead (an origin that costs
 * more CPU per request than the clients it serves; see docs/performance.md).
 * Keeps connections alive, prints its port on stdout and exits when its stdin closes (so it never
 * outlives the runner).
 *
 * Usage: node h1-origin.js [net|http]
 * @module
 */

import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { RESPONSES, RequestReader, responseFor } from './wire-answers.js'

/** The kinds of origin this process can be. */
export const ORIGIN_KINDS = ['net', 'http'] as const

function netOrigin (): net.Server {
  return net.createServer({ noDelay: true }, (socket) => {
    const reader = new RequestReader((path) => { socket.write(responseFor(path)) }, (err) => socket.destroy(err))
    socket.on('data', (chunk: Buffer) => reader.consume(chunk))
    // A client that goes away mid-round is the runner's concern, not a crash of the origin.
    socket.on('error', () => {})
  })
}

function httpOrigin (): http.Server {
  const server = http.createServer((req, res) => {
    const whole = RESPONSES.get(req.url ?? '/')
    const answer = (): void => {
      // The prebuilt response's head is the one the net origin writes; here node:http writes its own.
      if (whole === undefined) {
        res.writeHead(404, { 'content-length': '0' })
        res.end()
        return
      }
      const split = whole.indexOf('\r\n\r\n') + 4
      const headers: http.OutgoingHttpHeaders = {}
      for (const line of whole.subarray(0, split - 4).toString('latin1').split('\r\n').slice(1)) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon)] = line.slice(colon + 1).trim()
      }
      res.writeHead(200, headers)
      res.end(whole.subarray(split))
    }
    // The upload is read to its end before answering, as a real endpoint would.
    req.on('data', () => {})
    req.on('end', answer)
  })
  // Longer than any round, so no client pays for reconnects the others do not.
  server.keepAliveTimeout = 120_000
  server.headersTimeout = 130_000
  server.maxRequestsPerSocket = 0
  return server
}

const kind = process.argv[2] ?? 'net'
if (!(ORIGIN_KINDS as readonly string[]).includes(kind)) throw new TypeError(`unknown origin kind ${JSON.stringify(kind)}; known: ${ORIGIN_KINDS.join(', ')}`)
const server = kind === 'http' ? httpOrigin() : netOrigin()
const sockets = new Set<net.Socket>()
server.on('connection', (socket: net.Socket) => {
  sockets.add(socket)
  socket.once('close', () => sockets.delete(socket))
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`)
})
process.stdin.on('end', () => {
  for (const socket of sockets) socket.destroy()
  server.close(() => process.exit(0))
})
process.stdin.resume()
