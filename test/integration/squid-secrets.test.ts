import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { ProxyAgent } from '../../presets/proxy-agent.js'
import { CHANNEL_NAMES } from '../../src/diagnostics.js'
import { caCrt } from '../helpers/certs.js'
import { errorRenderings, secretsIn } from '../helpers/secret-scan.js'
import { startHttpServer, startHttpsServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startSquid } from './helpers/squid.js'
import type { Squid } from './helpers/squid.js'

const user = { username: 'squid-user-r2d', password: 'Sq/u@d:p#w?9-secret' }
const wrongPassword = 'wr0ng-Pw/#?-secret'
const uri = (password: string): string => `http://${encodeURIComponent(user.username)}:${encodeURIComponent(password)}@127.0.0.1:${squid.port}`
const SECRETS = [
  user.password, encodeURIComponent(user.password), user.username, wrongPassword, encodeURIComponent(wrongPassword),
  Buffer.from(`${user.username}:${user.password}`).toString('base64'),
  Buffer.from(`${user.username}:${wrongPassword}`).toString('base64')
]

let squid: Squid

describe('proxy credentials through a real squid', () => {
  let http: TestServer
  let https: TestServer
  let httpsOrigin: string
  const leaks: string[] = []
  const seen = new Set<string>()
  const listeners = CHANNEL_NAMES.map((name) => {
    const listener = (message: unknown): void => {
      seen.add(name)
      for (const secret of secretsIn(message, SECRETS)) leaks.push(`${name}: ${secret}`)
    }
    return [name, listener] as const
  })

  before(async () => {
    [squid, http, https] = await Promise.all([
      startSquid({ auth: user }),
      startHttpServer((_req, res) => res.end('ok')),
      startHttpsServer((_req, res) => res.end('ok'))
    ])
    httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
    for (const [name, listener] of listeners) diagnosticsChannel.subscribe(name, listener)
  })
  after(async () => {
    for (const [name, listener] of listeners) diagnosticsChannel.unsubscribe(name, listener)
    await Promise.all([squid?.stop(), http?.close(), https?.close()])
  })

  it('publishes no credential on any diagnostics channel for absolute-form and tunnelled requests', async (t) => {
    const agent = new ProxyAgent({ uri: uri(user.password), requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    for (const origin of [http.origin, httpsOrigin]) {
      const res = await agent.request({ origin, path: '/secret-check', method: 'GET' })
      assert.equal(await res.body.text(), 'ok')
    }
    assert.deepEqual(leaks, [])
    assert.ok(seen.has('conduit:client:sendHeaders') && seen.has('conduit:proxy:connected'))
  })

  it('keeps the credentials out of the 407 error and its channel events on both routes', async (t) => {
    const agent = new ProxyAgent({ uri: uri(wrongPassword), requestTls: { ca: caCrt } })
    t.after(() => agent.close())
    for (const origin of [http.origin, httpsOrigin]) {
      const err = await agent.request({ origin, path: '/', method: 'GET' }).then(() => assert.fail('expected a 407'), (e: unknown) => e)
      assert.equal((err as { code?: string }).code, 'LIB_ERR_PROXY_CONNECT')
      assert.equal((err as { statusCode?: number }).statusCode, 407)
      assert.deepEqual(secretsIn(errorRenderings(err), SECRETS), [])
      assert.deepEqual(secretsIn(err, SECRETS), [])
    }
    assert.deepEqual(leaks, [])
  })
})
