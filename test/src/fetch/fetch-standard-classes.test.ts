/**
 * Rules of the Fetch Standard for its classes and local schemes, each with its family: every
 * enum member of RequestInit, every local scheme (data:, blob:) under HEAD, every way a body
 * is consumed when its stream fails, and how a Request made from a Request takes its body.
 * Where undici has the behaviour, the same scenario runs through it.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fetch, FormData, Headers, Request, Response } from '../../../src/index.js'
import { undici } from '../../helpers/undici-reference.js'

type FetchLike = (input: string, init?: Record<string, unknown>) => Promise<{ status: number, headers: { get: (name: string) => string | null }, body: unknown, text: () => Promise<string> }>

const FETCHES: Array<[string, FetchLike]> = [
  ['conduit', fetch as unknown as FetchLike],
  ['undici', undici.fetch as unknown as FetchLike]
]

describe('RequestInit enums', () => {
  const enums: Array<[string, string]> = [
    ['priority', 'high'], ['priority', 'low'], ['priority', 'auto'],
    ['mode', 'cors'], ['credentials', 'omit'], ['cache', 'no-store'], ['redirect', 'manual'], ['referrerPolicy', 'origin'], ['duplex', 'half']
  ]
  for (const [member, value] of enums) {
    it(`accepts ${member}: '${value}'`, () => {
      assert.equal(new Request('http://127.0.0.1/', { [member]: value } as never).url, 'http://127.0.0.1/')
    })
  }
  for (const member of ['priority', 'mode', 'credentials', 'cache', 'redirect', 'referrerPolicy', 'duplex']) {
    it(`refuses ${member}: 'invalid' with a TypeError naming the member, in the Request constructor and in fetch`, async () => {
      assert.throws(() => new Request('http://127.0.0.1/', { [member]: 'invalid' } as never), { name: 'TypeError', message: new RegExp(`${member} must be one of .*, got 'invalid'`) })
      await assert.rejects(fetch('http://127.0.0.1:1/', { [member]: 'invalid' } as never), { name: 'TypeError', message: new RegExp(`${member} must be one of`) })
    })
  }
})

describe('local schemes', () => {
  for (const [name, fetchImpl] of FETCHES) {
    it(`${name}: a HEAD of a data: URL has the head and no body`, async () => {
      const res = await fetchImpl('data:text/plain,hello', { method: 'HEAD' })
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), 'text/plain')
      assert.equal(res.body, null)
      assert.equal(await res.text(), '')
    })

    it(`${name}: a blob: URL from URL.createObjectURL is served with its type and size`, async () => {
      const url = URL.createObjectURL(new Blob(['blob body'], { type: 'text/x-blob' }))
      try {
        const res = await fetchImpl(url)
        assert.equal(res.status, 200)
        assert.equal(res.headers.get('content-type'), 'text/x-blob')
        assert.equal(res.headers.get('content-length'), '9')
        assert.equal(await res.text(), 'blob body')
      } finally {
        URL.revokeObjectURL(url)
      }
    })

    it(`${name}: a blob: URL that names no Blob, or any method but GET, is a network error`, async () => {
      const url = URL.createObjectURL(new Blob(['x']))
      URL.revokeObjectURL(url)
      await assert.rejects(fetchImpl(url), { name: 'TypeError' })
      const live = URL.createObjectURL(new Blob(['x']))
      try {
        await assert.rejects(fetchImpl(live, { method: 'POST', body: 'y' }), { name: 'TypeError' })
        await assert.rejects(fetchImpl(live, { method: 'HEAD' }), { name: 'TypeError' })
      } finally {
        URL.revokeObjectURL(live)
      }
    })
  }
})

describe('consuming a body whose stream fails', () => {
  const failure = new Error('stream broke')
  const failing = (): ReadableStream<Uint8Array> => new ReadableStream({
    start (controller) {
      controller.enqueue(new TextEncoder().encode('a=1'))
      controller.error(failure)
    }
  })
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    for (const method of ['formData', 'text', 'json', 'arrayBuffer', 'blob', 'bytes'] as const) {
      it(`${method}() with Content-Type ${contentType} rejects with the stream's own error, as in undici`, async () => {
        const mine = new Response(failing(), { headers: { 'content-type': contentType } })
        await assert.rejects(mine[method](), (err) => err === failure)
        const theirs = new undici.Response(failing() as never, { headers: { 'content-type': contentType } })
        await assert.rejects((theirs as unknown as Record<string, () => Promise<unknown>>)[method]!(), (err) => err === failure)
      })
    }
  }
})

describe('a Request made from a Request takes its body over', () => {
  const kinds: Array<[string, () => unknown]> = [
    ['a string', () => 'taken'],
    ['a stream', () => new ReadableStream<Uint8Array>({ start (c) { c.enqueue(new TextEncoder().encode('taken')); c.close() } })]
  ]
  for (const [name, make] of kinds) {
    it(`with ${name} body: the input becomes used, the new Request has a stream of its own with the bytes, as in undici`, async () => {
      for (const [Impl, label] of [[Request, 'conduit'], [undici.Request, 'undici']] as const) {
        const input = new (Impl as typeof Request)('http://127.0.0.1/', { method: 'POST', body: make() as never, duplex: 'half' } as never)
        const inputStream = input.body
        const copy = new (Impl as typeof Request)(input)
        assert.equal(input.bodyUsed, true, label)
        assert.notEqual(copy.body, inputStream, label)
        assert.equal(inputStream!.locked, true, label)
        assert.equal(await copy.text(), 'taken', label)
        assert.throws(() => new (Impl as typeof Request)(input), { name: 'TypeError' }, label)
      }
    })
  }
})

describe('WebIDL members of the Fetch classes', () => {
  const classes = [['Headers', Headers], ['FormData', FormData], ['Request', Request], ['Response', Response]] as const
  for (const [name, Class] of classes) {
    it(`${name}: every operation and attribute is enumerable and the iterator is not, as on undici's class`, () => {
      const reference = (undici as unknown as Record<string, { prototype: object }>)[name]!.prototype
      for (const key of Object.getOwnPropertyNames(reference)) {
        if (key === 'constructor') continue
        let proto: object | null = Class.prototype
        let descriptor: PropertyDescriptor | undefined
        while (proto !== null && descriptor === undefined) {
          descriptor = Object.getOwnPropertyDescriptor(proto, key)
          proto = Object.getPrototypeOf(proto) as object | null
        }
        if (descriptor === undefined) continue
        assert.equal(descriptor.enumerable, Object.getOwnPropertyDescriptor(reference, key)!.enumerable, `${name}.${key}`)
      }
      const iterator = Object.getOwnPropertyDescriptor(Class.prototype, Symbol.iterator)
      if (iterator !== undefined) assert.equal(iterator.enumerable, false)
    })
  }

  it('new Headers(record) reads @@iterator, then the own keys, with no other trap first, as undici does', () => {
    const traps = (Impl: typeof Headers): string[] => {
      const log: string[] = []
      const init = new Proxy({ a: '1' }, {
        getPrototypeOf (target) { log.push('getPrototypeOf'); return Reflect.getPrototypeOf(target) },
        get (target, key, receiver) { log.push(`get ${String(key)}`); return Reflect.get(target, key, receiver) as unknown },
        ownKeys (target) { log.push('ownKeys'); return Reflect.ownKeys(target) },
        getOwnPropertyDescriptor (target, key) { log.push(`getOwnPropertyDescriptor ${String(key)}`); return Reflect.getOwnPropertyDescriptor(target, key) }
      })
      assert.deepEqual([...new Impl(init)], [['a', '1']])
      return log
    }
    const mine = traps(Headers)
    assert.deepEqual(mine, ['get Symbol(Symbol.iterator)', 'ownKeys', 'getOwnPropertyDescriptor a', 'get a'])
    assert.deepEqual(mine, traps(undici.Headers as unknown as typeof Headers))
  })

  it('new Headers(headers) honours an @@iterator overridden on the Headers given, as undici does', () => {
    for (const Impl of [Headers, undici.Headers as unknown as typeof Headers]) {
      const init = new Impl({ a: '1' })
      Object.defineProperty(init, Symbol.iterator, { value: function * () { yield ['b', '2'] } })
      assert.deepEqual([...new Impl(init)], [['b', '2']])
      assert.deepEqual([...new Impl(new Impl({ c: '3' }))], [['c', '3']])
    }
  })
})
