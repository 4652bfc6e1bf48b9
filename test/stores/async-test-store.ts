/**
 * A custom store for tests whose every operation is asynchronous: `get` and `delete` return
 * promises resolved on a later turn, and the write stream commits in `final` after a delay.
 * It proves the contract and the interceptor await results on every path.
 */

import { Writable } from 'node:stream'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../../stores/memory-cache-store.js'

const later = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** An asynchronous store backed by a {@link MemoryCacheStore}; counts its calls. */
export class AsyncTestStore implements CacheStore {
  readonly inner = new MemoryCacheStore()
  calls = { get: 0, createWriteStream: 0, delete: 0 }

  async get (key: CacheKey): Promise<GetResult | undefined> {
    this.calls.get++
    await later()
    const result = this.inner.get(key)
    if (result === undefined) return undefined
    // Hand the body out as an async iterable, the least convenient form the contract allows.
    const body = result.body as Buffer
    return { ...result, body: (async function * () { await later(); yield body })() }
  }

  createWriteStream (key: CacheKey, value: CacheValue): Writable {
    this.calls.createWriteStream++
    const chunks: Buffer[] = []
    const inner = this.inner
    return new Writable({
      write (chunk: Buffer, _encoding, callback) {
        chunks.push(chunk)
        callback()
      },
      final (callback) {
        later().then(() => {
          const stream = inner.createWriteStream(key, value)
          stream.on('finish', () => callback())
          stream.on('error', callback)
          for (const chunk of chunks) stream.write(chunk)
          stream.end()
        }, callback)
      }
    })
  }

  async delete (key: CacheKey): Promise<void> {
    this.calls.delete++
    await later()
    this.inner.delete(key)
  }
}
