import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../../src/dispatcher/agent.js'
import { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../../../src/handler.js'
import { SimpleController } from '../../../src/handler.js'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { retry } from '../../../interceptors/retry/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { callerTagOf } from '../../../src/observability/caller-tag.js'

/** A dispatcher whose behaviour each test scripts, to drive fetch's handler through edge cases. */
class ScriptedDispatcher extends Dispatcher {
  seen: DispatchOptions[] = []
  readonly script: (opts: DispatchOptions, handler: DispatchHandler) => boolean
  constructor (script: (opts: DispatchOptions, handler: DispatchHandler) => boolean) {
    super()
    this.script = script
  }

  override dispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    this.seen.push(opts)
    return this.script(opts, handler)
  }

  override close (): Promise<void>
  override close (callback: () => void): void
  override close (callback?: () => void): Promise<void> | void {
    if (callback) callback()
    else return Promise.resolve()
  }

  override destroy (): Promise<void>
  override destroy (callback: () => void): void
  override destroy (err: Error | null, callback: () => void): void
  override destroy (): Promise<void> | void {
    return Promise.resolve()
  }
}

describe('fetch over other dispatchers', () => {
  let server: TestServer
  let calls = 0
  before(async () => {
    server = await startHttpServer((_req, res) => {
      calls++
      if (calls === 1) {
        res.statusCode = 503
        res.end('busy')
      } else {
        res.end('done')
      }
    })
  })
  after(async () => { await server.close() })

  it('tags its dispatch options with the fetch caller tag', async () => {
    const dispatcher = new ScriptedDispatcher((_opts, handler) => {
      const controller = new SimpleController()
      handler.onRequestStart?.(controller, {})
      handler.onResponseStart?.(controller, 200, {}, 'OK')
      handler.onResponseEnd?.(controller, {})
      return true
    })
    await (await fetch('http://127.0.0.1:3999/x?y=1', { dispatcher })).text()
    const opts = dispatcher.seen[0]!
    assert.equal(callerTagOf(opts), 'fetch')
    assert.equal(opts.origin, 'http://127.0.0.1:3999')
    assert.equal(opts.path, '/x?y=1')
    assert.equal(opts.method, 'GET')
  })

  it('rejects with a network error when dispatch throws', async () => {
    const failure = new Error('cannot dispatch')
    const dispatcher = new ScriptedDispatcher(() => { throw failure })
    await assert.rejects(fetch('http://127.0.0.1:3999/', { dispatcher }), (err: Error) => err instanceof TypeError && err.cause === failure)
  })

  it('rejects with a network error when the dispatch fails before any response', async () => {
    const failure = new Error('refused')
    const dispatcher = new ScriptedDispatcher((_opts, handler) => {
      handler.onResponseError?.(new SimpleController(), failure)
      return false
    })
    await assert.rejects(fetch('http://127.0.0.1:3999/', { dispatcher }), (err: Error) => err instanceof TypeError && err.cause === failure)
  })

  it('ignores informational responses before the final one', async () => {
    const dispatcher = new ScriptedDispatcher((_opts, handler) => {
      const controller = new SimpleController()
      handler.onRequestStart?.(controller, {})
      handler.onResponseStart?.(controller, 103, { link: '</a>' }, 'Early Hints')
      handler.onResponseStart?.(controller, 200, { 'x-final': '1' }, 'OK')
      handler.onResponseData?.(controller, Buffer.from('final'))
      handler.onResponseEnd?.(controller, {})
      return true
    })
    const response = await fetch('http://127.0.0.1:3999/', { dispatcher })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('x-final'), '1')
    assert.equal(await response.text(), 'final')
  })

  it('aborts the controller when the signal fires before the dispatcher started the request', async () => {
    const controller = new AbortController()
    let started: SimpleController | null = null
    let abortReason: Error | null = null
    const dispatcher = new ScriptedDispatcher((_opts, handler) => {
      // The dispatcher starts the request only later, after the abort.
      setImmediate(() => {
        started = new SimpleController({ abort: (reason) => { abortReason = reason } })
        handler.onRequestStart?.(started, {})
      })
      return true
    })
    const pending = fetch('http://127.0.0.1:3999/', { signal: controller.signal, dispatcher })
    controller.abort(new Error('early'))
    await assert.rejects(pending, (err: Error) => err.message === 'early')
    await new Promise((resolve) => setImmediate(resolve))
    assert.ok(started !== null)
    assert.ok(abortReason !== null)
  })

  it('pauses the dispatch while nobody reads and resumes when the body is read', async () => {
    let paused = 0
    let resumed = 0
    let push: (() => void) | null = null
    const dispatcher = new ScriptedDispatcher((_opts, handler) => {
      const controller = new SimpleController({ pause: () => { paused++ }, resume: () => { resumed++; push?.() } })
      handler.onRequestStart?.(controller, {})
      handler.onResponseStart?.(controller, 200, {}, 'OK')
      let sent = 0
      push = () => {
        while (!controller.paused && sent < 40) {
          sent++
          handler.onResponseData?.(controller, Buffer.alloc(4096, 1))
        }
        if (sent === 40) {
          sent++
          handler.onResponseEnd?.(controller, {})
        }
      }
      push()
      return true
    })
    const response = await fetch('http://127.0.0.1:3999/', { dispatcher })
    assert.ok(paused >= 1)
    const bytes = await response.arrayBuffer()
    assert.equal(bytes.byteLength, 40 * 4096)
    assert.ok(resumed >= 1)
  })

  it('answers from a MockAgent', async () => {
    const mock = new MockAgent()
    mock.disableNetConnect()
    mock.get('http://127.0.0.1:3999').intercept({ path: '/users', method: 'GET' }).reply(200, { users: ['ada'] }, { headers: { 'content-type': 'application/json' } })
    const response = await fetch('http://127.0.0.1:3999/users', { dispatcher: mock })
    assert.deepEqual(await response.json(), { users: ['ada'] })
    await mock.close()
  })

  it('retries through a composed retry interceptor', async () => {
    const agent = new Agent()
    const retrying = agent.compose(retry({ minTimeout: 1, maxTimeout: 1 }))
    const response = await fetch(`${server.origin}/`, { dispatcher: retrying })
    assert.equal(response.status, 200)
    assert.equal(await response.text(), 'done')
    assert.equal(calls, 2)
    await agent.close()
  })
})
