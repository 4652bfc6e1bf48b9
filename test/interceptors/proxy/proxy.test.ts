import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../../src/dispatcher/agent.js'
import { Pool } from '../../../src/dispatcher/pool.js'
import { proxy } from '../../../interceptors/proxy/index.js'
import { ProxyAgent } from '../../../presets/proxy-agent.js'
import { caCrt } from '../../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'

const echo = (req: { url?: string | undefined, headers: Record<string, unknown> }, res: { setHeader: Function, end: Function }): void => {
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify({ url: req.url, headers: req.headers }))
}

async function startTargets () {
  const http = await startHttpServer(echo as never)
  const https = await startHttpsServer(echo as never)
  // The test certificate names 127.0.0.1 too; an IP origin keeps name resolution out of the tests.
  return { http, https, httpsOrigin: https.origin.replace('localhost', '127.0.0.1'), close: () => Promise.all([http.close(), https.close()]) }
}

describe('proxy interceptor routing', () => {
  it('sends plain-HTTP targets as absolute-form requests with a host header from the origin', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent(proxyServer.url)
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))

    const res = await agent.request({ origin: targets.http.origin, path: '/a?b=1', method: 'GET' })
    const seen = await res.body.json() as { url: string, headers: Record<string, string> }
    assert.equal(res.statusCode, 200)
    assert.equal(seen.url, '/a?b=1')
    assert.equal(seen.headers.host, `127.0.0.1:${targets.http.port}`)
    assert.deepEqual(proxyServer.requests.map((r) => `${r.method} ${r.url}`), [`GET ${targets.http.origin}/a?b=1`])
  })

  it('keeps a host header the caller set', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent(proxyServer.url)
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET', headers: { Host: 'custom.test' } })).body.dump()
    assert.equal(proxyServer.requests[0]?.headers.host, 'custom.test')
  })

  it('tunnels HTTPS targets through CONNECT and verifies them with requestTls.ca', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))

    const res = await agent.request({ origin: targets.httpsOrigin, path: '/secure', method: 'GET' })
    const seen = await res.body.json() as { url: string, headers: Record<string, string> }
    assert.equal(seen.url, '/secure')
    assert.equal(seen.headers.host, `127.0.0.1:${targets.https.port}`)
    const connect = proxyServer.requests[0]
    assert.equal(connect?.method, 'CONNECT')
    assert.equal(connect?.url, `127.0.0.1:${targets.https.port}`)
    assert.equal(connect?.headers.host, `127.0.0.1:${targets.https.port}`)
    assert.equal(connect?.headers['proxy-connection'], 'keep-alive')
  })

  it('sets up the tunnel lazily and reuses it for later requests to the same origin', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    assert.equal(proxyServer.connections, 0)
    for (let i = 0; i < 3; i++) {
      await (await agent.request({ origin: targets.httpsOrigin, path: `/${i}`, method: 'GET' })).body.dump()
    }
    assert.equal(proxyServer.requests.filter((r) => r.method === 'CONNECT').length, 1)
    assert.equal(targets.https.connections, 1)
  })

  it('tunnels plain-HTTP targets too when proxyTunnel is true', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, proxyTunnel: true })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    const res = await agent.request({ origin: targets.http.origin, path: '/t', method: 'GET' })
    assert.equal((await res.body.json() as { url: string }).url, '/t')
    assert.deepEqual(proxyServer.requests.map((r) => r.method), ['CONNECT'])
  })

  it('leaves out proxy-connection on CONNECT when connections is 0', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, proxyTunnel: true, connections: 0 })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET' })).body.dump()
    assert.equal(proxyServer.requests[0]?.method, 'CONNECT')
    assert.equal(proxyServer.requests[0]?.headers['proxy-connection'], undefined)
  })

  it('sends the headers option to the proxy on CONNECT and on absolute-form requests, never to the target', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, headers: { 'x-proxy-note': 'n1' }, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    const tunnelled = await (await agent.request({ origin: targets.httpsOrigin, path: '/', method: 'GET' })).body.json() as { headers: Record<string, string> }
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET' })).body.dump()
    assert.deepEqual(proxyServer.requests.map((r) => r.headers['x-proxy-note']), ['n1', 'n1'])
    assert.equal(tunnelled.headers['x-proxy-note'], undefined)
  })

  it('reaches HTTPS and HTTP targets through an HTTPS proxy verified with proxyTls', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy({ tls: true })
    const agent = new ProxyAgent({ uri: proxyServer.url, proxyTls: { ca: caCrt }, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    assert.equal((await (await agent.request({ origin: targets.httpsOrigin, path: '/s', method: 'GET' })).body.json() as { url: string }).url, '/s')
    assert.equal((await (await agent.request({ origin: targets.http.origin, path: '/p', method: 'GET' })).body.json() as { url: string }).url, '/p')
    assert.deepEqual(proxyServer.requests.map((r) => r.method), ['CONNECT', 'GET'])
  })

  it('uses clientFactory to build the dispatcher that talks to the proxy', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const calls: string[] = []
    const agent = new ProxyAgent({
      uri: proxyServer.url,
      clientFactory: (origin, opts) => { calls.push(origin.href); return new Pool(origin, opts) }
    })
    t.after(() => Promise.all([agent.close(), targets.close(), proxyServer.close()]))
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET' })).body.dump()
    assert.deepEqual(calls, [`${proxyServer.url}/`])
  })

  it('sends targets matching noProxy direct through the composed dispatcher', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const interceptor = proxy({ uri: proxyServer.url, noProxy: `127.0.0.1:${targets.http.port}` })
    const agent = new Agent().compose(interceptor)
    t.after(() => Promise.all([agent.close(), interceptor.close(), targets.close(), proxyServer.close()]))
    await (await agent.request({ origin: targets.http.origin, path: '/direct', method: 'GET' })).body.dump()
    assert.equal(proxyServer.requests.length, 0)
    assert.equal(targets.http.requests[0]?.url, '/direct')
  })

  it('routes each protocol to its own proxy and sends a protocol without one direct', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    const interceptor = proxy({ httpProxy: proxyServer.url, httpsProxy: null })
    const agent = new Agent({ connect: { ca: caCrt } }).compose(interceptor)
    t.after(() => Promise.all([agent.close(), interceptor.close(), targets.close(), proxyServer.close()]))
    await (await agent.request({ origin: targets.httpsOrigin, path: '/', method: 'GET' })).body.dump()
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET' })).body.dump()
    assert.deepEqual(proxyServer.requests.map((r) => r.method), ['GET'])
  })

  it('behaves as new Agent().compose(proxy()) and closes the proxy connections on close()', { timeout: 10_000 }, async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    t.after(() => Promise.all([targets.close(), proxyServer.close()]))
    const interceptor = proxy(proxyServer.url)
    const composed = new Agent().compose(interceptor)
    const preset = new ProxyAgent(proxyServer.url)
    const a = await (await composed.request({ origin: targets.http.origin, path: '/same', method: 'GET' })).body.json()
    const b = await (await preset.request({ origin: targets.http.origin, path: '/same', method: 'GET' })).body.json()
    assert.deepEqual(a, b)
    assert.equal(proxyServer.open(), 2)
    await Promise.all([composed.close(), interceptor.close(), preset.close()])
    await proxyServer.idle()
    assert.equal(proxyServer.open(), 0)
  })

  it('tunnels protocol upgrades to plain-HTTP targets and hands over the upgraded socket', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('no upgrade'))
    target.server.on('upgrade', (_req, socket) => {
      socket.end('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\nhello')
    })
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent(proxyServer.url)
    t.after(() => Promise.all([agent.close(), target.close(), proxyServer.close()]))
    const { status, data } = await new Promise<{ status: number, data: string }>((resolve, reject) => {
      agent.dispatch({ origin: target.origin, path: '/ws', method: 'GET', upgrade: 'echo' }, {
        onRequestUpgrade: (_c, status, _h, socket) => {
          let data = ''
          socket.on('data', (chunk: Buffer) => { data += chunk.toString() })
          socket.on('end', () => resolve({ status, data }))
          socket.resume()
        },
        onResponseError: (_c, err) => reject(err)
      })
    })
    assert.equal(status, 101)
    assert.equal(data, 'hello')
    assert.deepEqual(proxyServer.requests.map((r) => r.method), ['CONNECT'])
  })
})

describe('proxy interceptor lifecycle under compose', () => {
  it('closes its proxy connections when the composed dispatcher closes, and refuses later requests', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    t.after(() => Promise.all([targets.close(), proxyServer.close()]))
    const agent = new Agent().compose(proxy({ uri: proxyServer.url, requestTls: { ca: caCrt } }))
    await (await agent.request({ origin: targets.httpsOrigin, path: '/', method: 'GET' })).body.dump()
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET' })).body.dump()
    assert.equal(proxyServer.requests.length, 2)
    await agent.close()
    await assert.rejects(agent.request({ origin: targets.http.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
    assert.equal(proxyServer.requests.length, 2)
  })

  it('destroys its proxy connections when the composed dispatcher is destroyed', async (t) => {
    const targets = await startTargets()
    const proxyServer = await startHttpProxy()
    t.after(() => Promise.all([targets.close(), proxyServer.close()]))
    const agent = new Agent().compose(proxy(proxyServer.url))
    await (await agent.request({ origin: targets.http.origin, path: '/', method: 'GET' })).body.dump()
    await agent.destroy()
    await assert.rejects(agent.request({ origin: targets.http.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
  })
})
