/**
 * parseMIMEType, serializeAMimeType and util (parseHeaders, headerNameToString) give undici's
 * results on the same inputs: property tests over generated inputs, plus the cases that matter.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { undici, UNDICI_MAJOR } from '../helpers/undici-reference.js'
import { parseMIMEType, serializeAMimeType, util, errors } from '../../src/index.js'
import type { MIMEType } from '../../src/index.js'

/** A parse result with its Map as a list of entries, so results compare with deepEqual. */
function plain (result: MIMEType | 'failure' | Record<string, unknown>): unknown {
  if (result === 'failure') return result
  const { type, subtype, essence, parameters } = result as MIMEType
  return { type, subtype, essence, parameters: [...parameters] }
}

// undici 8 parses as the standard says; undici 7 refuses a backtick in a token and keeps one
// whitespace character of a whitespace-only parameter value (docs/undici-differences.md).
const FOLLOWS_STANDARD = UNDICI_MAJOR >= 8
// Characters that steer the parser, plus ordinary, control, latin1 and wider ones; a backtick
// only where the reference reads it as the standard does.
const MIME_CHARS = [...'ab/;="\\ \t\r\nXy-+.,()', '\u0000', '\u007f', '\u00e9', '\u00ff', '\u0100', '\u{1f600}', ...(FOLLOWS_STANDARD ? ['`'] : [])]
const mimeInput = fc.array(fc.constantFrom(...MIME_CHARS), { maxLength: 40 }).map((chars) => chars.join(''))
const WHITESPACE_ONLY_VALUE = /=[\t\n\r ]+(;|$)/
// Inputs that look like MIME types, so parameters are exercised too.
const mimeLike = fc.tuple(fc.constantFrom('text/plain', 'Text/HTML ', 'a/b', 'multipart/form-data'), fc.array(fc.tuple(mimeInput, mimeInput), { maxLength: 4 }))
  .map(([essence, params]) => essence + params.map(([name, value]) => `;${name}=${value}`).join(''))

