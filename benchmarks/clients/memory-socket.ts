/**
 * An in-memory socket that answers the benchmark's requests itself, so a client's CPU time per
 * request is its library's own work: no kernel, no server process, no scheduler noise. Each
 * written request head is read (path and content-length), its body skipped, and the scenario's
 * response delivered on the next event-loop turn; a large body comes in 64 KiB pieces, one per
 * turn, as TCP socket reads would hand it over.
 * @module
 */

import { Duplex } from 'node:stream'
import { SCENARIOS, responseBody, responseHeaders } from '../transport-scenarios.js'

/** Largest piece a real socket read delivers by default. */
const READ_SIZE = 64 * 1024

const responses = new Map<string, Buffer[]>()
for (const scenario of SCENARIOS) {
  const body = responseBody(scenario)
  const fields = Object.entries(responseHeaders(scenario)).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  // No date field: a fixed one would make the cacheable response stale once that day is past.
  const head = Buffer.from(`HTTP/1.1 200 OK\r\n${fields}content-length: ${body.length}\r\n` +
    'connection: keep-alive\r\nkeep-alive: timeout=120\r\n\r\n', 'latin1')
  const whole = Buffer.concat([head, body])
  const pieces: Buffer[] = []
  for (let off = 0; off < whole.length; off += READ_SIZE) pieces.push(whole.subarray(off, off + READ_SIZE))
  responses.set(scenario.path, pieces)
}
/** Longest request head the socket reads; the benchmark's heads are far smaller. */
const MAX_HEAD = 8192

/** The origin clients use in memory mode (a port fetch allows); the connectors below make sure nothing is dialled. */
export const MEMORY_ORIGIN = 'http://127.0.0.1:65535'

const NOT_FOUND = [Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n', 'latin1')]

/** A Duplex standing in for a TCP socket to the benchmark server. */
export class MemorySocket extends Duplex {
  #head = ''
  #skip = 0
  #pending: Array<{ pieces: Buffer[], next: number }> = []
  #scheduled = false

  override _read (): void {}

  override _write (chunk: Buffer | string, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.#consume(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk)
    callback()
  }

  override _final (callback: (err?: Error | null) => void): void {
    this.push(null)
    callback()
  }

  #consume (chunk: Buffer): void {
    let off = 0
    while (off < chunk.length) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, chunk.length - off)
        this.#skip -= n
        off += n
        continue
      }
      // Heads are small; carry a partial one over as text until its blank line arrives.
      const text = this.#head + chunk.toString('latin1', off, Math.min(chunk.length, off + MAX_HEAD))
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) {
        if (text.length >= MAX_HEAD) {
          this.destroy(new Error(`memory socket: request head longer than ${MAX_HEAD} bytes`))
          return
        }
        this.#head = text
        off = chunk.length
        continue
      }
      const used = end + 4 - this.#head.length
      this.#head = ''
      off += used
      this.#request(text.slice(0, end))
    }
  }

  #request (head: string): void {
    const path = head.slice(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1))
    const match = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    this.#skip = match === null ? 0 : Number(match[1])
    this.#pending.push({ pieces: responses.get(path) ?? NOT_FOUND, next: 0 })
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#deliver)
    }
  }

  /** One read's worth per turn: the next piece of every pending response, as a socket would. */
  readonly #deliver = (): void => {
    this.#scheduled = false
    const pending = this.#pending
    let more = false
    for (let i = 0; i < pending.length; i++) {
      const entry = pending[i]!
      this.push(entry.pieces[entry.next++])
      if (entry.next < entry.pieces.length) more = true
    }
    this.#pending = more ? pending.filter((entry) => entry.next < entry.pieces.length) : []
    if (more && !this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#deliver)
    }
  }

  // What transports call on TCP sockets; nothing to do in memory.
  setNoDelay (): this { return this }
  setKeepAlive (): this { return this }
  setTimeout (): this { return this }
  ref (): this { return this }
  unref (): this { return this }
}

/**
 * A connector in the shape conduit's and undici's `connect` option take.
 * @example
 * const agent = new Agent({ connections: 50, connect: memoryConnector })
 */
export function memoryConnector (_options: unknown, callback: (err: Error | null, socket: Duplex | null) => void): Duplex {
  const socket = new MemorySocket()
  process.nextTick(callback, null, socket)
  return socket
}
