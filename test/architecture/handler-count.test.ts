import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, cacheStores, DecoratorHandler, interceptors, RetryHandler } from '../../src/index.js'
import { DispatcherBase } from '../../src/dispatcher/dispatcher.js'
import { RequestHandler } from '../../src/api/request.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

// Counts the handler objects one request creates, without a line of production code: every hook
// method on the prototype of a handler class, and every dispatch entry, records the handler it
// runs on and the handlers it forwards to (`handler`, the decorator's inner one). Classes that no
// test can import are found the same way, from the instances that reach a recorded hook.
const HOOKS = ['onRequestStart', 'onRequestUpgrade', 'onResponseInformation', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError', 'onBodySent'] as const

class HandlerCensus {
  readonly seen = new Set<object>()
  readonly #patched = new Map<object, Array<[string, PropertyDescriptor]>>()
  readonly #restore: Array<() => void> = []

  record (handler: unknown): void {
    let current = handler
    while (typeof current === 'object' && current !== null && !this.seen.has(current)) {
      this.seen.add(current)
      this.watchClassOf(current)
      current = (current as { handler?: unknown }).handler
    }
  }

  watchClassOf (instance: object): void {
    for (let proto = Object.getPrototypeOf(instance); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      if (this.#patched.has(proto)) continue
      const originals: Array<[string, PropertyDescriptor]> = []
      this.#patched.set(proto, originals)
      for (const hook of HOOKS) {
        const descriptor = Object.getOwnPropertyDescriptor(proto, hook)
        if (descriptor === undefined || typeof descriptor.value !== 'function') continue
        originals.push([hook, descriptor])
        const original = descriptor.value as (...args: unknown[]) => unknown
        const census = this
        Object.defineProperty(proto, hook, { ...descriptor, value: function (this: object, ...args: unknown[]) { census.record(this); return original.apply(this, args) } })
      }
    }
  }

  watchDispatchEntries (): void {
    const forward = DispatcherBase.forward
    const census = this
    DispatcherBase.forward = (target, opts, handler) => { census.record(handler); return forward.call(DispatcherBase, target, opts, handler) }
    const dispatch = Object.getOwnPropertyDescriptor(DispatcherBase.prototype, 'dispatch')!
    Object.defineProperty(DispatcherBase.prototype, 'dispatch', {
      ...dispatch,
      value: function (this: DispatcherBase, opts: unknown, handler: unknown) { census.record(handler); return (dispatch.value as Function).call(this, opts, handler) }
    })
    this.#restore.push(() => {
      DispatcherBase.forward = forward
      Object.defineProperty(DispatcherBase.prototype, 'dispatch', dispatch)
    })
  }

  restore (): void {
    for (const [proto, originals] of this.#patched) for (const [hook, descriptor] of originals) Object.defineProperty(proto, hook, descriptor)
    for (const undo of this.#restore) undo()
  }

  /** Class names of the handlers recorded since the last call, sorted. */
  take (): string[] {
    const names = [...this.seen].map((handler) => handler.constructor.name).sort()
    this.seen.clear()
    return names
  }
}

describe('one GET through compose(cache({ store }), retry())', () => {
  let server: TestServer
  let agent: ReturnType<Agent['compose']>
  const census = new HandlerCensus()

  before(async () => {
    server = await startHttpServer((_req, res) => {
      res.setHeader('cache-control', 'max-age=600')
      res.end('counted')
    })
    agent = new Agent().compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore() }), interceptors.retry())
    for (const proto of [DecoratorHandler, RetryHandler, RequestHandler]) census.watchClassOf(proto.prototype)
    census.watchDispatchEntries()
    // A first miss and hit on another path let the census meet every handler class on the way.
    for (let i = 0; i < 2; i++) await get('/warm-up')
    census.take()
  })

  after(async () => {
    census.restore()
    await agent.close()
    await server.close()
  })

  async function get (path: string): Promise<string> {
    const { body } = await agent.request({ origin: server.origin, path, method: 'GET' })
    return body.text()
  }

  it('creates on a miss only the handlers that change what the caller sees', async () => {
    assert.equal(await get('/counted'), 'counted')
    assert.deepEqual(census.take(), ['CacheHandler', 'RequestHandler', 'RetryHandler'])
  })

  it('creates on a hit only the caller\'s handler and the retry handler', async () => {
    assert.equal(await get('/counted'), 'counted')
    assert.equal(server.requests.filter((r) => r.url === '/counted').length, 1)
    assert.deepEqual(census.take(), ['RequestHandler', 'RetryHandler'])
  })
})
