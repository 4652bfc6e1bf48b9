/**
 * permessage-deflate (RFC 7692): the offer the client sends, the check of the server's answer,
 * and the per-connection compressor and decompressor. Both run on zlib streams that keep their
 * window between messages unless the peers agreed otherwise; a message ends with a sync flush,
 * whose `00 00 FF FF` tail is stripped when sending and appended when receiving (section 7.2).
 * The decompressor counts what it produces and stops at the message size limit, so a small
 * frame that inflates to gigabytes fails with 1009 instead of filling memory.
 * @module
 */

import zlib from 'node:zlib'
import type { DeflateRaw, InflateRaw } from 'node:zlib'
import { trimOws } from '../connection/field-syntax.js'

/** What the client offers in `Sec-WebSocket-Extensions`. */
export const DEFLATE_OFFER = 'permessage-deflate; client_max_window_bits'

const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff])
const EMPTY_BLOCK = Buffer.from([0x00])

/** The parameters the server accepted. */
export interface DeflateParams {
  /** The client resets its compressor after every message. */
  clientNoContextTakeover: boolean
  /** Window of the client's compressor, 9 to 15 (8 is raised to 9: zlib's raw deflate has no 256-byte window). */
  clientWindowBits: number
}

/**
 * Reads the server's `Sec-WebSocket-Extensions` answer to {@link DEFLATE_OFFER}: the accepted
 * parameters, or a message saying what the server answered that the client did not offer.
 */
export function parseDeflateResponse (header: string): DeflateParams | string {
  const offers = header.split(',')
  if (offers.length !== 1) return `the server accepted several extensions: ${JSON.stringify(header)}`
  const [name, ...params] = offers[0]!.split(';').map((part) => trimOws(part))
  if (name !== 'permessage-deflate') return `the server accepted the extension ${JSON.stringify(name)}, which was not offered`
  const result: DeflateParams = { clientNoContextTakeover: false, clientWindowBits: 15 }
  const seen = new Set<string>()
  for (const param of params) {
    const eq = param.indexOf('=')
    const key = trimOws(eq === -1 ? param : param.slice(0, eq)).toLowerCase()
    const value = eq === -1 ? null : trimOws(param.slice(eq + 1)).replace(/^"(.*)"$/, '$1')
    if (seen.has(key)) return `the server repeated the permessage-deflate parameter ${key}`
    seen.add(key)
    switch (key) {
      case 'server_no_context_takeover':
        if (value !== null) return `server_no_context_takeover takes no value, got ${JSON.stringify(value)}`
        break
      case 'client_no_context_takeover':
        if (value !== null) return `client_no_context_takeover takes no value, got ${JSON.stringify(value)}`
        result.clientNoContextTakeover = true
        break
      case 'server_max_window_bits':
      case 'client_max_window_bits': {
        const bits = value !== null && /^\d+$/.test(value) ? Number(value) : NaN
        if (!(bits >= 8 && bits <= 15)) return `${key} must be 8 to 15, got ${JSON.stringify(value)}`
        if (key === 'client_max_window_bits') result.clientWindowBits = Math.max(bits, 9)
        break
      }
      default:
        return `the server answered the unknown permessage-deflate parameter ${JSON.stringify(key)}`
    }
  }
  return result
}

/** Outcome of one decompression: the message, or the close code and reason to fail with. */
export type InflateResult = { data: Buffer } | { code: number, reason: string }

/**
 * Compresses and decompresses the messages of one connection, in order. Each zlib stream has one
 * permanent `data` listener collecting the output of the message in progress: zlib handles writes
 * in order and calls a flush's callback after the output before it was emitted, so at that callback
 * the collected output is exactly the message's.
 */
export class MessageDeflate {
  readonly #params: DeflateParams
  readonly #maxMessageSize: number
  #deflater: DeflateRaw | null = null
  #deflated: Buffer[] = []
  #inflater: InflateRaw | null = null
  #inflated: Buffer[] = []
  #inflatedSize = 0
  /** The message being decompressed: its callback, until it settles. */
  #inflating: ((result: InflateResult) => void) | null = null
  #closed = false

  constructor (params: DeflateParams, maxMessageSize: number) {
    this.#params = params
    this.#maxMessageSize = maxMessageSize
  }

  /** Compresses one message; `done` gets the payload of the frame (RSV1 set). Calls complete in order. */
  compress (data: Uint8Array, done: (payload: Buffer) => void): void {
    const deflater = this.#deflater ?? this.#newDeflater()
    deflater.write(data)
    deflater.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      if (this.#closed) return
      const parts = this.#deflated
      this.#deflated = []
      let out = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
      if (out.length >= 4 && out.subarray(out.length - 4).equals(TAIL)) out = out.subarray(0, out.length - 4)
      if (this.#params.clientNoContextTakeover) deflater.reset()
      done(out.length === 0 ? EMPTY_BLOCK : out)
    })
  }

  #newDeflater (): DeflateRaw {
    const deflater = zlib.createDeflateRaw({ windowBits: this.#params.clientWindowBits })
    deflater.on('data', (chunk: Buffer) => { this.#deflated.push(chunk) })
    this.#deflater = deflater
    return deflater
  }

  /**
   * Decompresses the fragments of one message, failing with 1009 past the size limit and 1007
   * on bad data. One message at a time: the connection waits for `done` before the next.
   */
  decompress (fragments: Buffer[], done: (result: InflateResult) => void): void {
    const inflater = this.#inflater ?? this.#newInflater()
    this.#inflating = done
    this.#inflated = []
    this.#inflatedSize = 0
    for (const fragment of fragments) inflater.write(fragment)
    inflater.write(TAIL)
    inflater.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      if (this.#inflater !== inflater) return
      const parts = this.#inflated
      this.#inflated = []
      this.#settle({ data: parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.#inflatedSize) })
    })
  }

  #newInflater (): InflateRaw {
    const inflater = zlib.createInflateRaw({ windowBits: 15 })
    inflater.on('data', (chunk: Buffer) => {
      this.#inflatedSize += chunk.length
      if (this.#inflatedSize > this.#maxMessageSize) {
        // Stop inflating now: the rest of the message is never produced.
        this.#dropInflater()
        this.#settle({ code: 1009, reason: `a compressed message inflates past the message size limit of ${this.#maxMessageSize} bytes` })
        return
      }
      this.#inflated.push(chunk)
    })
    inflater.on('error', (err: Error) => {
      this.#dropInflater()
      this.#settle({ code: 1007, reason: `a compressed message is not valid deflate data: ${err.message}` })
    })
    this.#inflater = inflater
    return inflater
  }

  #settle (result: InflateResult): void {
    const done = this.#inflating
    this.#inflating = null
    if (done !== null && !this.#closed) done(result)
  }

  #dropInflater (): void {
    const inflater = this.#inflater
    this.#inflater = null
    this.#inflated = []
    if (inflater !== null) {
      inflater.removeAllListeners('data')
      inflater.removeAllListeners('error')
      inflater.on('error', noop)
      inflater.close()
    }
  }

  /** Releases both zlib streams; pending work is dropped. */
  close (): void {
    this.#closed = true
    this.#dropInflater()
    this.#deflater?.close()
    this.#deflater = null
  }
}

function noop (): void {}
