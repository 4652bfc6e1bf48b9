/**
 * An in-memory socket that answers the benchmark's requests itself, so a client's CPU time per
 * request is its library's own work: no kernel, no server process, no scheduler noise. Each
 * written request head is read (path and content-length), its body skipped, and the scenario's
 * response delivered on the next event-loop turn; a large body comes in 64 KiB pieces, one per
 * turn, as TCP socket reads would hand it over.
 * @module
 */

import { Duplex } from 'node:stream'
import { RESPONSES, NOT_FOUND, RequestReader } from './wire-answers.js'

/** Largest piece a real socket read delivers by default. */
const READ_SIZE = 64 * 1024

function inPieces (whole: Buffer): Buffer[] {
  const pieces: Buffer[] = []
  for (let off = 0; off < whole.length; off += READ_SIZE) pieces.push(whole.subarray(off, off + READ_SIZE))
  return pieces
}

const responses = new Map<string, Buffer[]>([...RESPONSES].map(([path, whole]) => [path, inPieces(whole)]))
const notFound = [NOT_FOUND]

/** The origin clients use in memory mode (a port fetch allows); the connectors below make sure nothing is dialled. */
export const MEMORY_ORIGIN = 'http://127.0.0.1:65535'

/** A Duplex standing in for a TCP socket to the benchmark server. */
export class MemorySocket extends Duplex {
  readonly #reader = new RequestReader((path) => this.#request(path), (err) => this.destroy(err))
  #pending: Array<{ pieces: Buffer[], next: number }> = []
  #scheduled = false

  override _read (): void {}

  override _write (chunk: Buffer | string, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.#reader.consume(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk)
    callback()
  }

  override _final (callback: (err?: Error | null) => void): void {
    this.push(null)
    callback()
  }

  #request (path: string): void {
    this.#pending.push({ pieces: responses.get(path) ?? notFound, next: 0 })
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
