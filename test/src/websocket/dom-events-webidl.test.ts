/**
 * WebIDL conformance of MessageEvent, CloseEvent and ErrorEvent, side by side with undici's (the
 * reference): argument checks, the conversion of every init member, the order members are read
 * in, enumerable attributes and the toStringTag.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../../helpers/undici-reference.js'
import { CloseEvent, ErrorEvent, MessageEvent } from '../../../src/websocket/dom-events.js'

type EventClass = new (...args: unknown[]) => Event & Record<string, unknown>

const CLASSES: Array<[string, EventClass, EventClass]> = [
  ['MessageEvent', MessageEvent as unknown as EventClass, undici.MessageEvent as unknown as EventClass],
  ['CloseEvent', CloseEvent as unknown as EventClass, undici.CloseEvent as unknown as EventClass],
  ['ErrorEvent', ErrorEvent as unknown as EventClass, undici.ErrorEvent as unknown as EventClass]
]

/** `'ok'` or the name of the error class `make` threw. */
function outcome (make: () => unknown): string {
  try {
    make()
    return 'ok'
  } catch (err) {
    return (err as Error).constructor.name
  }
}

/** The attributes of an event, read through its getters. */
function attributes (event: Event & Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, event[name]]))
}

/** Builds an event from a proxy of `init` and returns the names of the members read, in order. */
function readOrder (Class: EventClass, init: Record<string, unknown>): string[] {
  const read: string[] = []
  const proxy = new Proxy(init, { get (target, key, receiver) { if (typeof key === 'string') read.push(key); return Reflect.get(target, key, receiver) } })
  // eslint-disable-next-line no-new
  new Class('x', proxy)
  return read
}

