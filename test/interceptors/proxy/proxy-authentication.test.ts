import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ProxyAgent } from '../../../presets/proxy-agent.js'
import type { DispatchHandler } from '../../../src/handler.js'
import { caCrt } from '../../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'

const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`

async function setup (authorization: string) {
  const http = await startHttpServer((_req, res) => res.end('plain'))
  const https = await startHttpsServer((_req, res) => res.end('secure'))
  const proxyServer = await startHttpProxy({ authorization })
  return {
    http,
    https,
    httpsOrigin: https.origin.replace('localhost', '127.0.0.1'),
    proxyServer,
    close: () => Promise.all([http.close(), https.close(), proxyServer.close()])
  }
}

describe('proxy authentication end to end', () => {
  it('authenticates with URL-decoded credentials from the URI, for CONNECT and absolute-form', async (t) => {
    const s = await setup(basic('us@er:p ss'))
    const agent = new ProxyAgent({ uri: `http://us%40er:p%20ss@127.0.0.1:${s.proxyServer.port}`, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), s.close()]))
    assert.equal(await (await agent.request({ origin: s.http.origin, path: '/', method: 'GET' })).body.text(), 'plain')
    assert.equal(await (await agent.request({ origin: s.httpsOrigin, path: '/', method: 'GET' })).body.text(), 'secure')
  })

  it('prefers token over auth over URI credentials', async (t) => {
    const s = await setup('Bearer the-token')
    const withToken = new ProxyAgent({ uri: `http://wrong:wrong@127.0.0.1:${s.proxyServer.port}`, token: 'Bearer the-token' })
    const withAuth = new ProxyAgent({ uri: `http://wrong:wrong@127.0.0.1:${s.proxyServer.port}`, auth: Buffer.from('a:b').toString('base64') })
    t.after(() => Promise.all([withToken.close(), withAuth.close(), s.close()]))
    assert.equal((await withToken.request({ origin: s.http.origin, path: '/', method: 'GET' })).statusCode, 200)
    await assert.rejects(withAuth.request({ origin: s.http.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_PROXY_CONNECT', statusCode: 407 })
    assert.deepEqual(s.proxyServer.requests.map((r) => r.headers['proxy-authorization']), ['Bearer the-token', basic('a:b')])
  })

  it('never lets proxy credentials reach the target server', async (t) => {
    const s = await setup(basic('u:p'))
    const agent = new ProxyAgent({ uri: `http://u:p@127.0.0.1:${s.proxyServer.port}`, requestTls: { ca: caCrt }, proxyTunnel: false })
    t.after(() => Promise.all([agent.close(), s.close()]))
    await (await agent.request({ origin: s.http.origin, path: '/', method: 'GET' })).body.dump()
    await (await agent.request({ origin: s.httpsOrigin, path: '/', method: 'GET' })).body.dump()
    assert.equal(s.http.requests[0]?.headers['proxy-authorization'], undefined)
    assert.equal(s.https.requests[0]?.headers['proxy-authorization'], undefined)
  })

  it('fails a refused CONNECT with a ProxyConnectionError carrying 407, once', async (t) => {
    const s = await setup(basic('u:p'))
    const agent = new ProxyAgent({ uri: `http://127.0.0.1:${s.proxyServer.port}`, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), s.close()]))
    await assert.rejects(agent.request({ origin: s.httpsOrigin, path: '/', method: 'GET' }), (err: Error & { code: string, statusCode: number }) => {
      assert.equal(err.code, 'LIB_ERR_PROXY_CONNECT')
      assert.equal(err.statusCode, 407)
      assert.match(err.message, /refused CONNECT to 127\.0\.0\.1:\d+: 407/)
      return true
    })
    assert.equal(s.proxyServer.requests.length, 1)
    assert.equal(s.https.connections, 0)
  })

  it('turns a 407 to an absolute-form request into an error without delivering the 407 response', async (t) => {
    const s = await setup(basic('u:p'))
    const agent = new ProxyAgent(`http://127.0.0.1:${s.proxyServer.port}`)
    t.after(() => Promise.all([agent.close(), s.close()]))
    const events: string[] = []
    const error = await new Promise<Error>((resolve) => {
      const handler: DispatchHandler = {
        onResponseStart: (_c, status) => { events.push(`start ${status}`) },
        onResponseData: () => { events.push('data') },
        onResponseEnd: () => { events.push('end') },
        onResponseError: (_c, err) => { events.push('error'); resolve(err) }
      }
      agent.dispatch({ origin: s.http.origin, path: '/', method: 'GET' }, handler)
    })
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(events, ['error'])
    assert.equal((error as Error & { statusCode: number }).statusCode, 407)
    assert.equal((error as Error & { code: string }).code, 'LIB_ERR_PROXY_CONNECT')
  })

  it('throws InvalidArgumentError when a request carries its own proxy-authorization', async (t) => {
    const s = await setup(basic('u:p'))
    const agent = new ProxyAgent(`http://127.0.0.1:${s.proxyServer.port}`)
    t.after(() => Promise.all([agent.close(), s.close()]))
    const handler: DispatchHandler = {}
    assert.throws(() => agent.dispatch({ origin: s.http.origin, path: '/', method: 'GET', headers: { 'Proxy-Authorization': 'x' } }, handler), { code: 'LIB_ERR_INVALID_ARG', message: /proxy-authorization/ })
    assert.throws(() => agent.dispatch({ origin: s.http.origin, path: '/', method: 'GET', headers: ['proxy-authorization', 'x'] }, handler), { code: 'LIB_ERR_INVALID_ARG' })
    await assert.rejects(agent.request({ origin: s.http.origin, path: '/', method: 'GET', headers: { 'proxy-authorization': 'x' } }), { code: 'LIB_ERR_INVALID_ARG' })
    assert.equal(s.proxyServer.connections, 0)
  })
})
