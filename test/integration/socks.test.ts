import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ProxyAgent } from '../../presets/proxy-agent.js'
import { Socks5ProxyAgent } from '../../presets/socks5-proxy-agent.js'
import { caCrt, otherCaCrt } from '../helpers/certs.js'
import { startHttpServer, startHttpsServer, startTcpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { HELPER_START_TIMEOUT_MS, startAll } from '../helpers/start-all.js'
import { startMicrosocks } from './helpers/microsocks.js'
import type { Microsocks } from './helpers/microsocks.js'

const user = { username: 'conduit', password: 's3cret' }

describe('through a real SOCKS5 server (microsocks)', () => {
  let open: Microsocks
  let authed: Microsocks
  let http: TestServer
  let https: TestServer
  let httpsOrigin: string

  before(async () => {
    [open, authed, http, https] = await startAll([
      startMicrosocks(),
      startMicrosocks(user),
      startHttpServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers }))),
      startHttpsServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers })))
    ])
    httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
  }, { timeout: HELPER_START_TIMEOUT_MS })
  after(() => Promise.all([open?.stop(), authed?.stop(), http?.close(), https?.close()]))

  type Seen = { url: string, headers: Record<string, string | undefined> }

  it('carries HTTP and HTTPS requests, reusing one tunnel per origin', async (t) => {
    const agent = new ProxyAgent({ uri: open.url, requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    const before = https.connections
    assert.equal((await (await agent.request({ origin: http.origin, path: '/p', method: 'GET' })).body.json() as Seen).url, '/p')
    for (const path of ['/s1', '/s2']) {
      assert.equal((await (await agent.request({ origin: httpsOrigin, path, method: 'GET' })).body.json() as Seen).url, path)
    }
    assert.equal(https.connections - before, 1)
  })

  it('authenticates with username and password from the URI', async (t) => {
    const agent = new Socks5ProxyAgent(`socks5://${user.username}:${user.password}@127.0.0.1:${authed.port}`, { requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    const seen = await (await agent.request({ origin: httpsOrigin, path: '/auth', method: 'GET' })).body.json() as Seen
    assert.equal(seen.url, '/auth')
    assert.equal(seen.headers['proxy-authorization'], undefined)
  })

  it('fails with an authentication error for wrong credentials, without printing them', async (t) => {
    const agent = new Socks5ProxyAgent(`socks5://${user.username}:wrong-password@127.0.0.1:${authed.port}`)
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: http.origin, path: '/', method: 'GET' }), (err: Error & { code: string }) => {
      assert.equal(err.code, 'LIB_ERR_PROXY_CONNECT')
      assert.match(err.message, /SOCKS5 proxy socks5:\/\/127\.0\.0\.1:\d+ refused CONNECT/)
      assert.doesNotMatch(err.message, /wrong-password/)
      return true
    })
  })

  it('fails when the client offers no credentials to a server that requires them', async (t) => {
    const agent = new Socks5ProxyAgent(authed.url)
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: http.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_PROXY_CONNECT' })
  })

  it('reports the SOCKS reply when the target refuses the connection', async (t) => {
    const closed = await startTcpServer(() => {})
    await closed.close()
    const agent = new Socks5ProxyAgent(open.url)
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: closed.origin, path: '/', method: 'GET' }), {
      code: 'LIB_ERR_PROXY_CONNECT',
      message: /refused CONNECT to 127\.0\.0\.1:\d+: .*ConnectionRefused/
    })
  })

  it('fails when the target certificate does not verify against requestTls.ca', async (t) => {
    const agent = new Socks5ProxyAgent(open.url, { requestTls: { ca: otherCaCrt } })
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: httpsOrigin, path: '/', method: 'GET' }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })
  })
})
