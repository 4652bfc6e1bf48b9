import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, request as topLevelRequest } from '../../../src/index.js'
import type { RequestOptions } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

/** Options only request() reads, each with the message it must be refused with. */
const BAD_REQUEST_OPTIONS: Array<[Partial<RequestOptions>, string]> = [
  [{ signal: 5 as never }, 'request(): signal must be an AbortSignal or an EventEmitter, got 5'],
  [{ signal: 'abort' as never }, 'request(): signal must be an AbortSignal or an EventEmitter, got "abort"'],
  [{ signal: {} as never }, 'request(): signal must be an AbortSignal or an EventEmitter, got [object Object]'],
  [{ highWaterMark: -1 }, 'request(): highWaterMark must be a non-negative integer, got -1'],
  [{ highWaterMark: Number.NaN }, 'request(): highWaterMark must be a non-negative integer, got NaN'],
  [{ highWaterMark: '64' as never }, 'request(): highWaterMark must be a non-negative integer, got "64"'],
  [{ onInfo: 'log' as never }, 'request(): onInfo must be a function, got "log"']
]

describe('request() bad input', () => {
  it('rejects each bad request() option naming the value, before a connection is opened', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    for (const [bad, message] of BAD_REQUEST_OPTIONS) {
      await assert.rejects(agent.request({ origin: server.origin, path: '/', method: 'GET', ...bad }), { code: 'LIB_ERR_INVALID_ARG', message }, message)
    }
    assert.equal(server.connections, 0)
    const { body } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await body.text(), 'x')
  })

  it('calls back with the error of a bad option instead of throwing, exactly once', async (t) => {
    const agent = new Agent()
    t.after(async () => { await agent.close() })
    const calls: Array<Error | null> = []
    await new Promise<void>((resolve) => {
      agent.request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET', signal: 5 as never }, (err) => { calls.push(err); resolve() })
    })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(calls.length, 1)
    assert.equal((calls[0] as Error & { code?: string }).code, 'LIB_ERR_INVALID_ARG')
  })

  it('throws for a callback that is not a function, naming the value', () => {
    const agent = new Agent()
    assert.throws(() => agent.request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' }, 'done' as never), {
      code: 'LIB_ERR_INVALID_ARG',
      message: 'request(): callback must be a function, got "done"'
    })
  })

  it('top-level request() rejects options that are not an object instead of ignoring them', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    t.after(async () => { await server.close() })
    await assert.rejects(topLevelRequest(server.origin, 5 as never), { code: 'LIB_ERR_INVALID_ARG', message: 'request(): options must be an object, got 5' })
    await assert.rejects(topLevelRequest(server.origin, 'POST' as never), { code: 'LIB_ERR_INVALID_ARG', message: 'request(): options must be an object, got "POST"' })
    await assert.rejects(topLevelRequest(42 as never), { code: 'LIB_ERR_INVALID_ARG', message: 'request(): expected a URL string, URL or options object, got 42' })
    await assert.rejects(topLevelRequest(server.origin, { dispatcher: {} as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'request(): dispatcher must be a Dispatcher, got [object Object]' })
    assert.equal(server.connections, 0)
  })
})
