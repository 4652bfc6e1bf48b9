/**
 * An origin in its own process for the shared-read-buffer load test: `GET /<n>?chunked=<0|1>`
 * answers with patterned(n, size(n)) (content-length or chunked framing, written in uneven
 * pieces); `POST /echo` answers with the request body. It writes its port on stdout once
 * listening and exits when stdin closes.
 */

import http from 'node:http'
import { patterned, patternedSize } from './patterned-body.js'

const server = http.createServer((req, res) => {
  const url = new URL(req.url!, 'http://origin')
  if (req.method === 'POST') {
    const parts: Buffer[] = []
    req.on('data', (chunk: Buffer) => parts.push(chunk))
    req.on('end', () => res.end(Buffer.concat(parts)))
    return
  }
  const n = Number(url.pathname.slice(1))
  const body = patterned(n, patternedSize(n))
  if (url.searchParams.get('chunked') !== '1') res.setHeader('content-length', body.length)
  let at = 0
  const next = (): void => {
    if (at >= body.length) { res.end(); return }
    const piece = body.subarray(at, at + 1000 + ((n * 7919 + at) % 40_000))
    at += piece.length
    if (res.write(piece)) setImmediate(next)
    else res.once('drain', next)
  }
  next()
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`)
})
process.stdin.resume()
process.stdin.on('end', () => {
  server.closeAllConnections()
  server.close()
})
