/**
 * Connection options and proxies through undici and conduit: connect.lookup, socketPath handed
 * to a custom connector, HTTPS to a target addressed by IP through CONNECT and SOCKS5 tunnels,
 * and retry's errorCodes in undici's spelling.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import tls from 'node:tls'
import { both, caught } from './harness.js'
import type { Lib } from './harness.js'
import { startCompatServer } from './compat-server.js'
import { startHttpsServer, startTcpServer, trustTestCa } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'
import { startSocks5Server } from '../helpers/socks5-server.js'
import { UNDICI_MAJOR } from '../helpers/undici-reference.js'

let server: TestServer
let secure: TestServer

before(async () => {
  server = await startCompatServer()
  secure = await startHttpsServer((_req, res) => res.end('secure'))
})
after(async () => {
  await server.close()
  await secure.close()
})

async function text (dispatcher: any, origin: string, path = '/'): Promise<string> {
  const res = await dispatcher.request({ origin, path, method: 'GET' })
  return res.body.text()
}

describe('connection options compared with undici', () => {
  it('resolve an http: origin with connect.lookup', async () => {
    const seen = await both(async (lib: Lib) => {
      const looked: string[] = []
      const agent = new lib.Agent({
        connect: {
          lookup (hostname: string, options: unknown, callback: (...args: unknown[]) => void) {
            looked.push(hostname)
            const all = (options as { all?: boolean }).all === true
            if (all) callback(null, [{ address: '127.0.0.1', family: 4 }])
            else callback(null, '127.0.0.1', 4)
          }
        }
      })
      const body = JSON.parse(await text(agent, `http://looked-up.test:${server.port}`, '/echo'))
      await agent.close()
      return { looked: [...new Set(looked)], host: body.headers.host }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit.looked, ['looked-up.test'])
  })

  it('give a custom connect() function the socketPath option', async () => {
    const seen = await both(async (lib: Lib) => {
      let socketPath: unknown
      const client = new lib.Client(server.origin, {
        socketPath: '/nonexistent/conduit.sock',
        connect (options: Record<string, unknown>, callback: (err: Error | null, socket: net.Socket | null) => void) {
          socketPath = options.socketPath
          const socket = net.connect(server.port, '127.0.0.1')
          socket.once('connect', () => callback(null, socket)).once('error', (err) => callback(err, null))
        }
      })
      const status = (await client.request({ path: '/echo', method: 'GET' })).statusCode
      await client.close()
      return { socketPath, status }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.equal(seen.conduit.socketPath, '/nonexistent/conduit.sock')
  })
})

/** Whether this runtime's TLS throws for an IP address as the server name (older ones only warn). */
function runtimeRefusesIpServerName (): boolean {
  try {
    // Port 1 on loopback: nothing listens, and the socket is destroyed before it could connect.
    const socket = tls.connect({ host: '127.0.0.1', port: 1, servername: '127.0.0.1' })
    socket.on('error', () => {})
    socket.destroy()
    return false
  } catch (err) {
    return (err as { code?: string }).code === 'ERR_INVALID_ARG_VALUE'
  }
}

describe('HTTPS to a target addressed by IP through a tunnel, compared with undici', () => {
  /** Requests the HTTPS server by IP through the agent `make` builds, recording which host names the certificate is checked against. */
  async function throughTunnel (make: (requestTls: object) => any): Promise<unknown> {
    const checked: string[] = []
    const agent = make({ ...trustTestCa, checkServerIdentity: (host: string, cert: tls.PeerCertificate) => { checked.push(host); return tls.checkServerIdentity(host, cert) } })
    const outcome = await caught(text(agent, `https://127.0.0.1:${secure.port}`))
    await agent.close()
    return { outcome, checked }
  }

  it('checks the certificate against the IP through a CONNECT proxy', async (t) => {
    const proxy = await startHttpProxy()
    t.after(() => proxy.close())
    const seen = await both((lib: Lib) => throughTunnel((requestTls) => new lib.ProxyAgent({ uri: proxy.url, requestTls })))
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { outcome: { value: 'secure' }, checked: ['127.0.0.1'] })
  })

  it('checks the certificate against the IP through a SOCKS5 proxy, with username and password options', async (t) => {
    const socks = await startSocks5Server({ auth: { username: 'user', password: 'p@ss' } })
    t.after(() => socks.close())
    const seen = await both((lib: Lib) => throughTunnel((requestTls) => new lib.Socks5ProxyAgent(socks.url, { username: 'user', password: 'p@ss', requestTls })))
    assert.deepEqual(seen.conduit, { outcome: { value: 'secure' }, checked: ['127.0.0.1'] })
    // undici (7.30 and 8) hands the IP to TLS as the server name through SOCKS5; a runtime that refuses an IP
    // there (Node 26) fails it before the handshake (docs/undici-differences.md).
    const undiciFails = runtimeRefusesIpServerName()
    assert.deepEqual(seen.undici, undiciFails ? { outcome: { error: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' }, checked: [] } : seen.conduit)
    assert.deepEqual(socks.connects.map((c) => c.username), ['user', 'user'])
  })
})

describe('Socks5ProxyAgent options compared with undici', () => {
  it('opens the connection to the proxy with the connect option', async (t) => {
    const socks = await startSocks5Server()
    t.after(() => socks.close())
    const seen = await both(async (lib: Lib) => {
      const asked: string[] = []
      const agent = new lib.Socks5ProxyAgent(socks.url, {
        connect (options: { hostname: string }, callback: (err: Error | null, socket: net.Socket | null) => void) {
          asked.push(options.hostname)
          const socket = net.connect(socks.port, '127.0.0.1')
          socket.once('connect', () => callback(null, socket)).once('error', (err) => callback(err, null))
        }
      })
      const outcome = await caught(text(agent, server.origin, '/status/201'))
      await agent.close()
      return { outcome, asked }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { outcome: { value: 'status 201' }, asked: ['127.0.0.1'] })
  })
})

describe('retry errorCodes compared with undici', () => {
  it('retries on an error code written in undici\'s spelling', async (t) => {
    let calls = 0
    const flaky = await startTcpServer((socket) => {
      calls++
      socket.once('data', () => {
        if (calls === 1) socket.destroy()
        else socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok')
      })
    })
    t.after(() => flaky.close())
    const seen = await both(async (lib: Lib) => {
      calls = 0
      const agent = new lib.Agent().compose(lib.interceptors.retry({ errorCodes: ['UND_ERR_SOCKET'], minTimeout: 1, maxRetries: 2 }))
      const outcome = await caught(text(agent, flaky.origin))
      await agent.close()
      return { outcome, calls }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { outcome: { value: 'ok' }, calls: 2 })
  })
})
