import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ProxyAgent } from '../../presets/proxy-agent.js'
import { EnvHttpProxyAgent } from '../../presets/env-http-proxy-agent.js'
import { caCrt, otherCaCrt } from '../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { HELPER_START_TIMEOUT_MS, startAll } from '../helpers/start-all.js'
import { startSquid } from './helpers/squid.js'
import type { Squid } from './helpers/squid.js'

const user = { username: 'conduit', password: 'p@ss word' }
const credentials = `${encodeURIComponent(user.username)}:${encodeURIComponent(user.password)}`

describe('through a real squid', () => {
  let open: Squid
  let authed: Squid
  let http: TestServer
  let https: TestServer
  let httpsOrigin: string

  before(async () => {
    [open, authed, http, https] = await startAll([
      startSquid(),
      startSquid({ auth: user }),
      startHttpServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers }))),
      startHttpsServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers })))
    ])
    httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
  }, { timeout: HELPER_START_TIMEOUT_MS })
  after(() => Promise.all([open?.stop(), authed?.stop(), http?.close(), https?.close()]))

  type Seen = { url: string, headers: Record<string, string | undefined> }

  it('forwards plain-HTTP targets as absolute-form requests', async (t) => {
    const agent = new ProxyAgent(open.url)
    t.after(() => agent.close())
    const res = await agent.request({ origin: http.origin, path: '/plain?x=1', method: 'GET' })
    const seen = await res.body.json() as Seen
    assert.equal(res.statusCode, 200)
    assert.equal(seen.url, '/plain?x=1')
    assert.equal(seen.headers.host, `127.0.0.1:${http.port}`)
    assert.match(seen.headers.via ?? '', /conduit-test/)
  })

  it('tunnels HTTPS targets through CONNECT, verified with requestTls.ca, reusing the tunnel', async (t) => {
    const agent = new ProxyAgent({ uri: open.url, requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    const before = https.connections
    for (const path of ['/s1', '/s2', '/s3']) {
      const seen = await (await agent.request({ origin: httpsOrigin, path, method: 'GET' })).body.json() as Seen
      assert.equal(seen.url, path)
      assert.equal(seen.headers.via, undefined)
    }
    assert.equal(https.connections - before, 1)
  })

  it('tunnels plain-HTTP targets too with proxyTunnel', async (t) => {
    const agent = new ProxyAgent({ uri: open.url, proxyTunnel: true })
    t.after(() => agent.close())
    const seen = await (await agent.request({ origin: http.origin, path: '/tunnelled', method: 'GET' })).body.json() as Seen
    assert.equal(seen.url, '/tunnelled')
    assert.equal(seen.headers.via, undefined)
  })

  it('fails when the target certificate does not verify against requestTls.ca', async (t) => {
    const agent = new ProxyAgent({ uri: open.url, requestTls: { ca: otherCaCrt } })
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: httpsOrigin, path: '/', method: 'GET' }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })
  })

  it('authenticates with basic credentials for both routes and keeps them from the target', async (t) => {
    const agent = new ProxyAgent({ uri: `http://${credentials}@127.0.0.1:${authed.port}`, requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    const plain = await (await agent.request({ origin: http.origin, path: '/a', method: 'GET' })).body.json() as Seen
    const secure = await (await agent.request({ origin: httpsOrigin, path: '/b', method: 'GET' })).body.json() as Seen
    assert.equal(plain.url, '/a')
    assert.equal(secure.url, '/b')
    assert.equal(plain.headers['proxy-authorization'], undefined)
    assert.equal(secure.headers['proxy-authorization'], undefined)
  })

  it('accepts the same credentials as a token', async (t) => {
    const token = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`
    const agent = new ProxyAgent({ uri: authed.url, token })
    t.after(() => agent.close())
    assert.equal((await agent.request({ origin: http.origin, path: '/', method: 'GET' })).statusCode, 200)
  })

  it('reports 407 from squid as a ProxyConnectionError on both routes', async (t) => {
    const agent = new ProxyAgent({ uri: `http://conduit:wrong@127.0.0.1:${authed.port}`, requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    for (const origin of [http.origin, httpsOrigin]) {
      await assert.rejects(agent.request({ origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_PROXY_CONNECT', statusCode: 407 })
    }
  })

  it('reports a CONNECT squid denies with its status', async (t) => {
    // The generated configuration only allows 127.0.0.1 destinations.
    const agent = new ProxyAgent(open.url)
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: 'https://127.0.0.2:443', path: '/', method: 'GET' }), { code: 'LIB_ERR_PROXY_CONNECT', statusCode: 403 })
  })

  it('follows HTTP_PROXY and NO_PROXY through EnvHttpProxyAgent', async (t) => {
    const agent = new EnvHttpProxyAgent({ httpProxy: open.url, noProxy: `127.0.0.1:${https.port}`, connect: { ca: caCrt } })
    t.after(() => agent.close())
    const proxied = await (await agent.request({ origin: http.origin, path: '/env', method: 'GET' })).body.json() as Seen
    const direct = await (await agent.request({ origin: httpsOrigin, path: '/env', method: 'GET' })).body.json() as Seen
    assert.match(proxied.headers.via ?? '', /conduit-test/)
    assert.equal(direct.headers.via, undefined)
  })
})
