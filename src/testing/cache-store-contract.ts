/**
 * The cache store contract suite: the rules every store, shipped or custom, sync or async, must
 * follow for the cache interceptor to behave the same on top of it. A store's test file calls
 * {@link runCacheStoreContract} once per configuration, under node's test runner.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import type { Writable } from 'node:stream'
import type { CacheKey, CacheStore, CacheValue, GetResult } from '../contracts/cache-store.js'
import { PARTIAL_METHOD } from '../contracts/cache-store.js'

/** What a contract factory hands back: a fresh, empty store and how to dispose of it. */
export interface ContractStore {
  /** The store under test, empty. */
  store: CacheStore
  /** Disposes of the store (closes connections, deletes files) after the test. */
  cleanup: () => Promise<void>
}

/** Builds a fresh, empty store for one contract test. */
export type MakeContractStore = () => Promise<ContractStore> | ContractStore

let uniquePath = 0

/** A key on a path no other test uses, so stores shared between tests stay independent. */
function freshKey (overrides: Partial<CacheKey> = {}): CacheKey {
  uniquePath++
  return { origin: 'http://127.0.0.1:3000', method: 'GET', path: `/contract/${process.pid}/${uniquePath}?q=1`, headers: {}, ...overrides }
}

function makeValue (overrides: Partial<CacheValue> = {}): CacheValue {
  const now = Date.now()
  return {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'content-type': 'text/plain', 'x-list': ['a', 'b'] },
    cachedAt: now,
    staleAt: now + 60_000,
    deleteAt: now + 120_000,
    ...overrides
  }
}

/** Reads a GetResult body of any accepted kind (stream, iterable, async iterable, Buffer, string). */
export async function readCachedBody (body: GetResult['body']): Promise<Buffer> {
  if (body == null) return Buffer.alloc(0)
  if (typeof body === 'string') return Buffer.from(body)
  if (Buffer.isBuffer(body)) return body
  const chunks: Buffer[] = []
  if (body instanceof Readable || Symbol.asyncIterator in (body as object)) {
    for await (const chunk of body as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk))
  } else {
    for (const chunk of body as Iterable<Buffer | string>) chunks.push(Buffer.from(chunk))
  }
  return Buffer.concat(chunks)
}

/** Writes `chunks` through `createWriteStream` and resolves once the stream has finished (entry committed). */
export async function writeEntry (store: CacheStore, key: CacheKey, value: CacheValue, chunks: Array<string | Buffer> = []): Promise<void> {
  const stream = store.createWriteStream(key, value)
  assert.ok(stream, 'createWriteStream returned no stream for a storable response')
  await finishWriting(stream, chunks)
}

function finishWriting (stream: Writable, chunks: Array<string | Buffer>): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject)
    stream.once('finish', () => resolve())
    for (const chunk of chunks) stream.write(chunk)
    stream.end()
  })
}

/**
 * Registers `describe(name, ...)` with the contract tests, run against a fresh store from
 * `makeStore` in each test. The factory may be sync or async; so may every store operation.
 */
