/**
 * A raw server on 127.0.0.1 that answers the first request it sees with crafted bytes and every
 * later request with a small valid response, and the three ways a user observes an outcome:
 * `request()`, `fetch()` and `dispatch()`. Outcomes are plain data, so conduit and undici compare
 * with `deepEqual`.
 */

import type { Socket } from 'node:net'
import type { Lib } from '../../compat/harness.js'
import { startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

/** The valid response every request after the first one gets. */
export const VALID_RESPONSE = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'

/** What a hostile server does with the first request. */
export interface HostileScript {
  /** The bytes sent in answer (latin1). */
  bytes: string
  /** Whether the server ends the connection right after them (else it keeps it open). */
  end?: boolean
}

/** A running hostile server. */
export interface HostileServer extends TestServer {
  /** Client connections still open on the server side. */
  readonly openSockets: number
  /** Resolves once every client connection is closed; false when some is still open after ~2 s. */
  allClosed: () => Promise<boolean>
}

/** Starts a server answering its first request with `script`; `close()` it after the test. */
export async function startHostileServer (script: HostileScript): Promise<HostileServer> {
  const open = new Set<Socket>()
  let answered = false
  const server = await startTcpServer((socket) => {
    open.add(socket)
    socket.on('close', () => open.delete(socket))
    socket.on('error', () => {})
    let pending = ''
    socket.on('data', (chunk: Buffer) => {
      // Requests carry no body here, so each blank line ends one.
      pending += chunk.toString('latin1')
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4)
        if (answered) {
          socket.write(VALID_RESPONSE)
          continue
        }
        answered = true
        socket.write(Buffer.from(script.bytes, 'latin1'))
        if (script.end === true) socket.end()
      }
    })
  })
  return Object.assign(server, {
    get openSockets () { return open.size },
    allClosed: async () => {
      // Bounded: 200 checks 10 ms apart.
      for (let i = 0; i < 200 && open.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      return open.size === 0
    }
  })
}

/** What a user observes: a response (status and body text) or an error (class name and code). */
export type Outcome = { status: number, body: string } | { error: string, code: string | undefined }

/** The three public ways to send a request. */
export type Api = 'request' | 'fetch' | 'dispatch'

/** The outcome of `err`, looking through fetch's `TypeError('fetch failed')` to its cause. */
export function errorOutcome (err: unknown, api: Api): Outcome {
  const e = (api === 'fetch' && err instanceof TypeError && err.cause !== undefined ? err.cause : err) as { name?: string, code?: unknown }
  return { error: String(e?.name), code: typeof e?.code === 'string' ? e.code.replace(/^UND_/, 'LIB_') : undefined }
}

/** Sends one `method` request to `origin` through `dispatcher` with `api`, and what it ended in. */
export async function observe (lib: Lib, api: Api, dispatcher: Lib, origin: string, method = 'GET'): Promise<Outcome> {
  try {
    if (api === 'request') {
      const res = await lib.request(origin, { dispatcher, method })
      return { status: res.statusCode, body: await res.body.text() }
    }
    if (api === 'fetch') {
      const res = await lib.fetch(origin, { dispatcher, method })
      return { status: res.status, body: await res.text() }
    }
    return await dispatchOutcome(dispatcher, origin, method)
  } catch (err) {
    return errorOutcome(err, api)
  }
}

function dispatchOutcome (dispatcher: Lib, origin: string, method: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let status = 0
    const chunks: Buffer[] = []
    dispatcher.dispatch({ origin, path: '/', method }, {
      onRequestStart () {},
      onResponseStart (_controller: unknown, statusCode: number) { status = statusCode },
      onResponseData (_controller: unknown, chunk: Buffer) { chunks.push(chunk) },
      onResponseEnd () { resolve({ status, body: Buffer.concat(chunks).toString('latin1') }) },
      onResponseError (_controller: unknown, err: Error) { reject(err) }
    })
  })
}
