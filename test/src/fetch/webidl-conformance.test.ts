/**
 * WebIDL conformance of Headers, Request, Response and FormData, checked side by side with the
 * runtime's own global classes, which are the reference: constructor and method arity, argument
 * conversion (missing arguments, Symbols, ToString), brand checks (methods and getters called on
 * a foreign object), iterator identity and live iteration.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../../helpers/undici-reference.js'
import { FormData } from '../../../src/fetch/form-data.js'
import { Headers } from '../../../src/fetch/headers.js'
import { Request } from '../../../src/fetch/request.js'
import { Response } from '../../../src/fetch/response.js'

type AnyClass = (abstract new (...args: never[]) => unknown) & Record<string, unknown>

interface Pair {
  name: string
  mine: AnyClass
  theirs: AnyClass
  make: (cls: AnyClass) => object
}

const PAIRS: Pair[] = [
  { name: 'Headers', mine: Headers as unknown as AnyClass, theirs: globalThis.Headers as unknown as AnyClass, make: (cls) => new (cls as unknown as new () => object)() },
  { name: 'Request', mine: Request as unknown as AnyClass, theirs: globalThis.Request as unknown as AnyClass, make: (cls) => new (cls as unknown as new (url: string) => object)('http://127.0.0.1/') },
  { name: 'Response', mine: Response as unknown as AnyClass, theirs: globalThis.Response as unknown as AnyClass, make: (cls) => new (cls as unknown as new () => object)() },
  { name: 'FormData', mine: FormData as unknown as AnyClass, theirs: globalThis.FormData as unknown as AnyClass, make: (cls) => new (cls as unknown as new () => object)() }
]

// Members the runtime's classes expose that are not part of the interface (a stray accessor of
// the runtime's bundled Request) are not compared.
const NOT_IN_THE_INTERFACE = new Set(['attribute'])

// conduit follows the current undici major; a runtime bundling an older undici lacks what that
// major added (textStream() came with undici 8, bundled from Node 26 on), so conduit's own
// members are compared only where the runtime has them too.
const NEWER_THAN_THE_RUNTIME = ['textStream'].filter((key) => !(key in globalThis.Response.prototype))

/** Every member of the interface: own and inherited prototype properties up to Object.prototype. */
function members (cls: AnyClass): Map<string, PropertyDescriptor> {
  const found = new Map<string, PropertyDescriptor>()
  for (let proto = cls.prototype as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key !== 'constructor' && !found.has(key)) found.set(key, Object.getOwnPropertyDescriptor(proto, key)!)
    }
  }
  for (const key of NOT_IN_THE_INTERFACE) found.delete(key)
  return found
}

/** `'ok'`, or the class name of what `fn` threw. */
function kind (fn: () => unknown): string {
  try {
    const value = fn()
    // A promise-returning body method signals a brand failure by rejecting; silence it here.
    if (value instanceof Promise) value.catch(() => {})
    return 'ok'
  } catch (err) {
    return (err as Error).constructor.name
  }
}

