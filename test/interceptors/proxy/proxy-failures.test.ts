import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { ProxyAgent } from '../../../presets/proxy-agent.js'
import type { DispatchHandler } from '../../../src/handler.js'
import { caCrt, otherCaCrt, wrongCrt, wrongKey } from '../../helpers/certs.js'
import { startHttpServer, startHttpsServer, startTcpServer } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'

const CERTIFICATE_ERRORS = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'DEPTH_ZERO_SELF_SIGNED_CERT'])

/** A fake proxy that reads one request head and answers it with `answer` (or does what `onHead` says). */
function fakeProxy (onHead: (socket: Socket, head: string) => void) {
  const heads: string[] = []
  return startTcpServer((socket) => {
    let buffered = ''
    socket.on('error', () => socket.destroy())
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1')
      const end = buffered.indexOf('\r\n\r\n')
      if (end === -1) return
      const head = buffered.slice(0, end)
      buffered = buffered.slice(end + 4)
      heads.push(head)
      onHead(socket, head)
    })
  }).then((server) => Object.assign(server, { heads }))
}

/** Dispatches and records the hooks called, resolving at the terminal one. */
function record (agent: ProxyAgent, origin: string): Promise<{ events: string[], error: Error | undefined }> {
  return new Promise((resolve) => {
    const events: string[] = []
    const handler: DispatchHandler = {
      onResponseStart: (_c, status) => { events.push(`start ${status}`) },
      onResponseData: () => { events.push('data') },
      onResponseEnd: () => { events.push('end'); setImmediate(() => resolve({ events, error: undefined })) },
      onResponseError: (_c, err) => { events.push('error'); setImmediate(() => resolve({ events, error: err })) }
    }
    agent.dispatch({ origin, path: '/', method: 'GET' }, handler)
  })
}

describe('proxy failures', () => {
  it('fails once with the status when the proxy refuses CONNECT, without reconnecting', async (t) => {
    const proxyServer = await fakeProxy((socket) => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 6\r\n\r\nno way'))
    const agent = new ProxyAgent({ uri: proxyServer.origin, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), proxyServer.close()]))
    const { events, error } = await record(agent, 'https://127.0.0.1:9')
    assert.deepEqual(events, ['error'])
    assert.equal((error as Error & { code: string }).code, 'LIB_ERR_PROXY_CONNECT')
    assert.equal((error as Error & { statusCode: number }).statusCode, 403)
    assert.match(error?.message ?? '', /refused CONNECT to 127\.0\.0\.1:9: 403 Forbidden/)
    assert.equal(proxyServer.heads.length, 1)
    assert.equal(proxyServer.connections, 1)
  })

  it('fails the request once when the proxy drops the tunnel', async (t) => {
    const proxyServer = await fakeProxy((socket) => {
      socket.removeAllListeners('data')
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      socket.once('data', () => socket.destroy())
    })
    const agent = new ProxyAgent({ uri: proxyServer.origin, proxyTunnel: true })
    t.after(() => Promise.all([agent.close(), proxyServer.close()]))
    const { events, error } = await record(agent, 'http://127.0.0.1:9')
    assert.deepEqual(events, ['error'])
    assert.equal((error as Error & { code: string }).code, 'LIB_ERR_SOCKET')
    assert.equal(proxyServer.heads.length, 1)
  })

  it('fails when the target certificate does not verify against requestTls.ca', async (t) => {
    const target = await startHttpsServer((_req, res) => res.end('secret'))
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent({ uri: proxyServer.url, requestTls: { ca: otherCaCrt } })
    // The handshake never completes, so the server helper does not know the proxy's upstream socket.
    const raw = new Set<Socket>()
    target.server.on('connection', (socket: Socket) => raw.add(socket))
    t.after(async () => {
      await Promise.all([agent.close(), proxyServer.close()])
      for (const socket of raw) socket.destroy()
      await target.close()
    })
    const { events, error } = await record(agent, target.origin.replace('localhost', '127.0.0.1'))
    assert.deepEqual(events, ['error'])
    assert.ok(CERTIFICATE_ERRORS.has((error as Error & { code: string }).code), `unexpected ${String((error as Error & { code: string }).code)}`)
    assert.equal(target.requests.length, 0)
  })

  it('fails with SecureProxyConnectionError when the HTTPS proxy certificate does not match', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('x'))
    const proxyServer = await startHttpProxy({ tls: { key: wrongKey, cert: wrongCrt } })
    const agent = new ProxyAgent({ uri: proxyServer.url, proxyTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), target.close(), proxyServer.close()]))
    for (const origin of ['https://127.0.0.1:9', target.origin]) {
      const { events, error } = await record(agent, origin)
      assert.deepEqual(events, ['error'])
      assert.equal((error as Error & { code: string }).code, 'LIB_ERR_PRX_TLS')
      assert.equal(((error as Error).cause as Error & { code: string }).code, 'ERR_TLS_CERT_ALTNAME_INVALID')
    }
    assert.equal(target.requests.length, 0)
  })

  it('fails once when nothing listens at the proxy address', async (t) => {
    const closed = await startTcpServer(() => {})
    await closed.close()
    const agent = new ProxyAgent(closed.origin)
    t.after(() => agent.close())
    const { events, error } = await record(agent, 'https://127.0.0.1:9')
    assert.deepEqual(events, ['error'])
    assert.equal((error as Error & { code: string }).code, 'ECONNREFUSED')
  })

  it('gives up on a proxy that never answers CONNECT after connectTimeout', async (t) => {
    const proxyServer = await fakeProxy(() => {})
    const agent = new ProxyAgent({ uri: proxyServer.origin, connectTimeout: 50 })
    t.after(() => Promise.all([agent.close(), proxyServer.close()]))
    const { events, error } = await record(agent, 'https://127.0.0.1:9')
    assert.deepEqual(events, ['error'])
    assert.equal((error as Error & { code: string }).code, 'LIB_ERR_CONNECT_TIMEOUT')
    assert.match(error?.message ?? '', /no tunnel to 127\.0\.0\.1:9 through proxy http:\/\/127\.0\.0\.1:\d+ after 50 ms/)
  })

  it('rejects requests after close() with LIB_ERR_DESTROYED, as undici does', async (t) => {
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent(proxyServer.url)
    t.after(() => proxyServer.close())
    await agent.close()
    await assert.rejects(agent.request({ origin: 'http://127.0.0.1:9', path: '/', method: 'GET' }), { code: 'LIB_ERR_DESTROYED' })
    assert.equal(proxyServer.connections, 0)
  })

  it('fails requests in flight when destroyed', async (t) => {
    const target = await startHttpServer(() => {})
    const proxyServer = await startHttpProxy()
    const agent = new ProxyAgent(proxyServer.url)
    t.after(() => Promise.all([target.close(), proxyServer.close()]))
    const pending = agent.request({ origin: target.origin, path: '/hang', method: 'GET' })
    await new Promise<void>((resolve) => target.server.once('request', () => resolve()))
    await agent.destroy()
    await assert.rejects(pending, { code: 'LIB_ERR_DESTROYED' })
  })
})
