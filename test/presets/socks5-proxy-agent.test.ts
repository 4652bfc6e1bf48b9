import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../src/dispatcher/agent.js'
import { proxy } from '../../interceptors/proxy/index.js'
import { Socks5ProxyAgent } from '../../presets/socks5-proxy-agent.js'
import { startHttpServer } from '../helpers/servers.js'
import { startSocks5Server } from '../helpers/socks5-server.js'

describe('Socks5ProxyAgent', () => {
  it('answers like new Agent().compose(interceptors.proxy()) with the same SOCKS5 URI', async (t) => {
    const target = await startHttpServer((req, res) => res.end(`${req.url} ${req.headers.host}`))
    const socks = await startSocks5Server({ auth: { username: 'u', password: 'p' } })
    const uri = `socks5://u:p@127.0.0.1:${socks.port}`
    const interceptor = proxy(uri)
    const composed = new Agent().compose(interceptor)
    const preset = new Socks5ProxyAgent(uri)
    t.after(() => Promise.all([composed.close(), interceptor.close(), preset.close(), target.close(), socks.close()]))
    const a = await (await composed.request({ origin: target.origin, path: '/p', method: 'GET' })).body.text()
    const b = await (await preset.request({ origin: target.origin, path: '/p', method: 'GET' })).body.text()
    assert.equal(a, b)
    assert.deepEqual(socks.connects.map((c) => c.username), ['u', 'u'])
  })

  it('throws InvalidArgumentError for a URI that is not socks5:, socks5h: or socks:', () => {
    assert.throws(() => new Socks5ProxyAgent('https://127.0.0.1:1'), { code: 'LIB_ERR_INVALID_ARG', message: /Socks5ProxyAgent: uri must use socks5:, socks5h:, socks:, got "https:"/ })
  })
})
