import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Headers, headersInternals } from '../../../src/fetch/headers.js'

describe('Headers', () => {
  it('iterates pairs sorted by lower-case name with repeated values combined', () => {
    const headers = new Headers([['B', '2'], ['a', '1'], ['b', '3']])
    assert.deepEqual([...headers], [['a', '1'], ['b', '2, 3']])
    assert.deepEqual([...headers.keys()], ['a', 'b'])
    assert.deepEqual([...headers.values()], ['1', '2, 3'])
  })

  it('keeps every Set-Cookie value separate in getSetCookie and iteration', () => {
    const headers = new Headers()
    headers.append('Set-Cookie', 'a=1')
    headers.append('set-cookie', 'b=2')
    assert.deepEqual(headers.getSetCookie(), ['a=1', 'b=2'])
    assert.equal(headers.get('set-cookie'), 'a=1, b=2')
    assert.deepEqual([...headers], [['set-cookie', 'a=1'], ['set-cookie', 'b=2']])
  })

  it('accepts a record, pairs, another Headers and the runtime Headers as init', () => {
    const fromRecord = new Headers({ 'X-A': 'a' })
    const fromOwn = new Headers(fromRecord)
    const fromRuntime = new Headers(new globalThis.Headers({ 'x-a': 'a' }))
    for (const h of [fromRecord, fromOwn, fromRuntime]) assert.equal(h.get('x-a'), 'a')
  })

  it('trims surrounding whitespace from values and matches names case-insensitively', () => {
    const headers = new Headers({ Accept: '  text/html \t' })
    assert.equal(headers.get('ACCEPT'), 'text/html')
    assert.equal(headers.has('accept'), true)
    headers.delete('Accept')
    assert.equal(headers.get('accept'), null)
  })

  it('set replaces every value of a name', () => {
    const headers = new Headers([['x', '1'], ['x', '2']])
    headers.set('X', '3')
    assert.equal(headers.get('x'), '3')
  })

  it('throws a TypeError naming an invalid header name or value', () => {
    assert.throws(() => new Headers({ 'bad name': 'x' }), (err: Error) => err instanceof TypeError && err.message.includes('"bad name"'))
    assert.throws(() => new Headers().append('x', 'a\r\nb'), (err: Error) => err instanceof TypeError && err.message.includes('header "x"'))
    assert.throws(() => new Headers([['only-name']] as never), TypeError)
    assert.throws(() => new Headers(null as never), TypeError)
  })

  it('refuses changes once guarded as immutable', () => {
    const headers = headersInternals.fromIncoming({ a: '1' }, 'immutable')
    assert.throws(() => headers.set('a', '2'), (err: Error) => err instanceof TypeError && err.message.includes('immutable'))
    assert.throws(() => headers.append('b', '2'), TypeError)
    assert.throws(() => headers.delete('a'), TypeError)
    assert.equal(headers.get('a'), '1')
  })

  it('adopts raw response headers with arrays combined and cookies kept apart', () => {
    const headers = headersInternals.fromIncoming({ 'set-cookie': ['a=1', 'b=2'], vary: ['x', 'y'] }, 'immutable')
    assert.equal(headers.get('vary'), 'x, y')
    assert.deepEqual(headers.getSetCookie(), ['a=1', 'b=2'])
  })

  it('forEach visits headers in sorted order', () => {
    const seen: string[] = []
    new Headers({ b: '2', a: '1' }).forEach((value, name) => seen.push(`${name}=${value}`))
    assert.deepEqual(seen, ['a=1', 'b=2'])
  })

  it('always iterates in sorted order whatever the insertion order (property)', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/)
    fc.assert(fc.property(fc.array(fc.tuple(name, fc.stringMatching(/^[a-z0-9]{0,5}$/)), { maxLength: 20 }), (pairs) => {
      const headers = new Headers(pairs)
      const names = [...headers.keys()]
      assert.deepEqual(names, [...names].sort())
      for (const [n] of pairs) assert.equal(headers.has(n), true)
    }))
  })
})
