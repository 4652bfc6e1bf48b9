/**
 * SqliteCacheStore commits its writes on a writer thread: the event loop never waits for another
 * process's lock, a write is seen by this process's reads at once, and nothing is lost when the
 * process ends or the store is closed right after writing.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MAX_PENDING_WRITE_BYTES, SqliteCacheStore } from '../../stores/sqlite-cache-store.js'
import { JOURNAL_SWITCH_WAIT_MS } from '../../stores/sqlite-schema.js'
import type { CacheKey, CacheValue } from '../../src/contracts/cache-store.js'
import { AVAILABLE_SQLITE_DRIVERS } from './sqlite-drivers.js'

const run = promisify(execFile)
const LOCK_CHILD = fileURLToPath(new URL('./sqlite-lock-child.js', import.meta.url))
const EXIT_CHILD = fileURLToPath(new URL('./sqlite-exit-child.js', import.meta.url))

function key (path: string, headers: Record<string, string> = {}): CacheKey {
  return { origin: 'http://127.0.0.1:1', method: 'GET', path, headers }
}

function value (overrides: Partial<CacheValue> = {}): CacheValue {
  const now = Date.now()
  return { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now + 600_000, deleteAt: now + 600_000, ...overrides }
}

async function tempFile (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-sqlite-writer-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return join(dir, 'cache.db')
}

async function holdFile (file: string, mode: 'lock' | 'wal', driver: string): Promise<{ child: ChildProcess, release: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', LOCK_CHILD, file, mode, driver], { stdio: ['pipe', 'pipe', 'inherit'] })
  await once(child.stdout!, 'data')
  let released = false
  return {
    child,
    release: async () => {
      if (released) return
      released = true
      const exited = once(child, 'exit')
      child.stdin!.end()
      await exited
    }
  }
}

for (const driver of AVAILABLE_SQLITE_DRIVERS) {
  describe(`SqliteCacheStore on ${driver} with its writer thread`, () => {
    it('shows a write to get at once and counts it in size once flush() says it is committed', async (t) => {
      const store = new SqliteCacheStore({ location: await tempFile(t), driver })
      t.after(() => store.close())
      store.set(key('/a'), { ...value(), body: Buffer.from('first') })
      assert.deepEqual(store.get(key('/a'))?.body, Buffer.from('first'))
      await store.flush()
      assert.equal(store.size, 1)
      assert.deepEqual(store.get(key('/a'))?.body, Buffer.from('first'))
    })

    it('shows a delete at once, and a later write of the same URL after it', async (t) => {
      const store = new SqliteCacheStore({ location: await tempFile(t), driver })
      t.after(() => store.close())
      store.set(key('/gone'), { ...value(), body: Buffer.from('old') })
      await store.flush()
      store.delete(key('/gone'))
      assert.equal(store.get(key('/gone')), undefined)
      store.set(key('/gone'), { ...value({ etag: '"new"' }), body: Buffer.from('new') })
      assert.equal(store.get(key('/gone'))?.etag, '"new"')
      await store.flush()
      assert.equal(store.size, 1)
      assert.equal(store.get(key('/gone'))?.etag, '"new"')
    })

    it('hides a stored variant that a pending write replaces, as the committed file will', async (t) => {
      const store = new SqliteCacheStore({ location: await tempFile(t), driver })
      t.after(() => store.close())
      // Stored without Vary: any request selects it.
      store.set(key('/v'), { ...value(), body: Buffer.from('any') })
      await store.flush()
      store.set(key('/v', { accept: 'a' }), { ...value({ vary: { accept: 'a' } }), body: Buffer.from('for a') })
      assert.equal(store.get(key('/v', { accept: 'b' })), undefined)
      assert.deepEqual(store.get(key('/v', { accept: 'a' }))?.body, Buffer.from('for a'))
      await store.flush()
      assert.equal(store.get(key('/v', { accept: 'b' })), undefined)
      assert.equal(store.size, 1)
    })

    it('takes writes and answers reads while another process holds the write lock, and commits them once it lets go', async (t) => {
      const file = await tempFile(t)
      new SqliteCacheStore({ location: file, driver }).close()
      const holder = await holdFile(file, 'lock', driver)
      t.after(holder.release)
      const store = new SqliteCacheStore({ location: file, driver })
      t.after(() => store.close())
      const mib = Buffer.alloc(1024 * 1024, 1)
      const count = MAX_PENDING_WRITE_BYTES / mib.length + 4
      for (let i = 0; i < count; i++) store.set(key(`/big/${i}`), { ...value(), body: mib })
      // Held in memory up to the bound, dropped past it: the lock never blocked this thread.
      const kept = Array.from({ length: count }, (_, i) => store.get(key(`/big/${i}`)) !== undefined)
      assert.equal(kept.filter(Boolean).length, MAX_PENDING_WRITE_BYTES / mib.length)
      assert.equal(kept.at(-1), false)
      await holder.release()
      await store.flush()
      assert.equal(store.size, MAX_PENDING_WRITE_BYTES / mib.length)
    })

    it('commits a write of a process that ends without closing the store', async (t) => {
      const file = await tempFile(t)
      const { stderr } = await run(process.execPath, ['--disable-warning=ExperimentalWarning', EXIT_CHILD, file, driver])
      assert.equal(stderr, '')
      const store = new SqliteCacheStore({ location: file, driver })
      t.after(() => store.close())
      assert.deepEqual(store.get(key('/last-words'))?.body, Buffer.from('kept'))
    })

    it('refuses, after a short bounded wait, a file another process keeps open in WAL mode, saying so', async (t) => {
      const file = await tempFile(t)
      const holder = await holdFile(file, 'wal', driver)
      t.after(holder.release)
      assert.throws(() => new SqliteCacheStore({ location: file, driver }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
        assert.match(err.message, new RegExp(`in WAL mode and another connection keeps it open in that mode .*waited ${JOURNAL_SWITCH_WAIT_MS} ms`))
        return true
      })
      await holder.release()
      // Once the other process let go, the file is switched and used.
      const store = new SqliteCacheStore({ location: file, driver })
      t.after(() => store.close())
      store.set(key('/after-wal'), { ...value(), body: null })
      await store.flush()
      assert.equal(store.size, 1)
    })

    it('throws from every operation once closed, naming the closed store', async (t) => {
      const store = new SqliteCacheStore({ location: await tempFile(t), driver })
      store.close()
      for (const call of [() => store.get(key('/x')), () => store.set(key('/x'), { ...value(), body: null }), () => store.delete(key('/x')), () => store.size]) {
        assert.throws(call, { code: 'LIB_ERR_INVALID_ARG', message: 'SqliteCacheStore: the database is not open (the store was closed)' })
      }
      store.close()
    })
  })
}