describe('parseMIMEType and serializeAMimeType compared with undici', () => {
  it('parse any input to the same record or failure, and serialize it to the same string', () => {
    fc.assert(fc.property(fc.oneof(mimeInput, mimeLike), (input) => {
      // A parameter value of whitespace only: undici 7 keeps one whitespace character of it,
      // the standard trims it to nothing and drops the parameter (see the test below).
      if (!FOLLOWS_STANDARD) fc.pre(!WHITESPACE_ONLY_VALUE.test(input))
      const ours = parseMIMEType(input)
      const theirs = undici.parseMIMEType(input)
      assert.deepEqual(plain(ours), plain(theirs as MIMEType | 'failure'), `input ${JSON.stringify(input)}`)
      if (ours !== 'failure') assert.equal(serializeAMimeType(ours), undici.serializeAMimeType(theirs as never))
    }), { numRuns: 3000 })
  })

  it('agree on the cases the standard spells out', () => {
    const inputs = [
      'text/html;charset=gbk', 'TEXT/HTML; CHARSET="shift_jis"', 'text/html;charset="gbk', 'text/html;charset=";charset=foo"',
      'text/html;charset=gbk;charset=windows-1255', 'text/html;;;charset=gbk', 'text/html;charset= "gbk"', 'text/html;charset="\\g\\b\\k"',
      'text/html;charset=', 'text/html;charset="";x=y', ' text/html ', 'text/ html', 'text /html', '/html', 'text/', 'text',
      'text/html;charset=\u00e9', 'text/html;\u00e9=x', 'x/x;test="\\'
    ]
    for (const input of inputs) {
      assert.deepEqual(plain(parseMIMEType(input)), plain(undici.parseMIMEType(input) as MIMEType | 'failure'), `input ${JSON.stringify(input)}`)
    }
  })

  it('counts a backtick as a token character, as the standard and undici 8 do (undici 7 does not)', () => {
    const ours = parseMIMEType('text/x`y')
    assert.deepEqual(plain(ours), { type: 'text', subtype: 'x`y', essence: 'text/x`y', parameters: [] })
    const theirs = undici.parseMIMEType('text/x`y')
    if (FOLLOWS_STANDARD) assert.deepEqual(plain(theirs as MIMEType), plain(ours))
    else assert.equal(theirs, 'failure')
  })

  it('drops a parameter whose value is whitespace only, as the standard and undici 8 do (undici 7 keeps one character of it)', () => {
    for (const input of ['text/plain;a=\t;b=1', 'text/plain;a= ;b=1']) {
      const ours = parseMIMEType(input)
      assert.deepEqual(plain(ours), { type: 'text', subtype: 'plain', essence: 'text/plain', parameters: [['b', '1']] })
      const theirs = plain(undici.parseMIMEType(input) as MIMEType)
      if (FOLLOWS_STANDARD) assert.deepEqual(theirs, plain(ours))
      else assert.deepEqual(theirs, { type: 'text', subtype: 'plain', essence: 'text/plain', parameters: [['a', input[13]], ['b', '1']] })
    }
  })

  it('reject input that is not a string, and records with bad parameters, naming the value', () => {
    assert.throws(() => parseMIMEType(42 as unknown as string), (err: Error) => err instanceof errors.InvalidArgumentError && err.message.includes('42'))
    const bad = (record: unknown, shown: string): void => {
      assert.throws(() => serializeAMimeType(record as MIMEType), (err: Error) => {
        assert.ok(err instanceof errors.InvalidArgumentError, String(err))
        assert.match(err.message, new RegExp(shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        return true
      })
    }
    bad('failure', '"failure"')
    bad({ essence: 'text/plain', parameters: new Map([['bad name', 'x']]) }, '"bad name"')
    bad({ essence: 'text/plain', parameters: new Map([['charset', 'a\u0000b']]) }, 'charset')
    bad({ essence: 'text/plain', parameters: new Map([['charset', '\u0100']]) }, '"\u0100"')
    bad({ essence: 'text/plain', parameters: { charset: 'utf-8' } }, '[object Object]')
    bad({ essence: 'no slash', parameters: new Map() }, '"no slash"')
  })
})

// Header names and values as strings or latin1 bytes, including names an object already has.
const headerName = fc.oneof(fc.constantFrom('Set-Cookie', 'content-type', 'X-A', 'constructor', '__proto__', 'toString', 'hasOwnProperty'), fc.string({ maxLength: 8 }))
const headerText = fc.string({ maxLength: 12, unit: fc.integer({ min: 0, max: 0xff }).map((code) => String.fromCharCode(code)) })
const asBytesOrText = (text: fc.Arbitrary<string>): fc.Arbitrary<string | Buffer> => fc.oneof(text, text.map((t) => Buffer.from(t, 'latin1')))
const headerValue = fc.oneof(asBytesOrText(headerText), fc.array(asBytesOrText(headerText), { maxLength: 3 }))
const rawHeaders = fc.array(fc.tuple(asBytesOrText(headerName), headerValue), { maxLength: 8 }).map((pairs) => pairs.flat())

/** The own properties of a parse result with their values, in order, and its prototype. */
function observe (obj: Record<string, unknown>): unknown {
  return { entries: Object.getOwnPropertyNames(obj).map((name) => [name, obj[name]]), proto: Object.getPrototypeOf(obj) === Object.prototype }
}

describe('util compared with undici', () => {
  it('parseHeaders reads any raw header list into the same object', () => {
    fc.assert(fc.property(rawHeaders, (raw) => {
      const ours = util.parseHeaders(raw as never)
      const theirs = undici.util.parseHeaders(raw as never)
      assert.deepEqual(observe(ours), observe(theirs as Record<string, unknown>))
    }), { numRuns: 2000 })
  })

  it('parseHeaders adds to an object it is given, as undici does', () => {
    const raw = ['Accept', 'a', 'accept', Buffer.from('b'), 'X-New', ['1', Buffer.from('2')]]
    const ours = util.parseHeaders(raw, { accept: 'first' })
    const theirs = undici.util.parseHeaders(raw as never, { accept: 'first' })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, { accept: ['first', 'a', 'b'], 'x-new': ['1', '2'] })
  })

  it('headerNameToString lower-cases names given as text or bytes', () => {
    fc.assert(fc.property(asBytesOrText(headerText), (name) => {
      assert.equal(util.headerNameToString(name), undici.util.headerNameToString(name))
    }), { numRuns: 2000 })
  })
})
