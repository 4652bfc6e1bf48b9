/**
 * The benchmark origin's side of the wire, shared by the TCP origin (`origins/h1-origin.ts`) and
 * the in-memory sockets: each scenario's whole response as prebuilt bytes, and a reader that
 * finds request heads in a byte stream and skips their bodies.
 * @module
 */

import { SCENARIOS, responseBody, responseHeaders } from '../transport-scenarios.js'

/** Longest request head the reader accepts; the benchmark's heads are far smaller. */
export const MAX_REQUEST_HEAD = 8192

/** Each scenario path's response (head and body) as one buffer, built once per process. */
export const RESPONSES: ReadonlyMap<string, Buffer> = new Map(SCENARIOS.map((scenario) => {
  const body = responseBody(scenario)
  const fields = Object.entries(responseHeaders(scenario)).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  // No date field: a fixed one would make the cacheable response stale once that day is past.
  const head = Buffer.from(`HTTP/1.1 200 OK\r\n${fields}content-length: ${body.length}\r\n` +
    'connection: keep-alive\r\nkeep-alive: timeout=120\r\n\r\n', 'latin1')
  return [scenario.path, Buffer.concat([head, body])]
}))

/** The answer to a path no scenario has. */
export const NOT_FOUND = Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n', 'latin1')

/** The response to a request for `path`. */
export function responseFor (path: string): Buffer {
  return RESPONSES.get(path) ?? NOT_FOUND
}

/**
 * Reads pipelined HTTP/1.1 requests from a byte stream: calls `onRequest` with each request's
 * path once its head and its `content-length` body have arrived (as an endpoint that reads the
 * upload before answering), and `onError` once for a head longer than {@link MAX_REQUEST_HEAD}.
 */
export class RequestReader {
  #head = ''
  #skip = 0
  #path: string | null = null
  #failed = false
  readonly #onRequest: (path: string) => void
  readonly #onError: (err: Error) => void

  constructor (onRequest: (path: string) => void, onError: (err: Error) => void) {
    this.#onRequest = onRequest
    this.#onError = onError
  }

  /** Takes the next bytes of the stream. */
  consume (chunk: Buffer): void {
    let off = 0
    while (off < chunk.length && !this.#failed) {
      if (this.#path !== null) {
        const n = Math.min(this.#skip, chunk.length - off)
        this.#skip -= n
        off += n
        if (this.#skip === 0) this.#complete()
        continue
      }
      // Heads are small; carry a partial one over as text until its blank line arrives.
      const text = this.#head + chunk.toString('latin1', off, Math.min(chunk.length, off + MAX_REQUEST_HEAD))
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) {
        if (text.length >= MAX_REQUEST_HEAD) {
          this.#failed = true
          this.#onError(new Error(`benchmark origin: request head longer than ${MAX_REQUEST_HEAD} bytes`))
          return
        }
        this.#head = text
        off = chunk.length
        continue
      }
      off += end + 4 - this.#head.length
      this.#head = ''
      this.#startRequest(text.slice(0, end))
    }
  }

  #startRequest (head: string): void {
    const first = head.indexOf(' ')
    this.#path = head.slice(first + 1, head.indexOf(' ', first + 1))
    const match = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    this.#skip = match === null ? 0 : Number(match[1])
    if (this.#skip === 0) this.#complete()
  }

  #complete (): void {
    const path = this.#path!
    this.#path = null
    this.#onRequest(path)
  }
}
