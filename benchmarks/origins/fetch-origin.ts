/**
 * The server side of the fetch benchmark, run in its own process so its CPU is not counted
 * against the clients. Prints its port on stdout, exits when stdin closes.
 */

import http from 'node:http'
import type { AddressInfo } from 'node:net'

const small = Buffer.from(JSON.stringify({ ok: true, message: 'hello from the benchmark server', items: [1, 2, 3, 4, 5] }))
const large = Buffer.alloc(Number(process.env.FETCH_BENCH_LARGE ?? 64 * 1024 * 1024), 97)

const server = http.createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  if (req.url === '/large') {
    res.setHeader('content-length', large.length)
    res.end(large)
    return
  }
  if (req.url === '/upload') {
    let total = 0
    req.on('data', (chunk: Buffer) => { total += chunk.length })
    req.on('end', () => res.end(String(total)))
    return
  }
  res.setHeader('content-type', 'application/json')
  res.setHeader('content-length', small.length)
  res.end(small)
})
server.keepAliveTimeout = 60000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`)
})
process.stdin.on('end', () => server.close(() => process.exit(0)))
process.stdin.resume()
