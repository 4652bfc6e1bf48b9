import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { SqliteCacheStore } from '../../../stores/sqlite-cache-store.js'
import { storedEntryProblem } from '../../../interceptors/cache/stored-entry-check.js'
import { setupCache, until } from './cache-test-helpers.js'
import { BAD_ENTRIES, CorruptedStore, staleEntry } from './cache-bad-store-values.js'

describe('cache with a store that returns bad values', () => {
  for (const [what, entry] of BAD_ENTRIES) {
    it(`treats an entry with ${what} as a miss and answers from the server`, async (t) => {
      const store = new CorruptedStore(entry)
      const cache = await setupCache(t, (_req, res) => {
        res.setHeader('cache-control', 'max-age=60')
        res.end('fresh')
      }, { store })
      const res = await cache.send('/page')
      assert.equal(res.status, 200)
      assert.equal(res.body, 'fresh')
      assert.equal(cache.count(), 1)
      // The server saw a plain request: nothing of the stored entry leaked into it.
      assert.equal(cache.server.requests[0]?.headers['if-none-match'], undefined)
      assert.equal(cache.server.requests[0]?.headers['x-injected'], undefined)
      // As on any miss, the fresh response is stored, replacing the corrupted entry.
      await until(() => store.written.length === 1)
      assert.equal(store.written[0]?.statusCode, 200)
    })
  }

  const TAMPERING: Array<[string, string]> = [
    ['an ETag with CR/LF on a stale entry', `UPDATE conduit_cache_v1 SET etag = '"v1"' || char(13, 10) || 'x-injected: 1', staleAt = 0`],
    ['a header value with CR/LF on a fresh entry', `UPDATE conduit_cache_v1 SET headers = '{"content-type":"text/plain\\r\\nset-cookie: a=b"}'`],
    ['a status code out of range', 'UPDATE conduit_cache_v1 SET statusCode = 1000'],
    ['headers that are not JSON', `UPDATE conduit_cache_v1 SET headers = 'not json'`]
  ]
  for (const [what, sql] of TAMPERING) {
    it(`serves from the server when a real SQLite file holds ${what}, written behind the store`, async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'conduit-bad-store-'))
      const store = new SqliteCacheStore({ location: join(dir, 'cache.db') })
      t.after(async () => {
        store.close()
        await rm(dir, { recursive: true, force: true })
      })
      let version = 0
      const cache = await setupCache(t, (_req, res) => {
        res.setHeader('cache-control', 'max-age=60')
        res.setHeader('etag', '"v1"')
        res.end(`fresh ${++version}`)
      }, { store })
      assert.equal((await cache.send('/page')).body, 'fresh 1')
      await until(async () => { await store.flush(); return store.size === 1 })
      const db = new Database(join(dir, 'cache.db'))
      db.exec(sql)
      db.close()
      const res = await cache.send('/page')
      assert.equal(res.status, 200)
      assert.equal(res.body, 'fresh 2')
      const second = cache.server.requests[1]
      assert.equal(second?.headers['if-none-match'], undefined)
      assert.equal(second?.headers['x-injected'], undefined)
    })
  }

  it('still revalidates a valid stale entry with its ETag', async (t) => {
    const store = new CorruptedStore(staleEntry)
    const cache = await setupCache(t, (req, res) => {
      res.statusCode = req.headers['if-none-match'] === '"v1"' ? 304 : 500
      res.end()
    }, { store })
    const res = await cache.send('/page')
    assert.equal(res.status, 200)
    assert.equal(res.body, 'stored')
    assert.equal(cache.server.requests[0]?.headers['if-none-match'], '"v1"')
  })

  it('names what is wrong with an entry, and accepts every valid form', () => {
    assert.equal(storedEntryProblem(staleEntry()), null)
    assert.equal(storedEntryProblem({ ...staleEntry(), vary: { accept: null, 'accept-language': ['en', 'fr'] }, body: ['a'] }), null)
    assert.equal(storedEntryProblem({ ...staleEntry(), etag: '"a"\r\nx: 1' }), 'etag is not a valid field value: "\\"a\\"\\r\\nx: 1"')
    assert.equal(storedEntryProblem({ ...staleEntry(), headers: null }), 'headers must be an object, got null')
    assert.equal(storedEntryProblem({ ...staleEntry(), statusCode: 99 }), 'statusCode must be an integer from 200 to 599, got 99')
    assert.equal(storedEntryProblem(7), 'the entry must be an object, got 7')
  })

  it('reports the unusable entry in the conduit:cache debug log', () => {
    const script = fileURLToPath(new URL('./cache-bad-store-child.js', import.meta.url))
    const result = spawnSync(process.execPath, [script], { env: { ...process.env, NODE_DEBUG: 'conduit:cache' }, encoding: 'utf8', timeout: 20_000 })
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stderr, /CONDUIT:CACHE \d+: unusable entry from the store for GET http:\/\/127\.0\.0\.1:\d+\/page, treating it as a miss: etag is not a valid field value/)
  })
})
