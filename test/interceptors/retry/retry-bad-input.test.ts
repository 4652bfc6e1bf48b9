import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

describe('retry() per-request bad input', () => {
  it('rejects retryOptions that are not an object, naming the value, before a connection is opened', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const agent = new Agent().compose(interceptors.retry())
    t.after(async () => { await agent.close(); await server.close() })
    for (const [bad, shown] of [[5, '5'], ['fast', '"fast"'], [[1], '[object Array]']] as const) {
      await assert.rejects(agent.request({ origin: server.origin, path: '/', method: 'GET', retryOptions: bad } as never), {
        code: 'LIB_ERR_INVALID_ARG',
        message: `retry(): retryOptions must be an object, got ${shown}`
      })
    }
    assert.equal(server.connections, 0)
    const { body } = await agent.request({ origin: server.origin, path: '/', method: 'GET', retryOptions: null } as never)
    assert.equal(await body.text(), 'x')
  })
})
