import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import diagnosticsChannel from 'node:diagnostics_channel'
import { PROXY_CONNECTED_CHANNEL } from '../../../interceptors/proxy/index.js'
import type { ProxyConnectedMessage } from '../../../interceptors/proxy/index.js'
import { ProxyAgent } from '../../../presets/proxy-agent.js'
import { caCrt } from '../../helpers/certs.js'
import { startHttpServer, startHttpsServer } from '../../helpers/servers.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'
import { startSocks5Server } from '../../helpers/socks5-server.js'

const presetUrl = new URL('../../../presets/proxy-agent.js', import.meta.url).href
const agentUrl = new URL('../../../src/dispatcher/agent.js', import.meta.url).href
const interceptorUrl = new URL('../../../interceptors/proxy/index.js', import.meta.url).href

/** Runs `script` in a child process with NODE_DEBUG set; resolves with its stderr. */
function runChild (script: string, env: Record<string, string>): Promise<{ code: number | null, stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stderr }))
  })
}

describe('proxy observability', () => {
  it('publishes one conduit:proxy:connected event per tunnel, without credentials', async (t) => {
    const https = await startHttpsServer((_req, res) => res.end('ok'))
    const proxyServer = await startHttpProxy({ authorization: `Basic ${Buffer.from('u:secret').toString('base64')}` })
    const socks = await startSocks5Server()
    const agent = new ProxyAgent({ uri: `http://u:secret@127.0.0.1:${proxyServer.port}`, requestTls: { ca: caCrt } })
    const socksAgent = new ProxyAgent({ uri: socks.url, requestTls: { ca: caCrt } })
    const events: ProxyConnectedMessage[] = []
    const listener = (message: unknown): void => { events.push(message as ProxyConnectedMessage) }
    diagnosticsChannel.subscribe(PROXY_CONNECTED_CHANNEL, listener)
    t.after(() => {
      diagnosticsChannel.unsubscribe(PROXY_CONNECTED_CHANNEL, listener)
      return Promise.all([agent.close(), socksAgent.close(), https.close(), proxyServer.close(), socks.close()])
    })
    const origin = https.origin.replace('localhost', '127.0.0.1')
    await (await agent.request({ origin, path: '/1', method: 'GET' })).body.dump()
    await (await agent.request({ origin, path: '/2', method: 'GET' })).body.dump()
    await (await socksAgent.request({ origin, path: '/3', method: 'GET' })).body.dump()
    assert.deepEqual(events.map((e) => [e.proxy, e.target, e.via]), [
      [`http://127.0.0.1:${proxyServer.port}`, `127.0.0.1:${https.port}`, 'connect'],
      [socks.url, `127.0.0.1:${https.port}`, 'socks5']
    ])
    assert.ok(events.every((e) => typeof e.socket.write === 'function'))
    assert.doesNotMatch(JSON.stringify(events.map(({ socket: _s, ...rest }) => rest)), /secret/)
  })

  it('explains every route under NODE_DEBUG=conduit:proxy and never logs credentials', async (t) => {
    const http = await startHttpServer((_req, res) => res.end('ok'))
    const https = await startHttpsServer((_req, res) => res.end('ok'))
    const auth = `Basic ${Buffer.from('u:hunter2').toString('base64')}`
    const proxyServer = await startHttpProxy({ authorization: auth })
    t.after(() => Promise.all([http.close(), https.close(), proxyServer.close()]))
    const httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
    const script = `
      const { ProxyAgent } = await import(${JSON.stringify(presetUrl)})
      const { Agent } = await import(${JSON.stringify(agentUrl)})
      const { proxy } = await import(${JSON.stringify(interceptorUrl)})
      const ca = ${JSON.stringify(caCrt)}
      const agent = new ProxyAgent({ uri: 'http://u:hunter2@127.0.0.1:${proxyServer.port}', requestTls: { ca } })
      await (await agent.request({ origin: '${http.origin}', path: '/plain', method: 'GET' })).body.dump()
      await (await agent.request({ origin: '${httpsOrigin}', path: '/secure', method: 'GET' })).body.dump()
      await agent.close()
      const p = proxy({ uri: 'http://u:hunter2@127.0.0.1:${proxyServer.port}', noProxy: '127.0.0.1' })
      const direct = new Agent().compose(p)
      await (await direct.request({ origin: '${http.origin}', path: '/direct', method: 'GET' })).body.dump()
      await Promise.all([direct.close(), p.close()])
    `
    const { code, stderr } = await runChild(script, { NODE_DEBUG: 'conduit:proxy' })
    assert.equal(code, 0, stderr)
    const lines = stderr.split('\n').filter((line) => line.startsWith('CONDUIT:PROXY '))
    const proxyLabel = `http://127.0.0.1:${proxyServer.port}`
    assert.match(lines.join('\n'), new RegExp(`GET ${http.origin}/plain: via ${proxyLabel}, absolute-form`))
    assert.match(lines.join('\n'), new RegExp(`GET ${httpsOrigin}/secure: via ${proxyLabel}, CONNECT tunnel to 127\\.0\\.0\\.1:${https.port}`))
    assert.match(lines.join('\n'), new RegExp(`tunnel to 127\\.0\\.0\\.1:${https.port} established through ${proxyLabel} \\(connect\\)`))
    assert.match(lines.join('\n'), new RegExp(`GET ${http.origin}/direct: direct \\(matches NO_PROXY\\)`))
    assert.match(lines[0] ?? '', /^CONDUIT:PROXY \d+: /)
    assert.doesNotMatch(stderr, /hunter2/)
    assert.doesNotMatch(stderr, new RegExp(auth.slice('Basic '.length)))
  })

  it('stays silent when NODE_DEBUG does not name conduit:proxy', async (t) => {
    const http = await startHttpServer((_req, res) => res.end('ok'))
    const proxyServer = await startHttpProxy()
    t.after(() => Promise.all([http.close(), proxyServer.close()]))
    const script = `
      const { ProxyAgent } = await import(${JSON.stringify(presetUrl)})
      const agent = new ProxyAgent('${proxyServer.url}')
      await (await agent.request({ origin: '${http.origin}', path: '/', method: 'GET' })).body.dump()
      await agent.close()
    `
    const { code, stderr } = await runChild(script, { NODE_DEBUG: 'conduit:cache' })
    assert.equal(code, 0, stderr)
    assert.doesNotMatch(stderr, /CONDUIT:PROXY/)
  })
})
