/**
 * Proxied traffic that carries credentials, for the tests that look for them where they must not
 * be: plain-HTTP and HTTPS targets through an HTTP proxy (URI credentials and a secret proxy
 * header), an HTTPS proxy (a token, and URI credentials it overrides) and a SOCKS5 proxy (URI credentials), with a request that
 * fails on each route too. Every request goes through `interceptors.debug()`, whose lines are returned.
 */

import assert from 'node:assert/strict'
import { interceptors, ProxyAgent, Socks5ProxyAgent } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { caCrt } from '../../helpers/certs.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'
import { startHttpServer, startHttpsServer } from '../../helpers/servers.js'
import { startSocks5Server } from '../../helpers/socks5-server.js'

const proxyUser = 'proxyuser-K7q'
const proxyPassword = 'pw-Zx81-secret'
const socksUser = 'socksuser-M3v'
const socksPassword = 'sockspw-Qe55-secret'
const token = 'Bearer tok-Hy62-secret'
// In the HTTPS proxy's URI beside the token, which wins: they are never sent, and never shown.
const unusedUser = 'unused-user-Tz4'
const unusedPassword = 'unused-pw-Vc8-secret'
const headerSecret = 'hdr-Lp09-secret'

/** Every credential used, and the base64 forms a `Basic` header would carry. */
export const SECRETS: readonly string[] = [
  proxyPassword, proxyUser, socksPassword, socksUser, 'tok-Hy62-secret', headerSecret, unusedUser, unusedPassword,
  Buffer.from(`${proxyUser}:${proxyPassword}`).toString('base64'),
  Buffer.from(proxyPassword).toString('base64')
]

/** Runs the traffic; returns the `interceptors.debug()` lines. */
export async function runProxiedSecretTraffic (): Promise<string[]> {
  const lines: string[] = []
  // '/hang' never answers, so a request to it fails on its headersTimeout after its head went out.
  const answer = (req: { url?: string | undefined }, res: { end: (body: string) => void }): void => { if (req.url !== '/hang') res.end('ok') }
  const http = await startHttpServer(answer)
  const https = await startHttpsServer(answer)
  const httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
  const basic = `Basic ${Buffer.from(`${proxyUser}:${proxyPassword}`).toString('base64')}`
  const plainProxy = await startHttpProxy({ authorization: basic })
  const tlsProxy = await startHttpProxy({ tls: true, authorization: token })
  const socks = await startSocks5Server({ auth: { username: socksUser, password: socksPassword } })
  const agents: Dispatcher[] = [
    new ProxyAgent({ uri: `http://${proxyUser}:${proxyPassword}@127.0.0.1:${plainProxy.port}`, headers: { 'x-proxy-key': headerSecret }, requestTls: { ca: caCrt } }),
    new ProxyAgent({ uri: `https://${unusedUser}:${unusedPassword}@127.0.0.1:${tlsProxy.port}`, token, proxyTls: { ca: caCrt }, requestTls: { ca: caCrt } }),
    new Socks5ProxyAgent(`socks5://${socksUser}:${socksPassword}@127.0.0.1:${socks.port}`, { requestTls: { ca: caCrt } })
  ]
  try {
    for (const agent of agents) {
      const logged = agent.compose(interceptors.debug({ logger: (line) => lines.push(line) }))
      for (const origin of [http.origin, httpsOrigin]) {
        const res = await logged.request({ origin, path: '/through', method: 'POST', body: 'payload' })
        assert.equal(await res.body.text(), 'ok')
      }
      // A request that fails after its head was sent publishes the error event as well.
      await assert.rejects(logged.request({ origin: http.origin, path: '/hang', method: 'GET', headersTimeout: 50 }), { code: 'LIB_ERR_HEADERS_TIMEOUT' })
    }
  } finally {
    await Promise.all(agents.map((agent) => agent.close()))
    await Promise.all([http.close(), https.close(), plainProxy.close(), tlsProxy.close(), socks.close()])
  }
  assert.ok(plainProxy.requests.length >= 2 && tlsProxy.requests.length >= 2 && socks.connects.length >= 2, 'every proxy carried traffic')
  return lines
}
