import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { REQUEST_HEAD, RESPONSE_HEAD, formatHpack, measureHpack } from '../../benchmarks/hpack.js'

describe('HPACK micro benchmark', () => {
  it('runs every case with a small bounded count and prints a row for each', () => {
    const rows = measureHpack(3)
    assert.deepEqual(rows.map((row) => row.name), [
      'request encode, warm table', 'request decode, warm table', 'request encode, first block', 'request decode, first block',
      'response encode, warm table', 'response decode, warm table', 'response encode, first block', 'response decode, first block'
    ])
    // On a warm table the request's repeated fields are an octet each; the ones not indexed
    // (:path, authorization) stay literals, so the block is far smaller than the first one.
    assert.ok(rows[0]!.blockBytes < rows[2]!.blockBytes / 2)
    assert.ok(rows[4]!.blockBytes < rows[6]!.blockBytes)
    assert.equal(formatHpack(rows).split('\n').length, rows.length + 1)
    assert.equal(REQUEST_HEAD.length % 2, 0)
    assert.equal(RESPONSE_HEAD.length % 2, 0)
  })
})
