import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatLinearity, measureLinearity } from '../../benchmarks/headers-linearity.js'

describe('header linearity benchmark', () => {
  it('measures every scenario of both libraries at both sizes and prints a row for each', () => {
    const rows = measureLinearity(1024, 4096)
    assert.deepEqual(rows.map((row) => `${row.library} ${row.scenario}`), [
      'conduit new Headers', 'conduit Request headers', 'conduit Response headers', 'conduit wire response head',
      'undici new Headers', 'undici Request headers', 'undici Response headers'
    ])
    for (const row of rows) {
      assert.ok(row.smallMs > 0 && row.largeMs > 0, `${row.library} ${row.scenario} was timed`)
      assert.equal(row.ratio, row.largeMs / row.smallMs)
    }
    const table = formatLinearity(rows, 1024, 4096)
    assert.match(table, /1 KiB vs 4 KiB \(size ratio 4x/)
    assert.equal(table.split('\n').length, 8)
  })
})
