import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { collectRequestFields } from '../../../src/connection/request-fields.js'
import type { RequestFieldInfo } from '../../../src/connection/request-fields.js'

const info = (): RequestFieldInfo => ({ declaredLength: -1, reset: false, host: undefined, expectContinue: false })
const separator = fc.constantFrom(',', ', ', ' , ', ',  ')
const length = fc.nat({ max: 2 ** 40 })

describe('the content-length request header', () => {
  it('takes a list of identical values, in one field or several, as that one value (property)', () => {
    fc.assert(fc.property(length, fc.integer({ min: 1, max: 4 }), separator, fc.boolean(), (n, count, sep, split) => {
      const head = info()
      const values = Array.from({ length: count }, () => String(n))
      const headers = split ? values.flatMap((v) => ['content-length', v]) : { 'content-length': values.join(sep) }
      assert.deepEqual(collectRequestFields(headers, head), [])
      assert.equal(head.declaredLength, n)
    }))
  })

  it('refuses a list of differing values, naming the value (property)', () => {
    fc.assert(fc.property(length, length, separator, (a, b, sep) => {
      fc.pre(a !== b)
      const text = `${a}${sep}${b}`
      assert.throws(() => collectRequestFields({ 'content-length': text }, info()), {
        code: 'LIB_ERR_INVALID_ARG',
        message: `invalid content-length header: ${JSON.stringify(text)} (differs from the length ${a} declared before)`
      })
    }))
  })

  it('refuses a member that is not digits (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 8 }).filter((s) => !/^\s*\d+\s*$/.test(s) && !s.includes(',') && !/[\0-\x1f\x7f]/.test(s)), (bad) => {
      assert.throws(() => collectRequestFields({ 'content-length': `5,${bad}` }, info()), { code: 'LIB_ERR_INVALID_ARG', message: /^invalid content-length header: / })
    }))
  })
})

describe('the expect and transfer-encoding request headers', () => {
  it('takes expect: 100-continue, in any case, as the expectContinue option', () => {
    for (const value of ['100-continue', '100-Continue', ' 100-continue ']) {
      const head = info()
      assert.deepEqual(collectRequestFields({ expect: value }, head), [])
      assert.equal(head.expectContinue, true)
    }
  })

  it('takes transfer-encoding: chunked as the transport framing decision, and refuses any other coding', () => {
    assert.deepEqual(collectRequestFields({ 'transfer-encoding': 'Chunked' }, info()), [])
    for (const value of ['gzip', 'gzip, chunked', 'identity']) {
      assert.throws(() => collectRequestFields({ 'transfer-encoding': value }, info()), { code: 'LIB_ERR_INVALID_ARG', message: new RegExp(`invalid transfer-encoding header: "${value}"`) })
    }
  })
})
