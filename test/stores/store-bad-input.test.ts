import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cacheStores } from '../../src/index.js'
import type { CacheValue } from '../../src/index.js'

const KEY = { origin: 'http://127.0.0.1:1', method: 'GET', path: '/' }
const now = Date.now()
const VALUE: CacheValue = { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now + 60_000, deleteAt: now + 120_000 }

/** Cache values a store cannot keep or expire, with the field each message must name. */
const BAD_VALUES: Array<[unknown, string]> = [
  [{}, 'value.statusCode must be a finite number, got undefined'],
  [{ ...VALUE, deleteAt: 'later' }, 'value.deleteAt must be a finite number, got "later"'],
  [{ ...VALUE, staleAt: Number.NaN }, 'value.staleAt must be a finite number, got NaN'],
  [{ ...VALUE, headers: 'x: y' }, 'value.headers must be an object, got "x: y"']
]

describe('cache store bad input', () => {
  it('MemoryCacheStore and SqliteCacheStore refuse a value without the fields that keep and expire an entry', (t) => {
    const memory = new cacheStores.MemoryCacheStore()
    const sqlite = new cacheStores.SqliteCacheStore()
    t.after(() => sqlite.close())
    for (const [value, message] of BAD_VALUES) {
      assert.throws(() => memory.createWriteStream(KEY, value as never), { name: 'TypeError', message: `MemoryCacheStore.createWriteStream(): ${message}` })
      assert.throws(() => sqlite.createWriteStream(KEY, value as never), { name: 'TypeError', message: `SqliteCacheStore.createWriteStream(): ${message}` })
      assert.throws(() => sqlite.set(KEY, value as never), { name: 'TypeError', message: `SqliteCacheStore.set(): ${message}` })
    }
    assert.equal(sqlite.size, 0)
    assert.ok(memory.createWriteStream(KEY, VALUE))
  })

  it('SqliteCacheStore names the location it cannot open, keeping the driver error as the cause, and leaves no file behind', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'conduit-sqlite-bad-'))
    t.after(async () => { await rm(dir, { recursive: true, force: true }) })
    for (const location of [join(dir, 'missing', 'cache.db'), dir]) {
      assert.throws(() => new cacheStores.SqliteCacheStore({ location }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
        assert.ok(err.message.startsWith(`SqliteCacheStore: cannot use the database at location ${JSON.stringify(location)}: `), err.message)
        assert.ok(err.cause instanceof Error)
        return true
      })
    }
    assert.deepEqual(await readdir(dir), [])
  })
})
