import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { openSocksTunnel } from '../../../interceptors/proxy/socks.js'
import { resolveProxy } from '../../../interceptors/proxy/proxy-options.js'
import { ProxyAgent } from '../../../presets/proxy-agent.js'
import { Socks5ProxyAgent } from '../../../presets/socks5-proxy-agent.js'
import { caCrt } from '../../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../../helpers/servers.js'
import { SocksReply, startSocks5Server } from '../../helpers/socks5-server.js'

function tunnel (uri: string, hostname: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    openSocksTunnel(resolveProxy(uri, {}), { hostname, port }, 2000, (err, socket) => {
      if (err !== null) reject(err)
      else resolve(socket as Socket)
    })
  })
}

function get (socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { text += chunk })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
    socket.write('GET /through HTTP/1.1\r\nhost: target\r\nconnection: close\r\n\r\n')
  })
}

describe('SOCKS tunnels', () => {
  it('loads the socks package when the first SOCKS tunnel opens, not with the library', async (t) => {
    // The package holds heap that every full collection marks: a process with no SOCKS proxy keeps none of it.
    const loaded = "console.log(Object.keys((await import('node:module')).createRequire(process.cwd() + '/').cache).filter((f) => f.includes('/node_modules/socks/')).length)"
    const index = new URL('../../../src/index.js', import.meta.url).href
    const run = (code: string): string => execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 }).trim()
    assert.equal(run(`await import(${JSON.stringify(index)}); ${loaded}`), '0')
    const target = await startHttpServer((_req, res) => res.end('hello'))
    const socks = await startSocks5Server()
    t.after(() => Promise.all([target.close(), socks.close()]))
    const socket = await tunnel(`socks5://127.0.0.1:${socks.port}`, '127.0.0.1', target.port)
    assert.match(await get(socket), /hello$/)
    assert.notEqual(Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/socks/')).length, 0)
  })

  it('reaches the target through a SOCKS5 proxy with username/password auth', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('hello'))
    const socks = await startSocks5Server({ auth: { username: 'us er', password: 'p@ss' } })
    t.after(() => Promise.all([target.close(), socks.close()]))
    const socket = await tunnel(`socks5://us%20er:p%40ss@127.0.0.1:${socks.port}`, '127.0.0.1', target.port)
    assert.match(await get(socket), /^HTTP\/1\.1 200[\s\S]*hello$/)
    assert.deepEqual(socks.connects, [{ addressType: 1, host: '127.0.0.1', port: target.port, username: 'us er', version: 5 }])
  })

  it('resolves names locally for socks5: and at the proxy for socks5h:', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('ok'))
    const socks = await startSocks5Server()
    t.after(() => Promise.all([target.close(), socks.close()]))
    await get(await tunnel(`socks5h://127.0.0.1:${socks.port}`, 'localhost', target.port))
    assert.deepEqual(socks.connects[0], { addressType: 3, host: 'localhost', port: target.port, username: undefined, version: 5 })
    await get(await tunnel(`socks5://127.0.0.1:${socks.port}`, 'localhost', target.port)).catch(() => '')
    assert.notEqual(socks.connects[1]?.addressType, 3)
  })

  it('fails with the SOCKS reply when the proxy refuses the CONNECT', async (t) => {
    const socks = await startSocks5Server({ reply: SocksReply.connectionRefused })
    t.after(() => socks.close())
    await assert.rejects(tunnel(`socks5://127.0.0.1:${socks.port}`, '127.0.0.1', 9), {
      code: 'LIB_ERR_PROXY_CONNECT',
      message: /SOCKS5 proxy socks5:\/\/127\.0\.0\.1:\d+ refused CONNECT to 127\.0\.0\.1:9: .*ConnectionRefused/
    })
  })

  it('fails with an authentication error and never repeats the password', async (t) => {
    const socks = await startSocks5Server({ auth: { username: 'u', password: 'right' } })
    t.after(() => socks.close())
    await assert.rejects(tunnel(`socks5://u:wrong-secret@127.0.0.1:${socks.port}`, '127.0.0.1', 9), (err: Error & { code: string }) => {
      assert.equal(err.code, 'LIB_ERR_PROXY_CONNECT')
      assert.match(err.message, /Authentication failed/i)
      assert.doesNotMatch(`${err.message} ${String(err.cause)}`, /wrong-secret/)
      return true
    })
  })

  it('fails when the proxy requires auth the client did not offer', async (t) => {
    const socks = await startSocks5Server({ auth: { username: 'u', password: 'p' } })
    t.after(() => socks.close())
    await assert.rejects(tunnel(`socks5://127.0.0.1:${socks.port}`, '127.0.0.1', 9), { code: 'LIB_ERR_PROXY_CONNECT' })
  })

  it('fails when nothing listens at the proxy address', async () => {
    const socks = await startSocks5Server()
    await socks.close()
    await assert.rejects(tunnel(`socks5://127.0.0.1:${socks.port}`, '127.0.0.1', 9), { code: 'LIB_ERR_PROXY_CONNECT', message: /ECONNREFUSED/ })
  })
})