describe('WebIDL conformance against the runtime classes', () => {
  for (const { name, mine, theirs, make } of PAIRS) {
    describe(name, () => {
      it('has the same constructor and method lengths, and the same members', () => {
        // The runtime's bundled FormData declares the optional form argument as required; the
        // interface (and undici 7) make it optional, so the constructor length there is 0.
        const expectedLength = name === 'FormData' ? undici.FormData.length : theirs.length
        assert.equal(mine.length, expectedLength, `${name}.length`)
        const ours = members(mine)
        for (const key of NEWER_THAN_THE_RUNTIME) {
          if (name === 'Request' || name === 'Response') assert.equal(typeof ours.get(key)?.value, 'function', `${name}.prototype.${key} is a method`)
          ours.delete(key)
        }
        const reference = members(theirs)
        assert.deepEqual([...ours.keys()].sort(), [...reference.keys()].sort())
        for (const [key, descriptor] of reference) {
          const own = ours.get(key)!
          if (typeof descriptor.value === 'function') {
            assert.equal(typeof own.value, 'function', `${name}.prototype.${key} is a method`)
            assert.equal((own.value as () => void).length, (descriptor.value as () => void).length, `${name}.prototype.${key}.length`)
          } else if (descriptor.get !== undefined) {
            assert.equal(typeof own.get, 'function', `${name}.prototype.${key} is a getter`)
          }
        }
        for (const key of Object.getOwnPropertyNames(theirs)) {
          const value = theirs[key]
          if (typeof value === 'function') assert.equal((mine[key] as () => void).length, value.length, `${name}.${key}.length`)
        }
      })

      it('brand-checks every method and getter with a TypeError on a foreign receiver', () => {
        for (const [key, descriptor] of members(theirs)) {
          const own = members(mine).get(key)!
          const call = (d: PropertyDescriptor) => typeof d.value === 'function' ? () => (d.value as () => unknown).call({}) : () => d.get?.call({})
          if (typeof descriptor.value !== 'function' && descriptor.get === undefined) continue
          assert.equal(kind(call(own)), kind(call(descriptor)), `${name}.prototype.${key} on {}`)
        }
      })

      it('refuses missing required arguments the same way', () => {
        for (const [key, descriptor] of members(theirs)) {
          if (typeof descriptor.value !== 'function') continue
          const own = members(mine).get(key)!.value as (...args: unknown[]) => unknown
          assert.equal(kind(() => own.call(make(mine))), kind(() => (descriptor.value as (...args: unknown[]) => unknown).call(make(theirs))), `${name}.prototype.${key}()`)
        }
      })
    })
  }

  it('converts Symbols, numbers and objects as string arguments the same way', () => {
    const symbol = Symbol('s')
    const cases: Array<[string, (H: typeof Headers, F: typeof FormData) => unknown]> = [
      ['Headers append Symbol name', (H) => new H().append(symbol as never, 'v')],
      ['Headers append Symbol value', (H) => new H().append('n', symbol as never)],
      ['Headers record with a Symbol key', (H) => new H({ [symbol]: 'v' } as never)],
      ['Headers numbers', (H) => [...new H([[1 as never, 2 as never]])]],
      ['Headers object with toString', (H) => new H([['x', { toString: () => 'from object' } as never]]).get('x')],
      ['FormData append Symbol name', (_H, F) => new F().append(symbol as never, 'v')],
      ['FormData append number', (_H, F) => {
        const form = new F()
        form.append(1 as never, 2 as never)
        return [...form]
      }],
      ['FormData get Symbol', (_H, F) => new F().get(symbol as never)]
    ]
    for (const [label, run] of cases) {
      const outcome = (H: unknown, F: unknown): unknown => {
        try {
          return { value: run(H as typeof Headers, F as typeof FormData) }
        } catch (err) {
          return { error: (err as Error).constructor.name }
        }
      }
      assert.deepEqual(outcome(Headers, FormData), outcome(globalThis.Headers, globalThis.FormData), label)
    }
  })

  it('uses entries as Symbol.iterator and the same iterator shape', () => {
    type PairIterable = new () => { entries: () => IterableIterator<unknown> & { next: () => unknown } }
    const pairs = [[Headers, globalThis.Headers], [FormData, globalThis.FormData]] as unknown as Array<[PairIterable, PairIterable]>
    for (const [mine, theirs] of pairs) {
      assert.equal(mine.prototype[Symbol.iterator as never], mine.prototype.entries)
      assert.equal(theirs.prototype[Symbol.iterator as never], theirs.prototype.entries)
      const ownIterator = new mine().entries()
      const runtimeIterator = new theirs().entries()
      assert.equal(Object.prototype.toString.call(ownIterator), Object.prototype.toString.call(runtimeIterator))
      assert.equal(ownIterator[Symbol.iterator](), ownIterator)
      assert.equal(kind(() => ownIterator.next.call({})), kind(() => runtimeIterator.next.call({})))
    }
  })

  it('gives the Headers iterator an enumerable next on its own prototype, as WebIDL and undici do', () => {
    for (const H of [Headers, undici.Headers]) {
      const proto = Object.getPrototypeOf(new H().entries()) as object
      const descriptor = Object.getOwnPropertyDescriptor(proto, 'next')!
      assert.deepEqual([descriptor.enumerable, descriptor.writable, descriptor.configurable], [true, true, true], H === Headers ? 'conduit' : 'undici')
    }
  })

  it('reads a record init as WebIDL does: each key converted before its value is read, headers checked after the whole record', () => {
    const run = (H: typeof Headers, record: Record<string, unknown>): { log: string[], outcome: string } => {
      const log: string[] = []
      const proxy = new Proxy(record, {
        ownKeys (target) { log.push('ownKeys'); return Reflect.ownKeys(target) },
        getOwnPropertyDescriptor (target, key) { log.push(`descriptor ${String(key)}`); return Reflect.getOwnPropertyDescriptor(target, key) },
        get (target, key, receiver) { log.push(`get ${String(key)}`); return Reflect.get(target, key, receiver) }
      })
      return { log, outcome: kind(() => new H(proxy as never)) }
    }
    const stringify = (text: string): { toString: () => string } => ({ toString: () => text })
    // A name that is no header name fails only after every member was read; a key that is no ByteString fails before its value is read.
    const cases = [{ a: 'b', c: 'd' }, { a: 'b', 'bad name': 'd', e: 'f' }, { a: 'b', '\u0100': 'x', e: 'f' }, { a: stringify('b') }]
    for (const record of cases) {
      assert.deepEqual(run(Headers, record), run(undici.Headers as unknown as typeof Headers, record), JSON.stringify(Object.keys(record)))
    }
    assert.deepEqual(run(Headers, { a: 'b', 'bad name': 'd' }).log, ['get Symbol(Symbol.iterator)', 'ownKeys', 'descriptor a', 'get a', 'descriptor bad name', 'get bad name'])
    assert.deepEqual(run(Headers, { '\u0100': 'x', e: 'f' }).log, ['get Symbol(Symbol.iterator)', 'ownKeys', 'descriptor \u0100'])
  })

  it('iterates live: changes during a loop show up the same way', () => {
    const walk = (H: typeof Headers): string[] => {
      const headers = new H([['b', '1'], ['d', '3']])
      const seen: string[] = []
      for (const [name] of headers) {
        seen.push(name)
        if (name === 'b') { headers.append('c', '2'); headers.append('a', '0') }
        if (name === 'c') headers.delete('d')
      }
      return seen
    }
    assert.deepEqual(walk(Headers), walk(globalThis.Headers as unknown as typeof Headers))
    const walkForm = (F: typeof FormData): string[] => {
      const form = new F()
      form.append('a', '1')
      const seen: string[] = []
      for (const [name] of form) {
        seen.push(name)
        if (seen.length < 3) form.append(`n${seen.length}`, 'x')
      }
      return seen
    }
    assert.deepEqual(walkForm(FormData), walkForm(globalThis.FormData as unknown as typeof FormData))
  })
})
