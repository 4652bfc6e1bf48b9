import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../src/dispatcher/agent.js'
import { proxy } from '../../interceptors/proxy/index.js'
import { ProxyAgent } from '../../presets/proxy-agent.js'
import { fetch } from '../../src/fetch/fetch.js'
import { getGlobalDispatcher, setGlobalDispatcher } from '../../src/global.js'
import { request } from '../../src/top-level.js'
import { caCrt } from '../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'

describe('ProxyAgent', () => {
  it('throws InvalidArgumentError without a proxy uri', () => {
    for (const bad of [undefined, null, {}, { uri: '' }, 42]) {
      assert.throws(() => new ProxyAgent(bad as never), { code: 'LIB_ERR_INVALID_ARG', message: /ProxyAgent: a proxy uri is required/ })
    }
  })

  it('throws InvalidArgumentError for a clientFactory that is not a function, auth with token, or a bad uri', () => {
    assert.throws(() => new ProxyAgent({ uri: 'http://127.0.0.1:1', clientFactory: {} as never }), { code: 'LIB_ERR_INVALID_ARG', message: /clientFactory must be a function, got \[object Object\]/ })
    assert.throws(() => new ProxyAgent({ uri: 'http://127.0.0.1:1', auth: 'a', token: 'b' }), { code: 'LIB_ERR_INVALID_ARG', message: /auth cannot be combined with token/ })
    assert.throws(() => new ProxyAgent('not a url'), { code: 'LIB_ERR_INVALID_ARG', message: /"not a url"/ })
  })

  it('accepts a string, a URL or an options object for the same proxy', async (t) => {
    const target = await startHttpServer((req, res) => res.end(req.url))
    const proxyServer = await startHttpProxy()
    const agents = [new ProxyAgent(proxyServer.url), new ProxyAgent(new URL(proxyServer.url)), new ProxyAgent({ uri: proxyServer.url })]
    t.after(() => Promise.all([...agents.map((a) => a.close()), target.close(), proxyServer.close()]))
    for (const agent of agents) {
      assert.equal(await (await agent.request({ origin: target.origin, path: '/x', method: 'GET' })).body.text(), '/x')
    }
    assert.equal(proxyServer.requests.length, 3)
  })

  it('answers like new Agent().compose(interceptors.proxy()) for the same requests', async (t) => {
    const http = await startHttpServer((req, res) => res.end(`${req.method} ${req.url} ${req.headers.host}`))
    const https = await startHttpsServer((req, res) => res.end(`${req.method} ${req.url} ${req.headers.host}`))
    const proxyServer = await startHttpProxy()
    const options = { uri: proxyServer.url, requestTls: { ca: caCrt } }
    const interceptor = proxy(options)
    const composed = new Agent().compose(interceptor)
    const preset = new ProxyAgent(options)
    t.after(() => Promise.all([composed.close(), interceptor.close(), preset.close(), http.close(), https.close(), proxyServer.close()]))
    for (const origin of [http.origin, https.origin.replace('localhost', '127.0.0.1')]) {
      const a = await composed.request({ origin, path: '/same?q=1', method: 'POST', body: 'x' })
      const b = await preset.request({ origin, path: '/same?q=1', method: 'POST', body: 'x' })
      assert.equal(a.statusCode, b.statusCode)
      assert.equal(await a.body.text(), await b.body.text())
    }
  })

  it('emits connect for the connections it opens and closes through a callback', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('ok'))
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent(proxyServer.url)
    t.after(() => Promise.all([target.close(), proxyServer.close()]))
    const connected: string[] = []
    agent.on('connect', (origin: URL | string) => connected.push(String(origin)))
    await (await agent.request({ origin: target.origin, path: '/', method: 'GET' })).body.dump()
    assert.ok(connected.length >= 1, 'no connect event')
    await new Promise<void>((resolve, reject) => agent.close((err) => (err ? reject(err) : resolve())))
    await proxyServer.idle()
  })

  it('works wherever a dispatcher is accepted: fetch and the global dispatcher', async (t) => {
    const http = await startHttpServer((req, res) => res.end(`plain ${req.url}`))
    const https = await startHttpsServer((req, res) => res.end(`secure ${req.url}`))
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, requestTls: { ca: caCrt } })
    const previous = getGlobalDispatcher()
    t.after(() => {
      setGlobalDispatcher(previous)
      return Promise.all([agent.close(), http.close(), https.close(), proxyServer.close()])
    })
    const httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
    assert.equal(await (await fetch(`${http.origin}/f`, { dispatcher: agent })).text(), 'plain /f')
    assert.equal(await (await fetch(`${httpsOrigin}/g`, { dispatcher: agent })).text(), 'secure /g')
    setGlobalDispatcher(agent)
    assert.equal(await (await request(`${http.origin}/global`)).body.text(), 'plain /global')
    assert.deepEqual(proxyServer.requests.map((r) => r.method), ['GET', 'CONNECT', 'GET'])
  })
})
