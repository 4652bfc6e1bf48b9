import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SqliteCacheStore } from '../../stores/sqlite-cache-store.js'
import type { CacheKey, CacheValue } from '../../src/contracts/cache-store.js'
import { runCacheStoreContract, writeEntry } from '../../src/testing/cache-store-contract.js'
import { AVAILABLE_SQLITE_DRIVERS, HAS_NODE_SQLITE } from './sqlite-drivers.js'

const run = promisify(execFile)

async function tempDir (): Promise<{ dir: string, remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-sqlite-'))
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) }
}

for (const driver of AVAILABLE_SQLITE_DRIVERS) {
  runCacheStoreContract(`SqliteCacheStore on ${driver} in memory (cache store contract)`, () => {
    const store = new SqliteCacheStore({ driver })
    return { store, cleanup: async () => store.close() }
  })

  runCacheStoreContract(`SqliteCacheStore on ${driver} on a file (cache store contract)`, async () => {
    const { dir, remove } = await tempDir()
    const store = new SqliteCacheStore({ location: join(dir, 'cache.db'), driver })
    return { store, cleanup: async () => { store.close(); await remove() } }
  })
}

function key (path: string, method = 'GET'): CacheKey {
  return { origin: 'http://127.0.0.1:3000', method, path, headers: {} }
}

function value (): CacheValue {
  const now = Date.now()
  return { statusCode: 200, statusMessage: 'OK', headers: { 'content-type': 'text/plain' }, cachedAt: now, staleAt: now + 60_000, deleteAt: now + 120_000 }
}

