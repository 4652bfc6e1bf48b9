import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import {
  DecoratorHandler,
  LegacyHandlerAdapter,
  SimpleController,
  isLegacyHandler,
  toDispatchHandler,
  toRawHeaders
} from '../../src/handler.js'

describe('SimpleController', () => {
  it('reports abort once, with the first reason', () => {
    const reasons: Error[] = []
    const controller = new SimpleController({ abort: (r) => reasons.push(r) })
    const first = new Error('first')
    controller.abort(first)
    controller.abort(new Error('second'))
    assert.equal(controller.aborted, true)
    assert.equal(controller.reason, first)
    assert.deepEqual(reasons, [first])
  })

  it('calls pause and resume only on a change of state', () => {
    const calls: string[] = []
    const controller = new SimpleController({ pause: () => calls.push('pause'), resume: () => calls.push('resume') })
    controller.resume()
    controller.pause()
    controller.pause()
    assert.equal(controller.paused, true)
    controller.resume()
    controller.resume()
    assert.equal(controller.paused, false)
    assert.deepEqual(calls, ['pause', 'resume'])
  })

  it('uses a RequestAbortedError when abort is called without a reason', () => {
    const controller = new SimpleController()
    controller.abort(undefined as unknown as Error)
    assert.equal((controller.reason as Error & { code: string }).code, 'LIB_ERR_ABORTED')
  })
})

describe('handler shapes', () => {
  it('recognises the older handler shape only when no new hook is present', () => {
    assert.equal(isLegacyHandler({ onHeaders () {}, onData () {} }), true)
    assert.equal(isLegacyHandler({ onHeaders () {}, onResponseStart () {} }), false)
    assert.equal(isLegacyHandler({}), false)
  })

  it('treats the older hooks next to onRequestUpgrade as the older shape, as the runtime fetch of Node 24 passes them', () => {
    const runtimeFetchHandler = { onConnect () {}, onResponseStarted () {}, onHeaders () {}, onData () {}, onComplete () {}, onError () {}, onRequestUpgrade () {}, onUpgrade () {} }
    assert.equal(isLegacyHandler(runtimeFetchHandler), true)
    assert.ok(toDispatchHandler(runtimeFetchHandler) instanceof LegacyHandlerAdapter)
  })

  it('returns new-shape handlers unchanged and wraps older ones', () => {
    const modern = { onResponseEnd () {} }
    assert.equal(toDispatchHandler(modern), modern)
    assert.ok(toDispatchHandler({ onComplete () {} }) instanceof LegacyHandlerAdapter)
  })

  it('refuses a handler that is not an object, naming what it got', () => {
    assert.throws(() => toDispatchHandler(null as never), { name: 'TypeError', message: /got null/ })
    assert.throws(() => new DecoratorHandler(7 as never), { name: 'TypeError', message: /got 7$/ })
  })

  it('flattens headers to raw Buffers, repeating multi-valued names', () => {
    const raw = toRawHeaders({ a: '1', 'set-cookie': ['x', 'y'] })
    assert.deepEqual(raw.map(String), ['a', '1', 'set-cookie', 'x', 'set-cookie', 'y'])
    assert.deepEqual(toRawHeaders(null), [])
  })
})

describe('LegacyHandlerAdapter', () => {
  it('maps every hook and turns a false return into pause', () => {
    const events: unknown[] = []
    let resume: (() => void) | undefined
    const adapter = new LegacyHandlerAdapter({
      onConnect: (abort) => { events.push(['connect', typeof abort]) },
      onHeaders: (status, headers, res, text) => { resume = res; events.push(['headers', status, headers.map(String), text]); return false },
      onData: (chunk) => { events.push(['data', String(chunk)]); return false },
      onComplete: (trailers) => { events.push(['complete', (trailers as Buffer[]).map(String)]) },
      onError: (err) => { events.push(['error', err.message]) },
      onUpgrade: (status, headers, socket) => { events.push(['upgrade', status, (headers as Buffer[]).map(String), socket instanceof PassThrough]) }
    })
    const controller = new SimpleController()
    adapter.onRequestStart(controller, {})
    adapter.onResponseStart(controller, 200, { a: 'b' }, 'OK')
    assert.equal(controller.paused, true)
    resume!()
    assert.equal(controller.paused, false)
    adapter.onResponseData(controller, Buffer.from('z'))
    assert.equal(controller.paused, true)
    adapter.onResponseEnd(controller, { t: 'v' })
    adapter.onResponseError(controller, new Error('bad'))
    adapter.onRequestUpgrade(controller, 101, { upgrade: 'ws' }, new PassThrough())
    assert.deepEqual(events, [
      ['connect', 'function'],
      ['headers', 200, ['a', 'b'], 'OK'],
      ['data', 'z'],
      ['complete', ['t', 'v']],
      ['error', 'bad'],
      ['upgrade', 101, ['upgrade', 'ws'], true]
    ])
  })

  it('aborts the dispatch when the older handler calls its abort function', () => {
    let abort: ((err?: Error) => void) | undefined
    const adapter = new LegacyHandlerAdapter({ onConnect: (a) => { abort = a } })
    const controller = new SimpleController()
    adapter.onRequestStart(controller, undefined)
    abort!()
    assert.equal(controller.aborted, true)
    assert.equal((controller.reason as Error & { code: string }).code, 'LIB_ERR_ABORTED')
  })
})
