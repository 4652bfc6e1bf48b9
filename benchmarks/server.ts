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
import { SCENARIOS, responseBody, responseHeaders } from './transport-scenarios.js'

// Bodies and heads are built once: the server's work per request should be small and constant.
const answers = new Map<string, { body: Buffer, headers: http.OutgoingHttpHeaders }>()
for (const scenario of SCENARIOS) {
  const body = responseBody(scenario)
  answers.set(scenario.path, { body, headers: { ...responseHeaders(scenario), 'content-length': String(body.length) } })
}

function answer (res: http.ServerResponse, path: string): void {
  const { body, headers } = answers.get(path)!
  res.writeHead(200, headers)
  res.end(body)
}

const server = http.createServer((req, res) => {
  const path = req.url ?? '/'
  if (!answers.has(path)) {
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
