/**
 * The HTTP/2 benchmark's node:http2 origin: a server over TLS (the test certificate) in its own
 * process, answering the paths of `H2_BODIES` with fixed bodies. Prints its port on stdout, then
 * serves until stdin closes.
 * @module
 */

import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { serverCrt, serverKey } from '../../test/helpers/certs.js'
import { H2_BODIES } from './h2-bodies.js'

const bodies: Readonly<Record<string, Buffer>> = H2_BODIES

// 50 streams of 1 MiB are more than node:http2's default 10 MB of session memory: with the default
// the server resets streams with ENHANCE_YOUR_CALM (for undici's client and conduit's alike).
// Up to 1000 streams at once, for the instruction driver's per-stream runs; the benchmark's
// clients keep 50 in flight.
const server = http2.createSecureServer({ key: serverKey, cert: serverCrt, maxSessionMemory: 256, settings: { maxConcurrentStreams: 1000, initialWindowSize: 1024 * 1024 } })
server.on('session', (session) => session.on('error', () => {}))
server.on('stream', (stream, headers) => {
  stream.on('error', () => {})
  const body = bodies[String(headers[':path'])]
  if (body === undefined) {
    stream.respond({ ':status': 404 })
    stream.end()
    return
  }
  stream.respond({ ':status': 200, 'content-length': body.length })
  stream.end(body)
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`)
})
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