describe('SOCKS proxies through the proxy interceptor', () => {
  it('sends HTTP and HTTPS requests through a SOCKS5 proxy with credentials from the URI', async (t) => {
    const http = await startHttpServer((req, res) => res.end(`plain ${req.url}`))
    const https = await startHttpsServer((req, res) => res.end(`secure ${req.url}`))
    const socks = await startSocks5Server({ auth: { username: 'u', password: 'p' } })
    const agent = new ProxyAgent({ uri: `socks5://u:p@127.0.0.1:${socks.port}`, requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), http.close(), https.close(), socks.close()]))
    assert.equal(await (await agent.request({ origin: http.origin, path: '/a', method: 'GET' })).body.text(), 'plain /a')
    assert.equal(await (await agent.request({ origin: https.origin.replace('localhost', '127.0.0.1'), path: '/b', method: 'GET' })).body.text(), 'secure /b')
    assert.equal(await (await agent.request({ origin: http.origin, path: '/c', method: 'GET' })).body.text(), 'plain /c')
    assert.deepEqual(socks.connects.map((c) => c.port), [http.port, https.port])
    assert.equal(http.requests[0]?.headers['proxy-authorization'], undefined)
  })

  it('lets a socks5h: proxy resolve the target name', async (t) => {
    const https = await startHttpsServer((_req, res) => res.end('named'))
    const socks = await startSocks5Server()
    const agent = new Socks5ProxyAgent(`socks5h://127.0.0.1:${socks.port}`, { requestTls: { ca: caCrt } })
    t.after(() => Promise.all([agent.close(), https.close(), socks.close()]))
    assert.equal(await (await agent.request({ origin: https.origin, path: '/', method: 'GET' })).body.text(), 'named')
    assert.deepEqual(socks.connects.map((c) => `${c.addressType} ${c.host}`), ['3 localhost'])
  })

  it('fails the request once with the SOCKS reply when the proxy refuses', async (t) => {
    const socks = await startSocks5Server({ reply: SocksReply.notAllowed })
    const agent = new Socks5ProxyAgent(socks.url)
    t.after(() => Promise.all([agent.close(), socks.close()]))
    await assert.rejects(agent.request({ origin: 'http://127.0.0.1:9', path: '/', method: 'GET' }), { code: 'LIB_ERR_PROXY_CONNECT', message: /NotAllowed/ })
    assert.equal(socks.connections, 1)
  })

  it('speaks SOCKS4 with the user id from the URI, and SOCKS4a with the name for the proxy to resolve', async (t) => {
    const target = await startHttpServer((req, res) => res.end(`v4 ${req.url}`))
    const socks = await startSocks5Server({ auth: { username: 'ident', password: '' } })
    const v4 = new ProxyAgent(`socks4://ident@127.0.0.1:${socks.port}`)
    const v4a = new ProxyAgent(`socks4a://ident@127.0.0.1:${socks.port}`)
    t.after(() => Promise.all([v4.close(), v4a.close(), target.close(), socks.close()]))
    assert.equal(await (await v4.request({ origin: `http://localhost:${target.port}`, path: '/a', method: 'GET' })).body.text(), 'v4 /a')
    assert.equal(await (await v4a.request({ origin: `http://localhost:${target.port}`, path: '/b', method: 'GET' })).body.text(), 'v4 /b')
    assert.deepEqual(socks.connects, [
      { addressType: 1, host: '127.0.0.1', port: target.port, username: 'ident', version: 4 },
      { addressType: 3, host: 'localhost', port: target.port, username: 'ident', version: 4 }
    ])
  })

  it('fails with the SOCKS4 rejection when the proxy refuses', async (t) => {
    const socks = await startSocks5Server({ reply: SocksReply.notAllowed })
    const agent = new ProxyAgent(`socks4://127.0.0.1:${socks.port}`)
    t.after(() => Promise.all([agent.close(), socks.close()]))
    await assert.rejects(agent.request({ origin: 'http://127.0.0.1:9', path: '/', method: 'GET' }), { code: 'LIB_ERR_PROXY_CONNECT', message: /SOCKS4 proxy socks4:\/\/127\.0\.0\.1:\d+ refused CONNECT to 127\.0\.0\.1:9: Socks4 Proxy rejected connection - \(Failed\)/ })
  })

  it('rejects a Socks5ProxyAgent URI that is not SOCKS5', () => {
    assert.throws(() => new Socks5ProxyAgent('http://127.0.0.1:3128'), { code: 'LIB_ERR_INVALID_ARG', message: /got "http:"/ })
    assert.throws(() => new Socks5ProxyAgent('socks4://127.0.0.1:1080'), { code: 'LIB_ERR_INVALID_ARG' })
    assert.throws(() => new Socks5ProxyAgent(undefined as never), { code: 'LIB_ERR_INVALID_ARG' })
  })
})
