/**
 * The interop suite's node:http2 origin, in the test process: the same routes as the python3-h2
 * script (`python_h2_server.py`, whose header says what each does): files of a site, `POST /echo`
 * with the body's SHA-256 and length as trailers, `/many-<i>.txt` held until that many streams
 * are open, and a scripted graceful GOAWAY on `/goaway-<i>`.
 */

import { createHash } from 'node:crypto'
import http2 from 'node:http2'
import { respond, startH2cServer, startH2sServer } from '../../helpers/h2-server.js'
import type { H2TestServer } from '../../helpers/h2-server.js'

/** `/many-` streams held until this many are open. */
const HOLD_AT = 100
/** `/goaway-` streams held on the first connection until this many are open. */
const GOAWAY_AT = 4

/** A running node:http2 origin. */
export interface NodeH2Origin {
  origin: string
  stop: () => Promise<void>
}

/** Starts the origin serving `files` (name to content); `tls: false` for h2c. */
export async function startNodeH2Origin (files: Record<string, Buffer | string>, { tls }: { tls: boolean }): Promise<NodeH2Origin> {
  const numbers = new WeakMap<http2.ServerHttp2Session, number>()
  const held = new WeakMap<http2.ServerHttp2Session, Array<() => void>>()
  const goawayHeld: Array<{ stream: http2.ServerHttp2Stream, path: string }> = []
  let sessions = 0
  let goawaySent = false

  const numberOf = (session: http2.ServerHttp2Session): number => {
    let number = numbers.get(session)
    if (number === undefined) numbers.set(session, number = ++sessions)
    return number
  }
  const serveFile = (stream: http2.ServerHttp2Stream, path: string): void => {
    const content = files[path.slice(1)]
    if (content === undefined) respond(stream, 404, 'not found')
    else respond(stream, 200, content)
  }
  const goaway = (stream: http2.ServerHttp2Stream, path: string, session: http2.ServerHttp2Session): void => {
    if (goawaySent) return respond(stream, 200, `${path} on connection ${numberOf(session)}`)
    goawayHeld.push({ stream, path })
    if (goawayHeld.length < GOAWAY_AT) return
    goawaySent = true
    const ordered = goawayHeld.sort((a, b) => a.stream.id! - b.stream.id!)
    const last = ordered[1]!.stream.id!
    session.goaway(http2.constants.NGHTTP2_NO_ERROR, last)
    for (const { stream: covered, path: coveredPath } of ordered.slice(0, 2)) respond(covered, 200, `${coveredPath} on connection ${numberOf(session)}`)
    // The streams past `last` are left alone: the client counts them as never processed and
    // sends them again elsewhere, then closes this connection once the two answers are read.
    // No session.close(): on newer runtimes it sends a second GOAWAY with a higher last-stream-id,
    // which RFC 9113 section 6.8 forbids and a client rightly treats as a protocol error.
  }
  const handler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, session: http2.ServerHttp2Session): void => {
    numberOf(session)
    const path = String(headers[':path'])
    if (headers[':method'] === 'POST' && path === '/echo') {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const body = Buffer.concat(chunks)
        stream.respond({ ':status': 200, 'content-length': body.length }, { waitForTrailers: true })
        stream.once('wantTrailers', () => stream.sendTrailers({ 'x-body-sha256': createHash('sha256').update(body).digest('hex'), 'x-body-length': String(body.length) }))
        stream.end(body)
      })
      return
    }
    stream.resume()
    if (path.startsWith('/goaway-')) return goaway(stream, path, session)
    if (path.startsWith('/many-')) {
      const waiting = held.get(session) ?? []
      held.set(session, waiting)
      waiting.push(() => serveFile(stream, path))
      if (waiting.length >= HOLD_AT) for (const release of waiting.splice(0)) release()
      return
    }
    serveFile(stream, path)
  }
  const server: H2TestServer = tls
    ? await startH2sServer(handler, { settings: { maxConcurrentStreams: 128 } })
    : await startH2cServer(handler, { maxConcurrentStreams: 128 })
  return { origin: server.origin, stop: server.close }
}
