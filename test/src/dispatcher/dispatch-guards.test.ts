import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, MockAgent, Pool } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { RecordingHandler } from './recording-handler.js'

const ORIGIN = 'http://127.0.0.1:1'

describe('dispatch guards', () => {
  const dispatchers: Array<[string, () => Dispatcher]> = [
    ['Client', () => new Client(ORIGIN)],
    ['Pool', () => new Pool(ORIGIN)],
    ['Agent', () => new Agent()],
    ['MockPool', () => new MockAgent().get(ORIGIN)]
  ]

  for (const [name, create] of dispatchers) {
    it(`${name} throws for dispatch options that are not an object, naming what it got`, async () => {
      const dispatcher = create()
      assert.throws(() => dispatcher.dispatch(null as never, new RecordingHandler()), { code: 'LIB_ERR_INVALID_ARG', message: 'dispatch: options must be an object, got null' })
      assert.throws(() => dispatcher.dispatch('/' as never, new RecordingHandler()), { code: 'LIB_ERR_INVALID_ARG', message: 'dispatch: options must be an object, got "/"' })
      await dispatcher.close()
    })

    it(`${name} fails a request dispatched while closing with ClientClosedError, and after close() completed or destroy() with ClientDestroyedError`, async () => {
      const closed = create()
      const closing = closed.close()
      const whileClosing = new RecordingHandler()
      closed.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, whileClosing)
      await whileClosing.done
      assert.equal((whileClosing.error as Error & { code?: string }).code, 'LIB_ERR_CLOSED')
      await closing
      // As in undici: a dispatcher that finished closing counts as destroyed.
      assert.equal((closed as unknown as { destroyed: boolean }).destroyed, true)
      const afterClose = new RecordingHandler()
      closed.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, afterClose)
      await afterClose.done
      assert.equal((afterClose.error as Error & { code?: string }).code, 'LIB_ERR_DESTROYED')
      await assert.rejects(closed.close(), { code: 'LIB_ERR_DESTROYED' })

      const destroyed = create()
      await destroyed.destroy()
      const afterDestroy = new RecordingHandler()
      destroyed.dispatch({ origin: ORIGIN, path: '/', method: 'GET' }, afterDestroy)
      await afterDestroy.done
      assert.equal((afterDestroy.error as Error & { code?: string }).code, 'LIB_ERR_DESTROYED')
      assert.deepEqual(afterDestroy.events.filter((event) => event !== 'start'), ['error'])
    })
  }
})
