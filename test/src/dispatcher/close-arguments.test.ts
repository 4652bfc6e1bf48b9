import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { checkCallback, destroyArguments, settleClose } from '../../../src/dispatcher/close-arguments.js'
import { Agent, Client, MockAgent, Pool, ProxyAgent, RetryAgent } from '../../../src/index.js'
import type { CloseCallback, Dispatcher } from '../../../src/index.js'

function callbackResult (register: (callback: CloseCallback) => void): Promise<Error | null | undefined> {
  return new Promise((resolve) => register((err) => resolve(err)))
}

describe('close and destroy arguments', () => {
  it('reads destroy(), destroy(err), destroy(callback) and destroy(err, callback) into an error and a callback', () => {
    const err = new Error('gone')
    const callback: CloseCallback = () => {}
    assert.deepEqual(destroyArguments(undefined, undefined), { err: null, callback: undefined })
    assert.deepEqual(destroyArguments(null, undefined), { err: null, callback: undefined })
    assert.deepEqual(destroyArguments(err, undefined), { err, callback: undefined })
    assert.deepEqual(destroyArguments(callback, undefined), { err: null, callback })
    assert.deepEqual(destroyArguments(err, callback), { err, callback })
    assert.deepEqual(destroyArguments(null, callback), { err: null, callback })
  })

  it('refuses a callback that is not a function with an error naming the value', () => {
    assert.throws(() => checkCallback('done', 'close'), { code: 'LIB_ERR_INVALID_ARG', message: 'close: callback must be a function, got "done"' })
    assert.throws(() => checkCallback(null, 'close'), { code: 'LIB_ERR_INVALID_ARG', message: 'close: callback must be a function, got null' })
    assert.throws(() => destroyArguments(null, 42 as unknown as CloseCallback), { code: 'LIB_ERR_INVALID_ARG', message: 'destroy: callback must be a function, got 42' })
  })

  it('returns the promise when no callback is given', async () => {
    const done = Promise.resolve()
    assert.equal(settleClose(done, undefined), done)
    await done
  })

  it('reports success as null and failure as the error through the callback, returning nothing', async () => {
    let returned: unknown = 'not called'
    assert.equal(await callbackResult((callback) => { returned = settleClose(Promise.resolve(), callback) }), null)
    assert.equal(returned, undefined)
    const failure = new Error('refused')
    assert.equal(await callbackResult((callback) => settleClose(Promise.reject(failure), callback)), failure)
  })

  const dispatchers: Array<[string, () => Dispatcher]> = [
    ['Client', () => new Client('http://127.0.0.1:1')],
    ['Pool', () => new Pool('http://127.0.0.1:1')],
    ['Agent', () => new Agent()],
    ['a composed Agent', () => new Agent().compose((dispatch) => dispatch)],
    ['RetryAgent', () => new RetryAgent(new Agent())],
    ['MockAgent', () => new MockAgent()],
    ['ProxyAgent', () => new ProxyAgent('http://127.0.0.1:1')]
  ]

  for (const [name, create] of dispatchers) {
    it(`${name} accepts every close and destroy form alike`, async () => {
      const closing = create()
      assert.equal(await callbackResult((callback) => closing.close(callback)), null)
      const refusing = create()
      assert.throws(() => refusing.close('later' as unknown as CloseCallback), { code: 'LIB_ERR_INVALID_ARG' })
      assert.throws(() => refusing.destroy(null, 'later' as unknown as CloseCallback), { code: 'LIB_ERR_INVALID_ARG' })
      await refusing.close()
      const destroyed = create()
      assert.equal(await callbackResult((callback) => destroyed.destroy(callback)), null)
      const withError = create()
      assert.equal(await callbackResult((callback) => withError.destroy(new Error('bye'), callback)), null)
      await create().destroy()
    })
  }
})