describe('SqliteCacheStore', () => {
  it('rejects maxCount and maxEntrySize that are not non-negative integers with a TypeError naming them', () => {
    for (const [name, bad] of [['maxCount', -1], ['maxCount', 2.5], ['maxEntrySize', '1'], ['maxEntrySize', -5]] as const) {
      assert.throws(() => new SqliteCacheStore({ [name]: bad }), (err: Error) => {
        assert.ok(err instanceof TypeError)
        assert.match(err.message, new RegExp(`${name} must be a non-negative integer, got`))
        return true
      })
    }
  })

  it('rejects a maxEntrySize above 2 GB with a TypeError', () => {
    assert.throws(() => new SqliteCacheStore({ maxEntrySize: 2_000_000_001 }), (err: Error) => {
      assert.ok(err instanceof TypeError)
      assert.match(err.message, /maxEntrySize must be at most 2000000000 \(2 GB\), got 2000000001/)
      return true
    })
    new SqliteCacheStore({ maxEntrySize: 2_000_000_000 }).close()
  })

  it('rejects a location that is not a string', () => {
    assert.throws(() => new SqliteCacheStore({ location: 7 as never }), /location must be a non-empty string, got 7/)
  })

  it('uses node:sqlite when the runtime has it, and better-sqlite3 otherwise', (t) => {
    const store = new SqliteCacheStore()
    t.after(() => store.close())
    assert.equal(store.driver, HAS_NODE_SQLITE ? 'node:sqlite' : 'better-sqlite3')
  })

  it('refuses a driver it does not know with an InvalidArgumentError naming it', () => {
    assert.throws(() => new SqliteCacheStore({ driver: 'sqlite3' as never }), {
      name: 'InvalidArgumentError',
      code: 'LIB_ERR_INVALID_ARG',
      message: "SqliteCacheStore: driver must be one of 'node:sqlite', 'better-sqlite3', got \"sqlite3\""
    })
  })

  if (!HAS_NODE_SQLITE) {
    it('says which Node version node:sqlite needs when it is asked for on a runtime without it', () => {
      assert.throws(() => new SqliteCacheStore({ driver: 'node:sqlite' }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'LIB_ERR_NOT_SUPPORTED')
        assert.match(err.message, new RegExp(`driver 'node:sqlite' is not available on Node ${process.versions.node.replaceAll('.', '\\.')}; it needs Node 22\\.13 or later`))
        return true
      })
    })
  }

  it('is always exported, and its constructor says so when better-sqlite3 is asked for and cannot be loaded', async (t) => {
    // A copy of the compiled modules in a directory with no node_modules above it cannot resolve the driver.
    const { dir, remove } = await tempDir()
    t.after(remove)
    const build = fileURLToPath(new URL('../../', import.meta.url))
    await cp(join(build, 'src'), join(dir, 'src'), { recursive: true })
    await cp(join(build, 'stores'), join(dir, 'stores'), { recursive: true })
    await writeFile(join(dir, 'package.json'), '{"type":"module"}')
    const script = `
      const { SqliteCacheStore } = await import(${JSON.stringify(new URL(`file://${join(dir, 'stores', 'sqlite-cache-store.js')}`).href)})
      try { new SqliteCacheStore({ driver: 'better-sqlite3' }); console.log('constructed') } catch (err) {
        console.log(JSON.stringify({ exported: typeof SqliteCacheStore, code: err.code, message: err.message }))
      }`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir })
    const report = JSON.parse(stdout)
    assert.equal(report.exported, 'function')
    assert.equal(report.code, 'LIB_ERR_NOT_SUPPORTED')
    assert.match(report.message, /better-sqlite3 package could not be loaded/)
  })
})

for (const driver of AVAILABLE_SQLITE_DRIVERS) {
  describe(`SqliteCacheStore on ${driver}`, () => {
    it('throws a TypeError from get, set, createWriteStream and delete when the key is not an object', (t) => {
      const store = new SqliteCacheStore({ driver })
      t.after(() => store.close())
      assert.throws(() => store.get(undefined as never), /get\(\): key must be an object, got undefined/)
      assert.throws(() => store.set('k' as never, { ...value(), body: null }), TypeError)
      assert.throws(() => store.createWriteStream(1 as never, value()), TypeError)
      assert.throws(() => store.delete(null as never), /delete\(\): key must be an object, got null/)
    })

    it('set stores a Buffer, an array of Buffers or no body, and get returns the body as a Buffer', (t) => {
      const store = new SqliteCacheStore({ driver })
      t.after(() => store.close())
      store.set(key('/one'), { ...value(), body: Buffer.from('one') })
      store.set(key('/many'), { ...value(), body: [Buffer.from('ma'), Buffer.from('ny')] })
      store.set(key('/none'), { ...value(), body: null })
      assert.deepEqual(store.get(key('/one'))?.body, Buffer.from('one'))
      assert.deepEqual(store.get(key('/many'))?.body, Buffer.from('many'))
      assert.deepEqual(store.get(key('/none'))?.body, Buffer.alloc(0))
    })

    it('size counts the stored responses', (t) => {
      const store = new SqliteCacheStore({ driver })
      t.after(() => store.close())
      assert.equal(store.size, 0)
      store.set(key('/a'), { ...value(), body: null })
      store.set(key('/a', 'HEAD'), { ...value(), body: null })
      store.set(key('/a'), { ...value(), body: Buffer.from('again') })
      assert.equal(store.size, 2)
      store.delete(key('/a'))
      assert.equal(store.size, 0)
    })

    it('does not store a body larger than maxEntrySize, by set or by stream', async (t) => {
      const store = new SqliteCacheStore({ maxEntrySize: 4, driver })
      t.after(() => store.close())
      store.set(key('/set'), { ...value(), body: Buffer.from('12345') })
      assert.equal(store.get(key('/set')), undefined)
      const stream = store.createWriteStream(key('/stream'), value())
      await new Promise<void>((resolve) => {
        stream.once('close', () => resolve())
        stream.write('123')
        stream.write('45')
        stream.end()
      })
      assert.equal(stream.destroyed, true)
      assert.equal(store.get(key('/stream')), undefined)
      await writeEntry(store, key('/fits'), value(), ['1234'])
      assert.ok(store.get(key('/fits')))
    })

    it('prunes the oldest responses to honour maxCount', (t) => {
      const store = new SqliteCacheStore({ maxCount: 3, driver })
      t.after(() => store.close())
      for (let i = 0; i < 5; i++) store.set(key(`/${i}`), { ...value(), body: Buffer.from(String(i)) })
      assert.equal(store.size, 3)
      assert.equal(store.get(key('/0')), undefined)
      assert.equal(store.get(key('/1')), undefined)
      for (const i of [2, 3, 4]) assert.ok(store.get(key(`/${i}`)))
    })

    it('keeps responses in a file across store instances', async (t) => {
      const { dir, remove } = await tempDir()
      t.after(remove)
      const location = join(dir, 'persist.db')
      const first = new SqliteCacheStore({ location, driver })
      first.set(key('/kept'), { ...value(), body: Buffer.from('persisted') })
      // The writer thread commits on its own time: another connection sees the write once it has.
      await first.flush()
      first.close()
      const second = new SqliteCacheStore({ location, driver })
      t.after(() => second.close())
      assert.deepEqual(second.get(key('/kept'))?.body, Buffer.from('persisted'))
    })

    it('fails a write stream with an error when the database was closed meanwhile', async () => {
      const store = new SqliteCacheStore({ driver })
      const stream = store.createWriteStream(key('/closed'), value())
      store.close()
      const err = await new Promise<Error>((resolve) => {
        stream.once('error', resolve)
        stream.end('body')
      })
      // better-sqlite3 says "The database connection is not open", node:sqlite "database is not open".
      assert.match(err.message, /database (connection )?is not open/)
    })

    it('lets two processes write and read one database file at once without errors or lost rows', async (t) => {
      const { dir, remove } = await tempDir()
      t.after(remove)
      const location = join(dir, 'shared.db')
      const child = fileURLToPath(new URL('./sqlite-child.js', import.meta.url))
      const count = 300
      const [a, b] = await Promise.all([
        run(process.execPath, ['--disable-warning=ExperimentalWarning', child, location, 'a', 'b', String(count), driver]),
        run(process.execPath, ['--disable-warning=ExperimentalWarning', child, location, 'b', 'a', String(count), driver])
      ])
      for (const result of [a, b]) {
        assert.equal(result.stderr, '')
        assert.equal(JSON.parse(result.stdout).missing, 0)
      }
      const store = new SqliteCacheStore({ location, driver })
      t.after(() => store.close())
      // Each child wrote `count` own rows; the shared paths were overwritten in place, not duplicated.
      assert.equal(store.size, 3 * count)
      const childKey = (path: string): CacheKey => ({ ...key(path), origin: 'http://127.0.0.1:1' })
      for (let i = 0; i < count; i++) {
        assert.deepEqual(store.get(childKey(`/a/${i}`))?.body, Buffer.from(`a-${i}`))
        assert.deepEqual(store.get(childKey(`/b/${i}`))?.body, Buffer.from(`b-${i}`))
        assert.match((store.get(childKey(`/shared/${i}`))?.body as Buffer).toString(), new RegExp(`^[ab]-${i}$`))
      }
    })
  })
}
