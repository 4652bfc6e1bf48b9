import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { ProxyAgent, Socks5ProxyAgent } from '../../../src/index.js'
import { startH2sServer, respond } from '../../helpers/h2-server.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'
import { startSocks5Server } from '../../helpers/socks5-server.js'
import { trustTestCa } from '../../helpers/servers.js'

describe('HTTP/2 through proxy tunnels', async () => {
  const target = await startH2sServer((stream, headers) => respond(stream, 200, `h2 via tunnel ${String(headers[':path'])}`))
  const proxy = await startHttpProxy()
  const socks = await startSocks5Server()
  after(async () => { await target.close(); await proxy.close(); await socks.close() })

  it('speaks h2 to an https: target through an HTTP CONNECT tunnel, many streams on one tunnel', async () => {
    const agent = new ProxyAgent({ uri: proxy.url, allowH2: true, requestTls: trustTestCa })
    after(() => agent.close())
    const texts = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const res = await agent.request({ origin: target.origin, path: `/${i}`, method: 'GET' })
      return await res.body.text()
    }))
    assert.deepEqual(texts, Array.from({ length: 10 }, (_, i) => `h2 via tunnel /${i}`))
    assert.equal(proxy.requests.filter((r) => r.method === 'CONNECT').length, 1)
  })

  it('speaks h2 through a SOCKS5 tunnel', async () => {
    const sessions = target.sessions
    const agent = new Socks5ProxyAgent(socks.url, { allowH2: true, requestTls: trustTestCa })
    after(() => agent.close())
    const res = await agent.request({ origin: target.origin, path: '/socks', method: 'GET' })
    assert.equal(await res.body.text(), 'h2 via tunnel /socks')
    assert.equal(target.sessions, sessions + 1)
  })
})
