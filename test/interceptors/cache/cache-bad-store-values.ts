/**
 * A cache store that answers every `get` with a corrupted entry, and the entries the tests use:
 * each one is what a broken or tampered-with store could hand back.
 */

import { Writable } from 'node:stream'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../../../src/contracts/cache-store.js'

/** A stale but otherwise valid entry; the bad ones below each break one part of it. */
export function staleEntry (): GetResult {
  const now = Date.now()
  return {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=1' },
    etag: '"v1"',
    cachedAt: now - 10_000,
    staleAt: now - 9_000,
    deleteAt: now + 60_000,
    body: Buffer.from('stored')
  }
}

/** Corrupted entries, by what is wrong with them. */
export const BAD_ENTRIES: ReadonlyArray<[string, () => unknown]> = [
  ['an ETag with CR/LF', () => ({ ...staleEntry(), etag: '"v1"\r\nx-injected: 1' })],
  ['headers that are not an object', () => ({ ...staleEntry(), headers: 'content-type: text/plain' })],
  ['null headers', () => ({ ...staleEntry(), headers: null })],
  ['a header value with CR/LF', () => ({ ...staleEntry(), headers: { 'content-type': 'text/plain\r\nset-cookie: a=b' } })],
  ['a header value that is a number', () => ({ ...staleEntry(), headers: { 'content-length': 6 } })],
  ['a header name that is not a token', () => ({ ...staleEntry(), headers: { 'bad name': 'x' } })],
  ['a status code that is not a number', () => ({ ...staleEntry(), statusCode: '200' })],
  ['an out-of-range status code', () => ({ ...staleEntry(), statusCode: 99 })],
  ['a status message with LF', () => ({ ...staleEntry(), statusMessage: 'OK\nx' })],
  ['a NaN deleteAt', () => ({ ...staleEntry(), deleteAt: Number.NaN })],
  ['a missing cachedAt', () => ({ ...staleEntry(), cachedAt: undefined })],
  ['vary that is not an object', () => ({ ...staleEntry(), vary: 'accept' })],
  ['a body that is a number', () => ({ ...staleEntry(), body: 42 })],
  ['directives that are a string', () => ({ ...staleEntry(), cacheControlDirectives: 'max-age=1' })],
  ['a string instead of an entry', () => 'HTTP/1.1 200 OK']
]

/** Returns `entry()` from every `get`, and records the entries written. */
export class CorruptedStore implements CacheStore {
  readonly written: CacheValue[] = []
  readonly #entry: () => unknown

  constructor (entry: () => unknown) {
    this.#entry = entry
  }

  get (_key: CacheKey): GetResult | undefined {
    return this.#entry() as GetResult
  }

  createWriteStream (_key: CacheKey, value: CacheValue): Writable {
    return new Writable({
      write: (_chunk, _encoding, callback) => callback(),
      final: (callback) => {
        this.written.push(value)
        callback()
      }
    })
  }

  delete (): void {}
}
