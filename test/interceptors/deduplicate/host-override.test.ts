import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

describe('deduplicate() and a Host header naming another authority', () => {
  it('never shares a response between requests for different hosts, even with host in excludeHeaderNames', async (t) => {
    const waiting: http.ServerResponse[] = []
    const hosts: string[] = []
    const server = await startHttpServer((req, res) => {
      hosts.push(req.headers.host ?? '')
      res.setHeader('x-host', req.headers.host ?? '')
      waiting.push(res)
      // Both requests are held until the second arrives, so they are in flight together.
      if (waiting.length === 2) for (const held of waiting) held.end(`for ${String(held.getHeader('x-host'))}`)
    })
    const agent = new Agent()
    const dispatcher = agent.compose(interceptors.deduplicate({ excludeHeaderNames: ['host'] }))
    t.after(async () => {
      await agent.destroy()
      await server.close()
    })
    const get = async (headers: Record<string, string>): Promise<string> => {
      const res = await dispatcher.request({ origin: server.origin, path: '/', method: 'GET', headers })
      return await res.body.text()
    }
    const [plain, other] = await Promise.all([get({}), get({ host: 'evil.example' })])
    assert.equal(plain, `for 127.0.0.1:${server.port}`)
    assert.equal(other, 'for evil.example')
    assert.deepEqual(hosts.sort(), [`127.0.0.1:${server.port}`, 'evil.example'].sort())
  })
})
