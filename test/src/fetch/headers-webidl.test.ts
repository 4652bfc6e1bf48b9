import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Headers } from '../../../src/fetch/headers.js'
import { FormData } from '../../../src/fetch/form-data.js'
import { trimAsciiWhitespace, trimHttpWhitespace } from '../../../src/fetch/whitespace.js'

const EDGE = fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), { maxLength: 40 }).map((chars) => chars.join(''))
const INNER = fc.stringMatching(/^[!-~](?:[ -~\t]*[!-~])?$/)

describe('Headers argument rules', () => {
  it('throws a TypeError when append, set, get, has, delete or forEach miss arguments', () => {
    const headers = new Headers()
    const calls: Array<[string, () => unknown]> = [
      ['append', () => (headers.append as (...args: unknown[]) => void)()],
      ['append', () => (headers.append as (...args: unknown[]) => void)('a')],
      ['set', () => (headers.set as (...args: unknown[]) => void)('c')],
      ['get', () => (headers.get as (...args: unknown[]) => unknown)()],
      ['has', () => (headers.has as (...args: unknown[]) => unknown)()],
      ['delete', () => (headers.delete as (...args: unknown[]) => unknown)()],
      ['forEach', () => (headers.forEach as (...args: unknown[]) => unknown)()]
    ]
    for (const [method, call] of calls) {
      assert.throws(call, (err: Error) => err instanceof TypeError && err.message.startsWith(`Headers.${method}:`) && /required/.test(err.message))
    }
    assert.deepEqual([...headers], [], 'no undefined header was added')
  })

  it('rejects Symbol names and values wherever a string is converted, naming the Symbol', () => {
    const symbol = Symbol('bad')
    const cases: Array<() => unknown> = [
      () => new Headers().append(symbol as never, 'a'),
      () => new Headers().append('a', symbol as never),
      () => new Headers().get(symbol as never),
      () => new Headers([['a', symbol as never]]),
      () => new Headers({ [symbol]: 'a' } as never)
    ]
    for (const call of cases) {
      assert.throws(call, (err: Error) => err instanceof TypeError && err.message.includes('Symbol(bad)'))
    }
  })

  it('has a constructor length of 0 and entries as its Symbol.iterator', () => {
    assert.equal(Headers.length, 0)
    assert.equal(Headers.prototype.entries, Headers.prototype[Symbol.iterator])
    assert.equal(FormData.length, 0)
    assert.equal(FormData.prototype.entries, FormData.prototype[Symbol.iterator])
  })

  it('converts non-string names and values with ToString, as WebIDL does', () => {
    const headers = new Headers([[1 as never, 2 as never]])
    headers.set({ toString: () => 'x-obj' } as never, 3 as never)
    assert.deepEqual([...headers], [['1', '2'], ['x-obj', '3']])
  })
})

describe('FormData argument rules', () => {
  it('throws a TypeError naming the method when append, set, get, getAll, has, delete or forEach miss arguments', () => {
    const form = new FormData()
    const loose = form as unknown as Record<string, (...args: unknown[]) => unknown>
    const calls: Array<[string, unknown[]]> = [
      ['append', []], ['append', ['a']], ['set', ['a']], ['get', []], ['getAll', []], ['has', []], ['delete', []], ['forEach', []]
    ]
    for (const [method, args] of calls) {
      assert.throws(() => loose[method]!.apply(form, args), (err: Error) => err instanceof TypeError && err.message.startsWith(`FormData.${method}:`))
    }
    assert.deepEqual([...form], [])
  })

  it('rejects Symbol names and values, naming the Symbol', () => {
    const symbol = Symbol('field')
    assert.throws(() => new FormData().append(symbol as never, 'v'), (err: Error) => err instanceof TypeError && err.message.includes('Symbol(field)'))
    assert.throws(() => new FormData().set('n', symbol as never), (err: Error) => err instanceof TypeError && err.message.includes('Symbol(field)'))
  })
})

describe('Headers live iteration', () => {
  it('sees a header appended during iteration when it sorts after the current position', () => {
    const headers = new Headers([['b', '1']])
    const iterator = headers.entries()
    headers.append('a', '0')
    assert.deepEqual(iterator.next().value, ['a', '0'])
    headers.append('c', '2')
    assert.deepEqual(iterator.next().value, ['b', '1'])
    assert.deepEqual(iterator.next().value, ['c', '2'])
    assert.equal(iterator.next().done, true)
    assert.equal(Object.prototype.toString.call(iterator), '[object Headers Iterator]')
  })

  it('walks the sorted and combined list, and forEach sees changes made by its callback', () => {
    const headers = new Headers([['x', '1'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']])
    const seen: string[] = []
    headers.forEach((value, name, self) => {
      seen.push(`${name}=${value}`)
      if (name === 'set-cookie' && !self.has('y')) self.append('y', 'late')
    })
    assert.deepEqual(seen, ['set-cookie=a=1', 'set-cookie=b=2', 'x=1', 'y=late'])
  })

  it('keeps a FormData iterator live over appended and deleted entries', () => {
    const form = new FormData()
    form.append('a', '1')
    const keys = form.keys()
    assert.equal(keys.next().value, 'a')
    form.append('b', '2')
    assert.equal(keys.next().value, 'b')
    form.delete('a')
    assert.equal(keys.next().done, true)
  })

  it('refuses iterator methods called on another receiver with a TypeError', () => {
    assert.throws(() => Headers.prototype.entries.call({}), TypeError)
    const iterator = new Headers().keys()
    assert.throws(() => iterator.next.call({}), TypeError)
  })
})

describe('header value trimming', () => {
  it('stores any value with its edge whitespace removed, like the runtime Headers (property)', () => {
    fc.assert(fc.property(EDGE, INNER, EDGE, (before, inner, after) => {
      const value = `${before}${inner}${after}`
      const mine = new Headers([['x-v', value]])
      assert.equal(mine.get('x-v'), inner)
      assert.equal(mine.get('x-v'), new globalThis.Headers([['x-v', value]]).get('x-v'))
    }), { numRuns: 500 })
  })

  it('trims a value made only of whitespace to the empty string', () => {
    assert.equal(new Headers([['x', ' \t\r\n ']]).get('x'), '')
    assert.equal(trimHttpWhitespace(''), '')
    assert.equal(trimAsciiWhitespace('\f a \f'), 'a')
  })

  it('keeps inner runs of blanks of a 1 MiB value, trimming only its edges', () => {
    const inner = `a${'\t'.repeat(1024 * 1024)}b`
    const headers = new Headers([['x-long', ` ${inner} `]])
    assert.equal(headers.get('x-long'), inner)
  })
})