export function runCacheStoreContract (name: string, makeStore: MakeContractStore): void {
  async function withStore (fn: (store: CacheStore) => Promise<void>): Promise<void> {
    const { store, cleanup } = await makeStore()
    try {
      await fn(store)
    } finally {
      await cleanup()
    }
  }

  describe(name, () => {
    it('returns undefined for a key that was never stored', () => withStore(async (store) => {
      assert.equal(await store.get(freshKey()), undefined)
    }))

    it('returns every metadata field of a stored response unchanged', () => withStore(async (store) => {
      const key = freshKey({ headers: { accept: 'text/plain' } })
      const value = makeValue({
        etag: '"v1"',
        vary: { accept: 'text/plain' },
        cacheControlDirectives: { 'max-age': 60, public: true, 'no-cache': ['set-cookie'] }
      })
      await writeEntry(store, key, value, ['hello'])
      const result = await store.get(key)
      assert.ok(result)
      assert.equal(result.statusCode, 200)
      assert.equal(result.statusMessage, 'OK')
      assert.deepEqual(result.headers, value.headers)
      assert.equal(result.etag, '"v1"')
      assert.deepEqual(result.vary, { accept: 'text/plain' })
      assert.deepEqual(result.cacheControlDirectives, value.cacheControlDirectives)
      assert.equal(result.cachedAt, value.cachedAt)
      assert.equal(result.staleAt, value.staleAt)
      assert.equal(result.deleteAt, value.deleteAt)
      assert.equal((await readCachedBody(result.body)).toString(), 'hello')
    }))

    it('joins a body written in several chunks in order', () => withStore(async (store) => {
      const key = freshKey()
      const chunks = ['one,', Buffer.from('two,'), 'three,', Buffer.alloc(1000, 'x')]
      await writeEntry(store, key, makeValue(), chunks)
      const result = await store.get(key)
      assert.ok(result)
      assert.deepEqual(await readCachedBody(result.body), Buffer.concat(chunks.map((c) => Buffer.from(c))))
    }))

    it('stores a response with an empty body', () => withStore(async (store) => {
      const key = freshKey()
      await writeEntry(store, key, makeValue({ statusCode: 204, statusMessage: 'No Content' }))
      const result = await store.get(key)
      assert.ok(result)
      assert.equal(result.statusCode, 204)
      assert.equal((await readCachedBody(result.body)).length, 0)
    }))

    it('keeps bodies as bytes, binary content included', () => withStore(async (store) => {
      const key = freshKey()
      const bytes = Buffer.from([0, 255, 1, 254, 0x80, 0x0d, 0x0a, 0])
      await writeEntry(store, key, makeValue(), [bytes])
      const result = await store.get(key)
      assert.ok(result)
      assert.deepEqual(await readCachedBody(result.body), bytes)
    }))

    it('selects by method: a stored GET is not returned for a HEAD of the same URL', () => withStore(async (store) => {
      const key = freshKey()
      await writeEntry(store, key, makeValue(), ['body'])
      assert.equal(await store.get({ ...key, method: 'HEAD' }), undefined)
      assert.ok(await store.get(key))
    }))

    it('selects by origin and path: other origins and other query strings miss', () => withStore(async (store) => {
      const key = freshKey()
      await writeEntry(store, key, makeValue(), ['body'])
      assert.equal(await store.get({ ...key, origin: 'http://127.0.0.1:3001' }), undefined)
      assert.equal(await store.get({ ...key, path: key.path.replace('?q=1', '?q=2') }), undefined)
    }))

    it('returns a response with a Vary map only when each named request header has the stored value', () => withStore(async (store) => {
      const key = freshKey({ headers: { 'accept-encoding': 'gzip', 'accept-language': 'en' } })
      await writeEntry(store, key, makeValue({ vary: { 'accept-encoding': 'gzip', 'accept-language': 'en' } }), ['gz'])
      assert.ok(await store.get(key))
      assert.ok(await store.get({ ...key, headers: { 'accept-encoding': 'gzip', 'accept-language': 'en', 'x-other': '1' } }))
      assert.equal(await store.get({ ...key, headers: { 'accept-encoding': 'br', 'accept-language': 'en' } }), undefined)
      assert.equal(await store.get({ ...key, headers: { 'accept-language': 'en' } }), undefined)
      assert.equal(await store.get({ ...key, headers: undefined }), undefined)
    }))

    it('treats a null Vary value as "the header was absent": it matches only requests without that header', () => withStore(async (store) => {
      const key = freshKey({ headers: {} })
      await writeEntry(store, key, makeValue({ vary: { 'accept-encoding': null } }), ['plain'])
      assert.ok(await store.get(key))
      assert.ok(await store.get({ ...key, headers: undefined }))
      assert.equal(await store.get({ ...key, headers: { 'accept-encoding': 'gzip' } }), undefined)
    }))

    it('matches Vary values given as arrays', () => withStore(async (store) => {
      const key = freshKey({ headers: { 'x-tags': ['a', 'b'] } })
      await writeEntry(store, key, makeValue({ vary: { 'x-tags': ['a', 'b'] } }), ['tags'])
      assert.ok(await store.get(key))
      assert.equal(await store.get({ ...key, headers: { 'x-tags': ['a'] } }), undefined)
    }))

    it('keeps several variants of one URL side by side and selects each by its Vary values', () => withStore(async (store) => {
      const base = freshKey()
      const gzip = { ...base, headers: { 'accept-encoding': 'gzip' } }
      const br = { ...base, headers: { 'accept-encoding': 'br' } }
      const none = { ...base, headers: {} }
      await writeEntry(store, gzip, makeValue({ vary: { 'accept-encoding': 'gzip' } }), ['gzip-body'])
      await writeEntry(store, br, makeValue({ vary: { 'accept-encoding': 'br' } }), ['br-body'])
      await writeEntry(store, none, makeValue({ vary: { 'accept-encoding': null } }), ['identity-body'])
      for (const [key, expected] of [[gzip, 'gzip-body'], [br, 'br-body'], [none, 'identity-body']] as const) {
        const result = await store.get(key)
        assert.ok(result, `no variant for ${JSON.stringify(key.headers)}`)
        assert.equal((await readCachedBody(result.body)).toString(), expected)
      }
    }))

    it('replaces the stored response when the same key and variant are written again', () => withStore(async (store) => {
      const key = freshKey({ headers: { accept: 'a' } })
      await writeEntry(store, key, makeValue({ vary: { accept: 'a' }, etag: '"1"' }), ['first'])
      await writeEntry(store, key, makeValue({ vary: { accept: 'a' }, etag: '"2"', statusCode: 203, statusMessage: 'Non-Authoritative Information' }), ['second'])
      const result = await store.get(key)
      assert.ok(result)
      assert.equal(result.etag, '"2"')
      assert.equal(result.statusCode, 203)
      assert.equal((await readCachedBody(result.body)).toString(), 'second')
    }))

    it('never returns a response whose deleteAt has already passed', () => withStore(async (store) => {
      const key = freshKey()
      const now = Date.now()
      const stream = store.createWriteStream(key, makeValue({ cachedAt: now - 2000, staleAt: now - 1000, deleteAt: now - 1 }))
      if (stream !== undefined) await finishWriting(stream, ['old'])
      assert.equal(await store.get(key), undefined)
    }))

    it('stops returning a response once its deleteAt passes', (t) => withStore(async (store) => {
      const key = freshKey()
      const start = Date.now()
      t.mock.timers.enable({ apis: ['Date'], now: start })
      await writeEntry(store, key, makeValue({ cachedAt: start, staleAt: start + 30_000, deleteAt: start + 60_000 }), ['soon gone'])
      t.mock.timers.tick(59_000)
      assert.ok(await store.get(key), 'entry vanished before its deleteAt')
      t.mock.timers.tick(2000)
      assert.equal(await store.get(key), undefined)
      t.mock.timers.reset()
    }))

    it('returns a stale response as long as its deleteAt is in the future', () => withStore(async (store) => {
      const key = freshKey()
      const now = Date.now()
      await writeEntry(store, key, makeValue({ cachedAt: now - 5000, staleAt: now - 1000, deleteAt: now + 60_000 }), ['stale'])
      const result = await store.get(key)
      assert.ok(result)
      assert.equal(result.staleAt, now - 1000)
    }))

    it('delete removes every response for the origin and path, all methods and variants', () => withStore(async (store) => {
      const key = freshKey()
      await writeEntry(store, { ...key, headers: { a: '1' } }, makeValue({ vary: { a: '1' } }), ['v1'])
      await writeEntry(store, { ...key, headers: { a: '2' } }, makeValue({ vary: { a: '2' } }), ['v2'])
      await writeEntry(store, { ...key, method: 'HEAD' }, makeValue(), [])
      await store.delete({ origin: key.origin, method: 'POST', path: key.path })
      assert.equal(await store.get({ ...key, headers: { a: '1' } }), undefined)
      assert.equal(await store.get({ ...key, headers: { a: '2' } }), undefined)
      assert.equal(await store.get({ ...key, method: 'HEAD' }), undefined)
    }))

    it('delete leaves responses of other paths and origins in place', () => withStore(async (store) => {
      const key = freshKey()
      const other = freshKey()
      const otherOrigin = { ...key, origin: 'http://127.0.0.1:3002' }
      await writeEntry(store, key, makeValue(), ['gone'])
      await writeEntry(store, other, makeValue(), ['kept'])
      await writeEntry(store, otherOrigin, makeValue(), ['kept too'])
      await store.delete(key)
      assert.equal(await store.get(key), undefined)
      assert.ok(await store.get(other))
      assert.ok(await store.get(otherOrigin))
    }))

    it('delete of a key that was never stored succeeds', () => withStore(async (store) => {
      await store.delete(freshKey())
    }))

    it('commits nothing when the write stream is destroyed before it finishes', () => withStore(async (store) => {
      const key = freshKey()
      const stream = store.createWriteStream(key, makeValue())
      assert.ok(stream)
      await new Promise<void>((resolve) => {
        stream.on('error', () => {})
        stream.once('close', () => resolve())
        stream.write('partial')
        stream.destroy(new Error('response aborted'))
      })
      assert.equal(await store.get(key), undefined)
    }))

    it('a destroyed rewrite keeps the previously committed response', () => withStore(async (store) => {
      const key = freshKey()
      await writeEntry(store, key, makeValue({ etag: '"old"' }), ['old'])
      const stream = store.createWriteStream(key, makeValue({ etag: '"new"' }))
      assert.ok(stream)
      await new Promise<void>((resolve) => {
        stream.on('error', () => {})
        stream.once('close', () => resolve())
        stream.write('new but partial')
        stream.destroy(new Error('response aborted'))
      })
      const result = await store.get(key)
      assert.ok(result)
      assert.equal(result.etag, '"old"')
      assert.equal((await readCachedBody(result.body)).toString(), 'old')
    }))

    it('keeps a partial (206) response under its own method beside the complete response of the URL', () => withStore(async (store) => {
      const key = freshKey()
      const partial = makeValue({ statusCode: 206, statusMessage: 'Partial Content', etag: '"p"', headers: { 'content-range': 'bytes 2-4/10', 'content-length': '3' } })
      await writeEntry(store, { ...key, method: PARTIAL_METHOD, headers: { range: 'bytes=2-4' } }, partial, ['cde'])
      await writeEntry(store, key, makeValue({ etag: '"p"' }), ['abcdefghij'])
      const held = await store.get({ ...key, method: PARTIAL_METHOD })
      assert.ok(held)
      assert.equal(held.statusCode, 206)
      assert.equal(held.headers['content-range'], 'bytes 2-4/10')
      assert.equal((await readCachedBody(held.body)).toString(), 'cde')
      const whole = await store.get(key)
      assert.ok(whole)
      assert.equal((await readCachedBody(whole.body)).toString(), 'abcdefghij')
      await store.delete(key)
      assert.equal(await store.get({ ...key, method: PARTIAL_METHOD }), undefined)
    }))

    it('keeps entries independent of later changes to the objects passed in', () => withStore(async (store) => {
      const key = freshKey({ headers: { accept: 'x' } })
      const value = makeValue({ vary: { accept: 'x' } })
      await writeEntry(store, key, value, ['body'])
      value.headers['content-type'] = 'changed'
      value.statusCode = 500
      const result = await store.get(key)
      assert.ok(result)
      assert.equal(result.statusCode, 200)
      assert.equal(result.headers['content-type'], 'text/plain')
    }))
  })
}
