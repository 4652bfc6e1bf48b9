import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ScriptedDispatcher } from '../../helpers/scripted-dispatcher.js'
import type { Dispatch, Interceptor } from '../../../src/handler.js'
import { DecoratorHandler } from '../../../src/handler.js'

function tagging (tag: string, order: string[]): Interceptor {
  return (dispatch: Dispatch): Dispatch => (opts, handler) => {
    order.push(tag)
    return dispatch({ ...opts, headers: { ...(opts.headers as Record<string, string>), [`x-${tag}`]: '1' } }, handler)
  }
}

describe('Dispatcher.compose', () => {
  it('dispatches through the last listed interceptor first, as undici does', async () => {
    const base = new ScriptedDispatcher()
    const order: string[] = []
    const composed = base.compose(tagging('a', order), tagging('b', order))
    const { statusCode, body } = await composed.request({ origin: 'http://x', path: '/', method: 'GET' })
    assert.equal(statusCode, 200)
    assert.equal(await body.text(), 'ok')
    assert.deepEqual(order, ['b', 'a'])
    assert.deepEqual(base.seen[0]!.headers, { 'x-b': '1', 'x-a': '1' })
  })

  it('accepts the interceptors as one array', async () => {
    const base = new ScriptedDispatcher()
    const order: string[] = []
    await (await base.compose([tagging('a', order), tagging('b', order)]).request({ origin: 'http://x', path: '/', method: 'GET' })).body.dump()
    assert.deepEqual(order, ['b', 'a'])
  })

  it('rejects an interceptor that is not a function with a TypeError naming its index', () => {
    const base = new ScriptedDispatcher()
    assert.throws(() => base.compose((d: Dispatch) => d, 'nope' as unknown as Interceptor), {
      name: 'TypeError',
      message: /index 1 must be a function, got "nope"$/
    })
  })

  it('rejects an interceptor that does not return a dispatch function', () => {
    const base = new ScriptedDispatcher()
    assert.throws(() => base.compose((() => 42) as unknown as Interceptor), { name: 'TypeError', message: /return a dispatch function, got 42$/ })
  })

  it('shares close, destroy and events with the base dispatcher', async () => {
    const base = new ScriptedDispatcher()
    const composed = base.compose((d: Dispatch) => d)
    let drained = 0
    composed.on('drain', () => { drained++ })
    base.emit('drain', 'http://x', [base])
    assert.equal(drained, 1)
    assert.equal(composed.listenerCount('drain'), 1)
    await composed.close()
    assert.equal(base.closed, true)
    // A dispatcher that finished closing counts as destroyed, as in undici: destroy() then has nothing left to do.
    assert.equal(composed.destroyed, true)
    const other = new ScriptedDispatcher()
    const composedOther = other.compose((d: Dispatch) => d)
    const err = new Error('boom')
    await composedOther.destroy(err)
    assert.equal(other.destroyedWith, err)
    assert.equal(composed.base, base)
  })

  it('composes again on a composed dispatcher, keeping the order', async () => {
    const base = new ScriptedDispatcher()
    const order: string[] = []
    const twice = base.compose(tagging('a', order)).compose(tagging('b', order))
    await (await twice.request({ origin: 'http://x', path: '/', method: 'GET' })).body.dump()
    assert.deepEqual(order, ['b', 'a'])
  })

  it('adapts a legacy handler passed on by an older interceptor', async () => {
    const base = new ScriptedDispatcher(() => ({ statusCode: 201, headers: { a: 'b' }, chunks: ['x', 'y'], trailers: { t: '1' } }))
    const events: string[] = []
    const legacyStyle: Interceptor = (dispatch) => (opts, handler) => dispatch(opts, {
      onConnect: () => events.push('connect'),
      onHeaders: (status: number, raw: Buffer[]) => { events.push(`headers ${status} ${raw.map(String).join('=')}`); return true },
      onData: (chunk: Buffer) => { events.push(`data ${chunk}`); return true },
      onComplete: (trailers: Buffer[]) => { events.push(`complete ${trailers.map(String).join('=')}`); handler.onResponseEnd?.({} as never, {}) },
      onError: (err: Error) => handler.onResponseError?.({} as never, err)
    } as never)
    await new Promise<void>((resolve, reject) => {
      base.compose(legacyStyle).dispatch({ origin: 'http://x', path: '/', method: 'GET' }, {
        onResponseEnd: () => resolve(),
        onResponseError: (_c, err) => reject(err)
      })
    })
    assert.deepEqual(events, ['connect', 'headers 201 a=b', 'data x', 'data y', 'complete t=1'])
  })

  it('lets DecoratorHandler subclasses observe and forward every hook', async () => {
    const base = new ScriptedDispatcher(() => ({ chunks: ['abc', 'de'] }))
    class CountBytes extends DecoratorHandler {
      bytes = 0
      override onResponseData (controller: Parameters<DecoratorHandler['onResponseData']>[0], chunk: Buffer): void {
        this.bytes += chunk.length
        super.onResponseData(controller, chunk)
      }
    }
    let counter: CountBytes | undefined
    const counting: Interceptor = (dispatch) => (opts, handler) => dispatch(opts, (counter = new CountBytes(handler)))
    const { body } = await base.compose(counting).request({ origin: 'http://x', path: '/', method: 'GET' })
    assert.equal(await body.text(), 'abcde')
    assert.equal(counter!.bytes, 5)
  })
})

describe('interceptor lifecycle hooks', () => {
  it('tells interceptors about close (awaited, outermost first) and about the first destroy, before the base', async () => {
    const events: string[] = []
    const withHooks = (name: string, base: ScriptedDispatcher): Interceptor => (dispatch) => Object.assign((opts: Parameters<Dispatch>[0], handler: Parameters<Dispatch>[1]) => dispatch(opts, handler), {
      onClose: async () => { await Promise.resolve(); events.push(`close ${name} (base closed: ${base.closed})`) },
      onDestroy: (reason: Error) => { events.push(`destroy ${name}: ${reason.message} (base destroyed: ${base.destroyedWith !== undefined})`) }
    })
    const closing = new ScriptedDispatcher()
    const closed = closing.compose(withHooks('a', closing), (d: Dispatch) => d, withHooks('b', closing))
    await new Promise<void>((resolve, reject) => closed.close((err) => err ? reject(err) : resolve()))
    // Once closed, the dispatcher counts as destroyed (as in undici): no destroy hook runs.
    await closed.destroy(new Error('late'))
    const destroying = new ScriptedDispatcher()
    const destroyed = destroying.compose(withHooks('c', destroying), withHooks('d', destroying))
    await destroyed.destroy(new Error('bye'))
    await destroyed.destroy()
    assert.deepEqual(events, [
      'close b (base closed: false)',
      'close a (base closed: false)',
      'destroy d: bye (base destroyed: false)',
      'destroy c: bye (base destroyed: false)'
    ])
    assert.equal(closing.closed, true)
    assert.notEqual(destroying.destroyedWith, undefined)
  })
})