describe('event constructors, compared with undici\'s', () => {
  for (const [name, mine, theirs] of CLASSES) {
    it(`${name}: refuses a missing type and an init that is not an object, and takes null or undefined`, () => {
      for (const args of [[], ['x', 5], ['x', 'init'], ['x', true], ['x', null], ['x', undefined], ['x', {}], [Symbol('type')]]) {
        assert.equal(outcome(() => new mine(...args)), outcome(() => new theirs(...args)), `${name}(${args.map(String).join(', ')})`)
      }
      assert.throws(() => new mine(), TypeError)
      assert.throws(() => new mine('x', 5), TypeError)
    })

    it(`${name}: its attributes are enumerable accessors, and it is tagged with its name`, () => {
      const event = new mine('x')
      assert.equal(Object.prototype.toString.call(event), `[object ${name}]`)
      assert.equal(Object.prototype.toString.call(event), Object.prototype.toString.call(new theirs('x')))
      for (const key of Object.getOwnPropertyNames(mine.prototype)) {
        if (key === 'constructor') continue
        const descriptor = Object.getOwnPropertyDescriptor(mine.prototype, key)!
        assert.equal(descriptor.enumerable, true, `${name}.prototype.${key} is enumerable`)
        assert.equal(Object.getOwnPropertyDescriptor(theirs.prototype, key)?.enumerable, true, `undici's ${name}.prototype.${key}`)
      }
    })

    it(`${name}: a getter called on another object throws a TypeError`, () => {
      for (const key of Object.getOwnPropertyNames(mine.prototype)) {
        const getter = Object.getOwnPropertyDescriptor(mine.prototype, key)!.get
        if (getter !== undefined) assert.throws(() => getter.call({}), TypeError, `${name}.${key}`)
      }
    })
  }

  it('MessageEvent: converts origin and lastEventId to strings, keeps data as given, and defaults as undici does', () => {
    const data = { any: 'thing' }
    const names = ['data', 'origin', 'lastEventId', 'source', 'bubbles', 'cancelable', 'composed']
    for (const init of [{}, { data, origin: 5, lastEventId: { toString: () => 'id-7' }, bubbles: 1, cancelable: '', composed: 'yes' }, { data: undefined, origin: 'http://a', lastEventId: null }]) {
      const ours = attributes(new MessageEvent('m', init as never) as never, names)
      assert.deepEqual(ours, attributes(new undici.MessageEvent('m', init as never) as never, names), JSON.stringify(init))
      assert.deepEqual(new MessageEvent('m', init as never).ports, [])
    }
    assert.equal(new MessageEvent('m', { data }).data, data)
  })

  it('MessageEvent: source and ports must be MessagePorts, as undici also requires', () => {
    const { port1, port2 } = new MessageChannel()
    try {
      for (const init of [{ source: {} }, { source: 'port' }, { ports: [{}] }, { ports: 5 }, { ports: [port1, 'x'] }]) {
        assert.throws(() => new MessageEvent('m', init as never), TypeError, JSON.stringify(init))
        assert.throws(() => new undici.MessageEvent('m', init as never), TypeError, `undici ${JSON.stringify(init)}`)
      }
      const event = new MessageEvent('m', { source: port1, ports: [port1, port2] })
      assert.equal(event.source, port1)
      assert.deepEqual(event.ports, [port1, port2])
      assert.ok(Object.isFrozen(event.ports))
      assert.equal(new MessageEvent('m', { source: null }).source, null)
    } finally {
      port1.close()
      port2.close()
    }
  })

  it('MessageEvent: reads its init members once each, in the order undici and WebIDL read them', () => {
    const init = { data: 1, origin: 'o', lastEventId: 'l', source: null, ports: [], bubbles: true }
    const order = readOrder(MessageEvent as unknown as EventClass, init)
    assert.deepEqual(order, ['bubbles', 'cancelable', 'composed', 'data', 'lastEventId', 'origin', 'ports', 'source'])
    assert.deepEqual(order, readOrder(undici.MessageEvent as unknown as EventClass, init))
  })

  it('MessageEvent: initMessageEvent sets every member, converted, and nothing while the event is dispatched', () => {
    const event = new MessageEvent('before')
    event.initMessageEvent('after', true, true, 'payload', 5 as never, 'id')
    assert.deepEqual([event.type, event.bubbles, event.cancelable, event.data, event.origin, event.lastEventId, event.source], ['after', true, true, 'payload', '5', 'id', null])
    assert.throws(() => (event.initMessageEvent as unknown as () => void)(), TypeError)
    const target = new EventTarget()
    target.addEventListener('after', () => { event.initMessageEvent('during', false, false, 'changed') })
    target.dispatchEvent(event)
    assert.equal(event.data, 'payload')
  })

  it('CloseEvent: converts code as an unsigned short, reason as a string and wasClean as a boolean, as undici does', () => {
    for (const init of [{ code: 65537 }, { code: 'x' }, { code: 1000.9 }, { code: Infinity }, { reason: 5 }, { wasClean: 'yes' }, { wasClean: 0 }]) {
      const names = ['code', 'reason', 'wasClean']
      assert.deepEqual(attributes(new CloseEvent('c', init as never) as never, names), attributes(new undici.CloseEvent('c', init as never) as never, names), JSON.stringify(init))
    }
    assert.equal(new CloseEvent('c', { code: 65537 }).code, 1)
    // WebIDL takes a negative number modulo 2^16; undici keeps it negative (docs/undici-differences.md).
    assert.equal(new CloseEvent('c', { code: -1 }).code, 65535)
    assert.throws(() => new CloseEvent('c', { code: Symbol('c') as never }), TypeError)
    assert.throws(() => new CloseEvent('c', { code: 1n as never }), TypeError)
  })

  it('ErrorEvent: converts lineno and colno as unsigned longs and message and filename as strings, as undici does', () => {
    const error = new Error('kept')
    const init = { message: 5, filename: { toString: () => 'file.js' }, lineno: 7.5, colno: 4294967297, error }
    const names = ['message', 'filename', 'lineno', 'colno', 'error']
    const ours = attributes(new ErrorEvent('e', init as never) as never, names)
    assert.deepEqual(ours, attributes(new undici.ErrorEvent('e', init as never) as never, names))
    assert.deepEqual(ours, { message: '5', filename: 'file.js', lineno: 7, colno: 1, error })
    assert.equal(new ErrorEvent('e', { lineno: -1 }).lineno, 4294967295)
  })

  it('CloseEvent and ErrorEvent read EventInit\'s members before their own, as WebIDL reads an inherited dictionary', () => {
    // undici sorts all members together, so its CloseEvent reads `code` before `composed`.
    assert.deepEqual(readOrder(CloseEvent as unknown as EventClass, {}), ['bubbles', 'cancelable', 'composed', 'code', 'reason', 'wasClean'])
    assert.deepEqual(readOrder(ErrorEvent as unknown as EventClass, {}), ['bubbles', 'cancelable', 'composed', 'colno', 'error', 'filename', 'lineno', 'message'])
  })
})
