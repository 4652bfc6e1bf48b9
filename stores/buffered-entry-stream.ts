/**
 * The write stream the buffering cache stores (memory, SQLite) hand to the cache interceptor.
 * @module
 */

import { Writable } from 'node:stream'
import type { CacheKey, CacheValue } from '../src/handler.js'

/** Receives the copied key and value and the whole body once the stream finishes. */
export type CommitEntry = (key: CacheKey, value: CacheValue, body: Buffer) => void

/**
 * A stream that collects a response body and commits it when it finishes. The key and value are
 * copied at once, so later changes by the caller cannot alter what gets stored. Past
 * `maxEntrySize` bytes the stream is destroyed and nothing is committed. An error thrown by
 * `commit` fails the stream.
 */
export function createBufferedEntryStream (key: CacheKey, value: CacheValue, maxEntrySize: number, commit: CommitEntry): Writable {
  const keyCopy: CacheKey = { origin: key.origin, method: key.method, path: key.path, headers: key.headers === undefined ? undefined : structuredClone(key.headers) }
  const valueCopy = structuredClone(value)
  const chunks: Buffer[] = []
  let bytes = 0
  const stream = new Writable({
    write (chunk: Buffer | string, encoding, callback) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk
      bytes += buffer.length
      if (bytes > maxEntrySize) {
        stream.destroy()
        callback()
        return
      }
      chunks.push(buffer)
      callback()
    },
    final (callback) {
      try {
        commit(keyCopy, valueCopy, Buffer.concat(chunks, bytes))
        callback()
      } catch (err) {
        callback(err as Error)
      }
    }
  })
  return stream
}
