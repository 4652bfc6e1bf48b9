import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatContention, runSqliteContention } from '../../benchmarks/sqlite-store-contention.js'
import { AVAILABLE_SQLITE_DRIVERS } from '../stores/sqlite-drivers.js'

describe('SQLite store contention benchmark', () => {
  it('runs its writing processes on one file and reports each one\'s longest block per write', async () => {
    const storeModule = new URL('../../stores/sqlite-cache-store.js', import.meta.url).href
    const reports = await runSqliteContention(2, 5, 1024, AVAILABLE_SQLITE_DRIVERS[0], storeModule)
    assert.equal(reports.length, 2)
    for (const report of reports) {
      assert.equal(report.writes, 5)
      assert.ok(report.maxWriteBlockMs >= report.p99WriteBlockMs)
      assert.ok(Number.isFinite(report.maxLoopDelayMs) && report.maxLoopDelayMs >= 0)
      assert.equal(typeof report.firstWriteBlockMs, 'number')
    }
    const text = formatContention(reports, 1024, storeModule)
    assert.match(text, /under 2 writing processes, 5 writes each of 1024-byte bodies/)
    assert.equal(text.split('\n').length, 4)
  })
})
