import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { openSocksTunnel } from '../../interceptors/proxy/socks.js'
import { resolveProxy } from '../../interceptors/proxy/proxy-options.js'
import { startHttpServer } from '../helpers/servers.js'
import { SocksReply, startSocks5Server } from '../helpers/socks5-server.js'

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
  it('reaches the target through a SOCKS5 proxy with username/password auth', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('hello'))
    const socks = await startSocks5Server({ auth: { username: 'us er', password: 'p@ss' } })
    t.after(() => Promise.all([target.close(), socks.close()]))
    const socket = await tunnel(`socks5://us%20er:p%40ss@127.0.0.1:${socks.port}`, '127.0.0.1', target.port)
    assert.match(await get(socket), /^HTTP\/1\.1 200[\s\S]*hello$/)
    assert.deepEqual(socks.connects, [{ addressType: 1, host: '127.0.0.1', port: target.port, username: 'us er' }])
  })

  it('resolves names locally for socks5: and at the proxy for socks5h:', async (t) => {
    const target = await startHttpServer((_req, res) => res.end('ok'))
    const socks = await startSocks5Server()
    t.after(() => Promise.all([target.close(), socks.close()]))
    await get(await tunnel(`socks5h://127.0.0.1:${socks.port}`, 'localhost', target.port))
    assert.deepEqual(socks.connects[0], { addressType: 3, host: 'localhost', port: target.port, username: undefined })
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
