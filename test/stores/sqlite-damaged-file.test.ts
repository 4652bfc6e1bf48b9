import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AVAILABLE_SQLITE_DRIVERS } from './sqlite-drivers.js'

interface ChildOutcome { code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string }

function runChild (args: string[]): Promise<ChildOutcome> {
  const child = fileURLToPath(new URL('./sqlite-damage-child.js', import.meta.url))
  return new Promise((resolve) => {
    execFile(process.execPath, [child, ...args], { env: { ...process.env, NODE_DEBUG: 'conduit:cache' }, timeout: 60_000 }, (err, stdout, stderr) => {
      const failure = err as (Error & { code?: number | string, signal?: NodeJS.Signals | null }) | null
      resolve({ code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null, signal: failure?.signal ?? null, stdout, stderr })
    })
  })
}

const PAGES = 40

for (const driver of AVAILABLE_SQLITE_DRIVERS) {
  describe(`SqliteCacheStore (${driver}) with its file damaged by another process while open`, () => {
    for (const [damage, what] of [['zero', 'truncated to nothing'], ['half', 'truncated to half its size'], ['garbage', 'overwritten with bytes that are no database']] as const) {
      it(`keeps the process alive and answering correctly when the file is ${what}`, async (t) => {
        const dir = await mkdtemp(join(tmpdir(), 'conduit-sqlite-damage-'))
        t.after(() => rm(dir, { recursive: true, force: true }))
        const outcome = await runChild([driver, join(dir, 'cache.db'), damage])
        // A SIGBUS from a mapped file would show here as a signal and no report.
        assert.equal(outcome.signal, null, outcome.stderr)
        assert.equal(outcome.code, 0, outcome.stderr)
        const report = JSON.parse(outcome.stdout)
        assert.equal(report.driver, driver)
        assert.deepEqual(report.sharedMemoryFiles, [], 'the store keeps no WAL shared-memory file that another process could truncate')
        assert.equal(report.storedBefore, PAGES)
        assert.equal(report.servedBefore, PAGES)
        assert.equal(report.wrongBefore, 0)
        assert.equal(report.wrongAfter, 0, 'every response after the damage is still the right one')
        if (damage !== 'half') {
          // Nothing usable is left in the file: every request is a miss served by the origin, and the
          // failing store calls are logged.
          assert.equal(report.servedAfter, PAGES)
          assert.match(outcome.stderr, /CONDUIT:CACHE \d+: store error in get for GET http:\/\/127\.0\.0\.1:\d+\/page\/0, bypassing the cache: /)
        }
      })
    }
  })
}
