import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { collectRequestFields } from '../../../src/connection/request-fields.js'
import type { RequestFieldInfo } from '../../../src/connection/request-fields.js'

const token = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/)
const info = (): RequestFieldInfo => ({ declaredLength: -1, reset: false, host: undefined, expectContinue: false })

describe('the connection request header', () => {
  it('accepts any comma-separated token list, keeps no field of its own, and resets only for close (property)', () => {
    fc.assert(fc.property(fc.array(fc.oneof(token, fc.constant('close'), fc.constant('Keep-Alive')), { minLength: 1, maxLength: 5 }), fc.constantFrom(',', ', ', ' , '), (tokens, separator) => {
      const head = info()
      assert.deepEqual(collectRequestFields({ connection: tokens.join(separator) }, head), [])
      assert.equal(head.reset, tokens.some((t) => t.toLowerCase() === 'close'))
    }))
  })

  it('refuses an empty option or one that is not a token, naming the value', () => {
    for (const value of ['close,', 'a b', 'x-custom, ,close']) {
      assert.throws(() => collectRequestFields({ connection: value }, info()), {
        code: 'LIB_ERR_INVALID_ARG',
        message: `invalid connection header: ${JSON.stringify(value)} (must be a comma-separated list of tokens)`
      })
    }
  })
})
