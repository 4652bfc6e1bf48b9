/**
 * A hostile HTTP/1.1 origin in its own process, for the response desynchronisation table: it
 * answers the request at a chosen position on each connection with a response followed by extra
 * bytes (a second response nobody asked for, a body on a 204, a longer body than its length...),
 * and every other request honestly.
 *
 * A request path is `/<case>/<at>/<id>`: the request that arrives `at`-th on its connection gets
 * the hostile answer of `<case>` (`head-body` only when it is a HEAD). Honest answers carry the request's path in `x-path`. The extra
 * response carries `x-evil: <k>:<connection>`, where `k` is how many requests the connection had
 * received when it was written: only those may take it as their answer. Listens on plain TCP and
 * on TLS (the test certificate); sends `{ tcp, tls }` ports over IPC once listening, and answers
 * `'log'` with every connection's request paths in arrival order. Exits when the IPC channel closes.
 */

import net from 'node:net'
import tls from 'node:tls'
import { serverCrt, serverKey } from './certs.js'

/** Messages the child sends over IPC. */
export type DesyncChildMessage =
  | { type: 'ports', tcp: number, tls: number }
  | { type: 'log', connections: Record<string, string[]> }

const connections: Record<string, string[]> = {}
let nextConnection = 0

function evil (received: number, connection: number): string {
  return `HTTP/1.1 200 OK\r\nx-evil: ${received}:${connection}\r\ncontent-length: 4\r\n\r\nEVIL`
}

function honest (path: string): string {
  return `HTTP/1.1 200 OK\r\nx-path: ${path}\r\ncontent-length: ${path.length}\r\n\r\n${path}`
}

/** The bytes of the hostile answer to `path`, written in one write. */
function hostile (kind: string, path: string, received: number, connection: number): string {
  const extra = evil(received, connection)
  switch (kind) {
    case '204': return `HTTP/1.1 204 No Content\r\nx-path: ${path}\r\n\r\n${extra}`
    case '304': return `HTTP/1.1 304 Not Modified\r\nx-path: ${path}\r\n\r\n${extra}`
    case '204-body': return `HTTP/1.1 204 No Content\r\nx-path: ${path}\r\ncontent-length: 4\r\n\r\nEVIL${extra}`
    case 'head-body': return `HTTP/1.1 200 OK\r\nx-path: ${path}\r\ncontent-length: 4\r\n\r\nEVIL${extra}`
    case '1xx': return `HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n${honest(path)}${extra}`
    case 'long-body': return `HTTP/1.1 200 OK\r\nx-path: ${path}\r\ncontent-length: ${path.length}\r\n\r\n${path}${extra}`
    case 'close': return `HTTP/1.1 200 OK\r\nx-path: ${path}\r\nconnection: close\r\ncontent-length: ${path.length}\r\n\r\n${path}${extra}`
    case 'chunked': return `HTTP/1.1 200 OK\r\nx-path: ${path}\r\ntransfer-encoding: chunked\r\n\r\n${path.length.toString(16)}\r\n${path}\r\n0\r\n\r\n${extra}`
    default: return honest(path)
  }
}

function serve (socket: net.Socket): void {
  const connection = ++nextConnection
  const log: string[] = connections[connection] = []
  const methods: string[] = []
  let pending = ''
  socket.setNoDelay(true)
  socket.on('error', () => {})
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1')
    const first = log.length
    for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
      const head = pending.slice(0, end)
      pending = pending.slice(end + 4)
      const [method = 'GET', path = '/'] = head.split(' ')
      methods.push(method)
      log.push(path)
    }
    // One write for everything this read answers: the extra bytes reach the client together
    // with the response they follow, and every request counted in `x-evil` was received.
    let out = ''
    for (let i = first; i < log.length; i++) {
      const path = log[i]!
      const [, kind = '', at = '0'] = path.split('/')
      // A body after the head of a HEAD answer is hostile only as an answer to HEAD.
      const chosen = i + 1 === Number(at) && (kind !== 'head-body' || methods[i] === 'HEAD')
      out += chosen ? hostile(kind, path, log.length, connection) : honest(path)
    }
    if (out !== '') socket.write(out)
  })
}

const tcp = net.createServer(serve)
const secure = tls.createServer({ cert: serverCrt, key: serverKey }, serve)
let listening = 0
const ready = (): void => {
  if (++listening < 2) return
  process.send!({ type: 'ports', tcp: (tcp.address() as net.AddressInfo).port, tls: (secure.address() as net.AddressInfo).port } satisfies DesyncChildMessage)
}
tcp.listen(0, '127.0.0.1', ready)
secure.listen(0, '127.0.0.1', ready)
process.on('message', (message) => {
  if (message === 'log') process.send!({ type: 'log', connections } satisfies DesyncChildMessage)
})
process.on('disconnect', () => process.exit(0))
