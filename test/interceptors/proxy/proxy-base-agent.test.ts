import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, interceptors } from '../../../src/index.js'
import type { ProxyInterceptorOptions } from '../../../interceptors/proxy/index.js'
import { caCrt } from '../../helpers/certs.js'
import { startHttpServer, startHttpsServer, startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'
import { startSocks5Server } from '../../helpers/socks5-server.js'

/** A proxy of one kind, with a way to count the tunnels it opened. */
interface ProxyUnderTest {
  options: ProxyInterceptorOptions
  tunnels: () => number
  close: () => Promise<void>
}

const kinds: Record<string, () => Promise<ProxyUnderTest>> = {
  'an HTTP proxy': async () => {
    const proxy = await startHttpProxy()
    return { options: { uri: proxy.url }, tunnels: () => proxy.requests.filter((r) => r.method === 'CONNECT').length, close: proxy.close }
  },
  'an HTTPS proxy': async () => {
    const proxy = await startHttpProxy({ tls: true })
    return {
      options: { uri: proxy.url.replace('127.0.0.1', 'localhost'), proxyTls: { ca: caCrt } },
      tunnels: () => proxy.requests.filter((r) => r.method === 'CONNECT').length,
      close: proxy.close
    }
  },
  'a SOCKS5 proxy': async () => {
    const socks = await startSocks5Server()
    return { options: { uri: socks.url }, tunnels: () => socks.connects.length, close: socks.close }
  }
}

describe('proxy() routes through the Agent it is composed on', () => {
  let target: TestServer

  before(async () => {
    target = await startHttpsServer((_req, res) => res.end('through'))
  })

  after(() => target.close())

  for (const [kind, start] of Object.entries(kinds)) {
    describe(`with ${kind}`, () => {
      it('applies the Agent\'s connections limit and TLS options to the tunnelled requests', async (t) => {
        const proxy = await start()
        const agent = new Agent({ connections: 1, connect: { ca: caCrt } }).compose(interceptors.proxy(proxy.options))
        t.after(async () => { await agent.close(); await proxy.close() })
        const bodies = await Promise.all([1, 2, 3].map(async () => {
          const res = await agent.request({ origin: target.origin, path: '/', method: 'GET' })
          return `${res.statusCode} ${await res.body.text()}`
        }))
        assert.deepEqual(bodies, ['200 through', '200 through', '200 through'])
        assert.equal(proxy.tunnels(), 1)
      })

      it('verifies the target with the Agent\'s TLS options: without its CA the tunnelled request fails', async (t) => {
        const proxy = await start()
        const agent = new Agent().compose(interceptors.proxy(proxy.options))
        t.after(async () => { await agent.close(); await proxy.close() })
        await assert.rejects(agent.request({ origin: target.origin, path: '/', method: 'GET' }), (err: Error & { code?: string }) => {
          assert.match(String(err.code), /CERT|SIGNATURE|ISSUER/)
          return true
        })
      })
    })
  }

  for (const kind of ['http', 'https', 'socks5']) {
    it(`gives up on a ${kind} proxy that never answers after the Agent's connect.timeout`, async (t) => {
      const silent = await startTcpServer(() => {})
      const agent = new Agent({ connect: { timeout: 50, ca: caCrt } }).compose(interceptors.proxy({
        uri: silent.origin.replace('http:', `${kind}:`),
        proxyTls: { ca: caCrt }
      }))
      t.after(async () => { await agent.destroy(); await silent.close() })
      await assert.rejects(agent.request({ origin: target.origin, path: '/', method: 'GET' }), { name: 'ConnectTimeoutError', code: 'LIB_ERR_CONNECT_TIMEOUT' })
    })
  }

  it('sends absolute-form requests over the Agent\'s pool for the proxy, within its connections limit', async (t) => {
    const plain = await startHttpServer((_req, res) => res.end('plain'))
    const proxy = await startHttpProxy()
    const agent = new Agent({ connections: 1 }).compose(interceptors.proxy(proxy.url))
    t.after(async () => { await agent.close(); await proxy.close(); await plain.close() })
    const bodies = await Promise.all([1, 2, 3].map(async () => (await agent.request({ origin: plain.origin, path: '/', method: 'GET' })).body.text()))
    assert.deepEqual(bodies, ['plain', 'plain', 'plain'])
    assert.equal(proxy.requests.length, 3)
    assert.equal(proxy.connections, 1)
  })

  it('refuses a tunnelled request when composed on a Client, instead of sending it around the proxy', async (t) => {
    const proxy = await startHttpProxy()
    const client = new Client(target.origin, { connect: { ca: caCrt } }).compose(interceptors.proxy(proxy.url))
    t.after(async () => { await client.close(); await proxy.close() })
    const seen = target.requests.length
    await assert.rejects(client.request({ origin: target.origin, path: '/', method: 'GET' }), { name: 'NotSupportedError', code: 'LIB_ERR_NOT_SUPPORTED', message: /compose it on an Agent/ })
    assert.equal(target.requests.length, seen)
    assert.equal(proxy.requests.length, 0)
  })
})
