import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { interceptors } from '../../src/index.js'

describe('snapshot() bad input', () => {
  it('throws InvalidArgumentError for options that are not an object, null included, naming the value', () => {
    for (const [options, shown] of [[null, 'null'], [5, '5'], ['record', '"record"']] as const) {
      assert.throws(() => interceptors.snapshot(options as never), { code: 'LIB_ERR_INVALID_ARG', message: `snapshot(): options must be an object, got ${shown}` })
    }
  })
})
