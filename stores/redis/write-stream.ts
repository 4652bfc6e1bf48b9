/**
 * The writable stream handed to the cache interceptor for one response body. It buffers the body
 * (Redis takes a value whole), gives up as soon as the body outgrows `maxEntrySize`, and commits
 * on finish, so `'finish'` means the entry is in Redis or was dropped (failing open).
 * @module
 */

import { Writable } from 'node:stream'

/** Buffers a response body and commits it once the stream ends. */
export class RedisWriteStream extends Writable {
  #chunks: Buffer[] = []
  #size = 0
  #maxEntrySize: number
  #commit: (body: Buffer) => Promise<void>

  constructor (maxEntrySize: number, commit: (body: Buffer) => Promise<void>) {
    super()
    this.#maxEntrySize = maxEntrySize
    this.#commit = commit
  }

  override _write (chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#size += chunk.length
    if (this.#size > this.#maxEntrySize) {
      // Too large to cache: the interceptor sees the stream go away and stops feeding it.
      this.#chunks = []
      this.destroy()
      callback()
      return
    }
    this.#chunks.push(chunk)
    callback()
  }

  override _final (callback: (error?: Error | null) => void): void {
    const body = this.#chunks.length === 1 ? this.#chunks[0] as Buffer : Buffer.concat(this.#chunks, this.#size)
    this.#chunks = []
    this.#commit(body).then(() => callback(), callback)
  }
}
