/**
 * An origin in its own process for the resilience interceptors' tests: it fails, stalls, slows
 * down, refuses with 429 (`Retry-After` in seconds or as a date) or advertises its limits
 * (`RateLimit`, `RateLimit-Policy`), and recovers when told to.
 *
 * Paths: `/ok`; `/status/<code>`; `/flaky` (503 while failing, 200 once recovered); `/hang-head`
 * (never answers); `/hang-body` (a head and a first chunk, then nothing); `/slow/<ms>`;
 * `/redirect-to/<path>` (302 to `/<path>`); `/retry-after-seconds/<n>` and `/retry-after-date/<n>`
 * (429 asking for n seconds); `/limited/<remaining>/<reset>` (200 with RateLimit fields);
 * `/first-hangs/<name>` (the first request never answers, later ones get `ok`).
 * A second listener (`silent`) accepts connections and never writes, so a TLS handshake stalls.
 *
 * IPC: sends `{ type: 'ports', http, silent }` once listening; answers `'counts'` with the
 * requests seen per path (and the `Idempotency-Key` headers they carried, the requests whose
 * connection closed before their answer was written, and the connections open now), `'fail'` and `'recover'` switch `/flaky` (acknowledged with `'ok'`),
 * `'reset'` clears the counts. Exits when the IPC channel closes.
 */

import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** Messages the child sends over IPC. */
export type ResilienceChildMessage =
  | { type: 'ports', http: number, silent: number }
  | { type: 'counts', counts: Record<string, number>, keys: Record<string, string[]>, aborted: Record<string, number>, connections: number }
  | { type: 'ok' }

let counts: Record<string, number> = {}
// The Idempotency-Key header of each request, per path.
let keys: Record<string, string[]> = {}
let failing = true
// Requests whose client went away before their answer was written, per path.
let aborted: Record<string, number> = {}

function answer (req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = req.url ?? '/'
  counts[path] = (counts[path] ?? 0) + 1
  const key = req.headers['idempotency-key']
  if (typeof key === 'string') (keys[path] ??= []).push(key)
  res.on('close', () => {
    if (!res.writableFinished) aborted[path] = (aborted[path] ?? 0) + 1
  })
  const [, kind = '', a = '', b = ''] = path.split('/')
  switch (kind) {
    case 'ok':
      res.end('ok')
      return
    case 'status':
      res.statusCode = Number(a)
      res.end(`status ${a}`)
      return
    case 'flaky':
      res.statusCode = failing ? 503 : 200
      res.end(failing ? 'failing' : 'recovered')
      return
    case 'hang-head':
      return
    case 'first-hangs':
      if (counts[path] === 1) return
      res.end('ok')
      return
    case 'hang-body':
      res.writeHead(200, { 'content-length': '100' })
      res.write('first')
      return
    case 'slow':
      setTimeout(() => res.end('slow'), Number(a))
      return
    case 'redirect-to':
      res.writeHead(302, { location: `/${path.split('/').slice(2).join('/')}` })
      res.end()
      return
    case 'retry-after-seconds':
      res.writeHead(429, { 'retry-after': a })
      res.end('slow down')
      return
    case 'retry-after-date':
      res.writeHead(429, { 'retry-after': new Date(Date.now() + Number(a) * 1000).toUTCString() })
      res.end('slow down')
      return
    case 'limited':
      res.writeHead(200, { ratelimit: `"default";r=${a};t=${b}`, 'ratelimit-policy': '"default";q=10;w=60' })
      res.end('limited')
      return
    default:
      res.statusCode = 404
      res.end()
  }
}

const server = http.createServer({ keepAliveTimeout: 5000 }, answer)
const stalled = new Set<net.Socket>()
const silent = net.createServer((socket) => {
  stalled.add(socket)
  socket.on('close', () => stalled.delete(socket))
  socket.on('error', () => {})
})

process.on('message', (message: string) => {
  if (message === 'counts') {
    server.getConnections((_err, connections) => process.send!({ type: 'counts', counts, keys, aborted, connections }))
  } else if (message === 'reset') { counts = {}; keys = {}; aborted = {}; process.send!({ type: 'ok' }) }
  else if (message === 'fail') { failing = true; process.send!({ type: 'ok' }) }
  else if (message === 'recover') { failing = false; process.send!({ type: 'ok' }) }
})
process.on('disconnect', () => {
  server.closeAllConnections()
  server.close()
  for (const socket of stalled) socket.destroy()
  silent.close()
})

server.listen(0, '127.0.0.1', () => {
  silent.listen(0, '127.0.0.1', () => {
    process.send!({
      type: 'ports',
      http: (server.address() as AddressInfo).port,
      silent: (silent.address() as AddressInfo).port
    })
  })
})
