/**
 * The transport benchmark's server, run in its own process so its CPU never counts against a
 * client. Answers every scenario of `transport-scenarios.ts` by path, keeps connections alive,
 * prints its port on stdout and exits when its stdin closes (so it never outlives the runner).
 *
 * Usage: node server.js
 * @module
 */

import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SCENARIOS, SMALL_BODY } from './transport-scenarios.js'

// Bodies are built once: the server's work per request should be as small and constant as possible.
const bodies = new Map<string, Buffer>()
for (const scenario of SCENARIOS) {
  bodies.set(scenario.path, scenario.responseBytes === SMALL_BODY.length ? SMALL_BODY : Buffer.alloc(scenario.responseBytes, 'x'))
}
const headersFor = new Map<string, http.OutgoingHttpHeaders>()
for (const [path, body] of bodies) {
  headersFor.set(path, { 'content-type': 'application/json', 'content-length': String(body.length) })
}

function answer (res: http.ServerResponse, path: string): void {
  res.writeHead(200, headersFor.get(path))
  res.end(bodies.get(path))
}

const server = http.createServer((req, res) => {
  const path = req.url ?? '/'
  if (!bodies.has(path)) {
    res.writeHead(404, { 'content-length': '0' })
    res.end()
    return
  }
  if (req.method === 'POST') {
    // The upload is read to its end before answering, as a real endpoint would.
    req.on('data', () => {})
    req.on('end', () => answer(res, path))
    return
  }
  answer(res, path)
})
// Longer than any round, so no client pays for reconnects the others do not.
server.keepAliveTimeout = 120_000
server.headersTimeout = 130_000
server.maxRequestsPerSocket = 0
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`)
})
process.stdin.on('end', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
process.stdin.resume()
