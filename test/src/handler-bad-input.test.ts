import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../src/index.js'
import { toDispatchHandler } from '../../src/handlers/legacy-handler.js'
import { startHttpServer } from '../helpers/servers.js'

describe('dispatch handler bad input', () => {
  it('refuses a hook that is present but not a function, naming the hook and the value, before a connection is opened', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ onRequestStart: {} }, 'dispatch: handler.onRequestStart must be a function, got [object Object]'],
      [{ onResponseStart: 5, onResponseError () {} }, 'dispatch: handler.onResponseStart must be a function, got 5'],
      [{ onResponseData: 'write', onResponseError () {} }, 'dispatch: handler.onResponseData must be a function, got "write"'],
      [{ onResponseError: true }, 'dispatch: handler.onResponseError must be a function, got true']
    ]
    for (const [handler, message] of cases) {
      assert.throws(() => agent.dispatch({ origin: server.origin, path: '/', method: 'GET' }, handler as never), { name: 'TypeError', message })
    }
    assert.equal(server.connections, 0)
  })

  it('still accepts hooks left undefined or null', () => {
    const handler = { onRequestStart: undefined, onResponseData: null, onResponseEnd () {} }
    assert.equal(toDispatchHandler(handler as never), handler)
  })
})
