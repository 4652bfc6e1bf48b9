import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { parseHead } from '../../../src/h1/parse-head.js'

const HEAD = 'HTTP/1.1 200 OK\r\n'

function parserError (code = 'LIB_ERR_HTTP_PARSER'): (err: unknown) => boolean {
  return (err) => (err as { code?: string }).code === code
}

describe('parseHead', () => {
  it('lower-cases header names however the server wrote them, also for names it has seen before', () => {
    for (const name of ['Content-Type', 'content-type', 'CONTENT-TYPE', 'Content-Type']) {
      const { headers } = parseHead(`${HEAD}${name}: text/plain`, true)
      assert.deepEqual(Object.keys(headers), ['content-type'])
      assert.equal(headers['content-type'], 'text/plain')
    }
  })

  it('rejects an invalid header name even after valid names were seen', () => {
    parseHead(`${HEAD}X-Ok: 1`, true)
    assert.throws(() => parseHead(`${HEAD}X Bad: 1`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}X-Ok\u0000: 1`, true), parserError())
  })

  it('stores a header named like an Object.prototype member as a plain own value', () => {
    const { headers } = parseHead(`${HEAD}Constructor: a\r\ntoString: b\r\ntostring: c`, true)
    assert.equal(headers.constructor, 'a')
    assert.deepEqual(headers.tostring, ['b', 'c'])
  })

  it('keeps repeated __proto__ headers as own values without changing the prototype', () => {
    const { headers } = parseHead(`${HEAD}__proto__: a\r\n__proto__: b\r\n__proto__: c`, true)
    assert.equal(Object.getPrototypeOf(headers), Object.prototype)
    assert.deepEqual(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value, ['a', 'b', 'c'])
  })

  it('reads content-length values, agreeing lists, and refuses disagreeing or oversized ones', () => {
    assert.equal(parseHead(`${HEAD}Content-Length: 0`, true).contentLength, 0)
    assert.equal(parseHead(`${HEAD}Content-Length: 005`, true).contentLength, 5)
    assert.equal(parseHead(`${HEAD}Content-Length: 5, 5\r\nContent-Length: 5`, true).contentLength, 5)
    assert.equal(parseHead(`${HEAD}Content-Length: 999999999999999`, true).contentLength, 999999999999999)
    assert.throws(() => parseHead(`${HEAD}Content-Length: 1000000000000000`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}Content-Length: 5\r\nContent-Length: 6`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}Content-Length: 5, 6`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}Content-Length: +5`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}Content-Length:`, true), parserError())
  })

  it('finds close and keep-alive tokens anywhere in a connection list', () => {
    assert.equal(parseHead(`${HEAD}Connection: keep-alive`, true).keepAlive, true)
    assert.equal(parseHead(`${HEAD}Connection: Keep-Alive, Close`, true).keepAlive, false)
    assert.equal(parseHead(`${HEAD}Connection: closed`, true).keepAlive, true)
    assert.equal(parseHead('HTTP/1.0 200 OK\r\nConnection: x, keep-alive', true).keepAlive, true)
    assert.equal(parseHead('HTTP/1.0 200 OK\r\nConnection: keep-alives', true).keepAlive, false)
  })

  it('refuses empty lines, lines without a colon and folded lines', () => {
    assert.throws(() => parseHead(`${HEAD}A: 1\r\n`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}no colon here`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}: empty name`, true), parserError())
    assert.throws(() => parseHead(`${HEAD}A: 1\r\n folded`, true), /obsolete line folding/)
    assert.throws(() => parseHead('', false), parserError())
  })

  it('returns every generated header with its trimmed value, in order (property)', () => {
    const name = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9a-z]{1,16}$/).filter((n) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive', '__proto__'].includes(n))
    const value = fc.stringMatching(/^[\x21-\x7e]([\t\x20-\x7e]{0,20}[\x21-\x7e])?$/)
    const ows = fc.constantFrom('', ' ', '\t', '  \t')
    fc.assert(fc.property(fc.array(fc.tuple(name, ows, value, ows), { maxLength: 12 }), (fields) => {
      const text = 'HTTP/1.1 200 OK' + fields.map(([n, a, v, b]) => `\r\n${n}:${a}${v}${b}`).join('')
      const expected: Record<string, string | string[]> = {}
      for (const [n, , v] of fields) {
        const existing = Object.hasOwn(expected, n) ? expected[n] : undefined
        expected[n] = existing === undefined ? v : typeof existing === 'string' ? [existing, v] : [...existing, v]
      }
      assert.deepEqual({ ...parseHead(text, true).headers }, expected)
    }))
  })

  it('refuses a control byte, a lone CR or a lone LF anywhere in a field value, naming the field (property)', () => {
    const name = fc.stringMatching(/^x-[a-z]{1,8}$/)
    const value = fc.stringMatching(/^[\x21-\x7e]{1,12}$/)
    const bad = fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 10, max: 31 }), fc.constant(127)).map((code) => String.fromCharCode(code))
    fc.assert(fc.property(fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 6 }), fc.nat(), fc.nat(), bad, (fields, which, at, byte) => {
      const target = which % fields.length
      const lines = fields.map(([n, v], i) => {
        if (i !== target) return `${n}: ${v}`
        const cut = at % (v.length + 1)
        return `${n}: ${v.slice(0, cut)}${byte}${v.slice(cut)}`
      })
      const text = `HTTP/1.1 200 OK\r\n${lines.join('\r\n')}`
      assert.throws(() => parseHead(text, true), (err: Error) => parserError()(err) && err.message.startsWith(`invalid byte in value of header ${fields[target]![0]}`))
      // The same fields as trailers are refused alike.
      assert.throws(() => parseHead(lines.join('\r\n'), false), parserError())
    }))
  })

  it('refuses a control byte in the reason phrase', () => {
    assert.throws(() => parseHead('HTTP/1.1 200 O\x01K\r\nA: 1', true), /invalid byte in reason phrase/)
    assert.throws(() => parseHead('HTTP/1.1 200 O\nK\r\nA: 1', true), /invalid byte in reason phrase/)
    assert.equal(parseHead('HTTP/1.1 200 O\tK\xe9\r\nA: 1', true).statusText, 'O\tK\xe9')
  })

  it('reads each response\'s own keep-alive timeout when the values alternate', () => {
    const hint = (value: string): number => parseHead(`${HEAD}keep-alive: ${value}`, true).keepAliveHintMs
    for (let round = 0; round < 2; round++) {
      assert.equal(hint('timeout=5'), 5000)
      assert.equal(hint('timeout=5'), 5000)
      assert.equal(hint('max=100'), -1)
      assert.equal(hint('max=3, timeout=120'), 120_000)
    }
    assert.equal(parseHead(`${HEAD}keep-alive: timeout=7\r\nkeep-alive: max=1`, true).keepAliveHintMs, 7000)
  })
})
