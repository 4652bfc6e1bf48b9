import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { AddressInfo } from 'node:net'
import { ProxyAgent } from '../../src/index.js'
import type { ProxyConnectedMessage } from '../../src/index.js'
import { startHttpServer, startTcpServer, trustTestCa } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'

describe('ProxyAgent connection to the proxy', () => {
  it('applies connectTimeout to an https: proxy reached without a tunnel', async (t) => {
    const silent = await startTcpServer(() => {})
    const agent = new ProxyAgent({ uri: `https://127.0.0.1:${(silent.server.address() as AddressInfo).port}`, connectTimeout: 40, proxyTls: trustTestCa })
    t.after(async () => { await agent.destroy(); await silent.close() })
    await assert.rejects(agent.request({ origin: 'http://target.test', path: '/', method: 'GET' }), {
      name: 'ConnectTimeoutError',
      code: 'LIB_ERR_CONNECT_TIMEOUT',
      message: /after 40 ms/
    })
  })

  it('applies connect.timeout the same way', async (t) => {
    const silent = await startTcpServer(() => {})
    const agent = new ProxyAgent({ uri: `https://127.0.0.1:${(silent.server.address() as AddressInfo).port}`, connect: { timeout: 30 }, proxyTls: trustTestCa } as never)
    t.after(async () => { await agent.destroy(); await silent.close() })
    await assert.rejects(agent.request({ origin: 'http://target.test', path: '/', method: 'GET' }), { code: 'LIB_ERR_CONNECT_TIMEOUT', message: /after 30 ms/ })
  })

  it('publishes conduit:proxy:connected with the connect params, proxy header values redacted', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('through'))
    const proxy = await startHttpProxy({ authorization: `Basic ${Buffer.from('u:secret').toString('base64')}` })
    const messages: ProxyConnectedMessage[] = []
    const onMessage = (message: unknown): void => { messages.push(message as ProxyConnectedMessage) }
    diagnosticsChannel.subscribe('conduit:proxy:connected', onMessage)
    const agent = new ProxyAgent({ uri: proxy.url.replace('http://', 'http://u:secret@'), proxyTunnel: true })
    t.after(async () => {
      diagnosticsChannel.unsubscribe('conduit:proxy:connected', onMessage)
      await agent.close()
      await proxy.close()
      await target.close()
    })
    const res = await agent.request({ origin: target.origin, path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'through')
    assert.equal(messages.length, 1)
    const params = messages[0]!.connectParams
    assert.deepEqual({ ...params, headers: { ...params.headers } }, {
      origin: proxy.url,
      port: proxy.port,
      path: `127.0.0.1:${target.port}`,
      headers: { host: `127.0.0.1:${target.port}`, 'proxy-connection': 'keep-alive', 'proxy-authorization': '[redacted]' },
      servername: null
    })
    assert.doesNotMatch(JSON.stringify(messages[0]!.connectParams), /secret|Basic/)
  })
})
