import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { EnvHttpProxyAgent } from '../../presets/env-http-proxy-agent.js'
import { caCrt } from '../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'
import { startSocks5Server } from '../helpers/socks5-server.js'

const NAMES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'no_proxy', 'NO_PROXY']

/** Replaces the proxy variables for one test and restores them afterwards. */
function setEnv (t: TestContext, values: Record<string, string>): void {
  const saved = new Map(NAMES.map((name) => [name, process.env[name]]))
  for (const name of NAMES) delete process.env[name]
  Object.assign(process.env, values)
  t.after(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })
}

async function servers () {
  const http = await startHttpServer((req, res) => res.end(`plain ${req.url}`))
  const https = await startHttpsServer((req, res) => res.end(`secure ${req.url}`))
  const httpProxy = await startHttpProxy()
  const httpsProxy = await startHttpProxy()
  return {
    http,
    httpsOrigin: https.origin.replace('localhost', '127.0.0.1'),
    httpProxy,
    httpsProxy,
    close: () => Promise.all([http.close(), https.close(), httpProxy.close(), httpsProxy.close()])
  }
}

describe('EnvHttpProxyAgent', () => {
  it('sends each protocol through the proxy HTTP_PROXY or HTTPS_PROXY names', async (t) => {
    const s = await servers()
    setEnv(t, { HTTP_PROXY: s.httpProxy.url, HTTPS_PROXY: s.httpsProxy.url })
    const agent = new EnvHttpProxyAgent({ requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), s.close()]))
    assert.equal(await (await agent.request({ origin: s.http.origin, path: '/a', method: 'GET' })).body.text(), 'plain /a')
    assert.equal(await (await agent.request({ origin: s.httpsOrigin, path: '/b', method: 'GET' })).body.text(), 'secure /b')
    assert.deepEqual(s.httpProxy.requests.map((r) => r.method), ['GET'])
    assert.deepEqual(s.httpsProxy.requests.map((r) => r.method), ['CONNECT'])
  })

  it('goes direct for targets matching NO_PROXY and when no proxy is set', async (t) => {
    const s = await servers()
    setEnv(t, { http_proxy: s.httpProxy.url, no_proxy: `localhost,127.0.0.1:${s.http.port}` })
    const agent = new EnvHttpProxyAgent({ connect: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), s.close()]))
    assert.equal(await (await agent.request({ origin: s.http.origin, path: '/direct', method: 'GET' })).body.text(), 'plain /direct')
    // No https proxy is set; https_proxy would fall back to http_proxy, so name https direct explicitly.
    const secure = new EnvHttpProxyAgent({ httpsProxy: null, connect: { ca: caCrt } })
    t.after(() => secure.close())
    assert.equal(await (await secure.request({ origin: s.httpsOrigin, path: '/tls', method: 'GET' })).body.text(), 'secure /tls')
    assert.equal(s.httpProxy.requests.length, 0)
    assert.equal(s.http.requests.length, 1)
  })

  it('lets options override the environment', async (t) => {
    const s = await servers()
    setEnv(t, { HTTP_PROXY: s.httpProxy.url, NO_PROXY: '*' })
    const agent = new EnvHttpProxyAgent({ httpProxy: s.httpsProxy.url, noProxy: '' })
    t.after(() => Promise.all([agent.close(), s.close()]))
    await (await agent.request({ origin: s.http.origin, path: '/', method: 'GET' })).body.dump()
    assert.equal(s.httpProxy.requests.length, 0)
    assert.equal(s.httpsProxy.requests.length, 1)
  })

  it('uses ALL_PROXY, including a SOCKS5 one, when no protocol proxy is set', async (t) => {
    const s = await servers()
    const socks = await startSocks5Server()
    setEnv(t, { ALL_PROXY: socks.url })
    const agent = new EnvHttpProxyAgent({ requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), s.close(), socks.close()]))
    assert.equal(await (await agent.request({ origin: s.http.origin, path: '/s', method: 'GET' })).body.text(), 'plain /s')
    assert.equal(await (await agent.request({ origin: s.httpsOrigin, path: '/t', method: 'GET' })).body.text(), 'secure /t')
    assert.equal(socks.connects.length, 2)
  })

  it('throws InvalidArgumentError when the environment names an unusable proxy', (t) => {
    setEnv(t, { HTTPS_PROXY: 'ftp://127.0.0.1:21' })
    assert.throws(() => new EnvHttpProxyAgent(), { code: 'LIB_ERR_INVALID_ARG', message: /"ftp:"/ })
  })
})
