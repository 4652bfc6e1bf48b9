import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { InvalidArgumentError } from '../../../src/errors.js'
import { describeValueKind, describeValueWithItems } from '../../../src/validation/describe-value.js'
import { STORE_OPTION_FAILURE, failOption } from '../../../src/validation/options.js'

describe('failOption', () => {
  it('throws an InvalidArgumentError naming the caller, the option, the rule and the value', () => {
    assert.throws(() => failOption('retry()', 'maxRetries', 'a non-negative integer', -1), (err: unknown) => {
      assert.ok(err instanceof InvalidArgumentError)
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.equal(err.message, 'retry(): maxRetries must be a non-negative integer, got -1')
      return true
    })
  })

  it('quotes a string value, so "5" reads differently from 5', () => {
    assert.throws(() => failOption('dns()', 'maxTTL', 'a non-negative integer (milliseconds)', '5'), {
      message: 'dns(): maxTTL must be a non-negative integer (milliseconds), got "5"'
    })
  })

  it('throws a TypeError for a store option, as the store contract says', () => {
    assert.throws(() => failOption('RedisCacheStore', 'keyPrefix', 'a non-empty string', ''), InvalidArgumentError)
    assert.throws(() => failOption('RedisCacheStore', 'keyPrefix', 'a non-empty string', '', STORE_OPTION_FAILURE), (err: unknown) => {
      assert.ok(err instanceof TypeError)
      assert.equal((err as Error).message, 'RedisCacheStore: keyPrefix must be a non-empty string, got ""')
      return true
    })
  })

  it('shows the value the way the component asks', () => {
    assert.throws(() => failOption('retry()', 'statusCodes', 'an array of status codes (100-599)', [503, 700], { show: describeValueWithItems }), {
      message: 'retry(): statusCodes must be an array of status codes (100-599), got an array ([503,700])'
    })
    assert.throws(() => failOption('snapshot()', 'matchHeaders', 'an array of header names', [1], { show: describeValueKind }), {
      message: 'snapshot(): matchHeaders must be an array of header names, got an array'
    })
  })
})
