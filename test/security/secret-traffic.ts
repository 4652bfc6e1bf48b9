/**
 * Traffic that carries planted credentials through every interceptor and preset, into their
 * failure and logging paths, for the tests that look for the credentials where they must not be.
 * Every request names its origin with user information and sends `authorization`, `cookie` and
 * `x-api-key`; every answer sets a cookie; proxies get credentials in their URI or a token.
 * Returns what was thrown (by scenario) and the `interceptors.debug()` lines.
 */

import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import type http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  Agent, cacheStores, EnvHttpProxyAgent, fetch, interceptors, MockAgent, ProxyAgent, RetryAgent, SnapshotAgent, Socks5ProxyAgent
} from '../../src/index.js'
import type { CacheStore, Dispatcher } from '../../src/index.js'
import { freePort } from '../helpers/free-port.js'
import { startHttpProxy } from '../helpers/http-proxy.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { startHttpServer, startHttpsServer } from '../helpers/servers.js'
import { caCrt } from '../helpers/certs.js'

const URL_PASSWORD = 'PwUrl7Qsecret'
const AUTH_TOKEN = 'TokAuth9Xsecret'
const OTHER_TOKEN = 'TokOther6Jsecret'
const PROXY_TOKEN = 'TokProxy3Ksecret'
const PROXY_PASSWORD = 'PwProxy5Msecret'
const COOKIE = 'CookieV4Lsecret'
const SET_COOKIE = 'SetCk8Rsecret'
const API_KEY = 'KeyApi2Wsecret'

/** Every planted credential, and the base64 form a `Basic` header would carry. */
export const SECRETS: readonly string[] = [
  URL_PASSWORD, AUTH_TOKEN, OTHER_TOKEN, PROXY_TOKEN, PROXY_PASSWORD, COOKIE, SET_COOKIE, API_KEY,
  Buffer.from(`scanuser:${URL_PASSWORD}`).toString('base64'),
  Buffer.from(`proxyuser:${PROXY_PASSWORD}`).toString('base64')
]

/** The request headers every request carries. */
const HEADERS = { authorization: `Bearer ${AUTH_TOKEN}`, cookie: `sid=${COOKIE}`, 'x-api-key': API_KEY }

/** What the traffic produced. */
export interface SecretTraffic {
  /** What each scenario threw (or its body rejected with), by scenario name. */
  errors: Map<string, unknown>
  /** How many scenarios were driven into a failure (each did fail, or the run stopped). */
  failures: number
  /** Lines of `interceptors.debug()` composed into every stack. */
  lines: string[]
}

function answer (req: http.IncomingMessage, res: http.ServerResponse): void {
  res.setHeader('set-cookie', `sess=${SET_COOKIE}; HttpOnly`)
  switch (req.url) {
    case '/ok': res.setHeader('cache-control', 'max-age=60'); res.end('ok'); return
    case '/fail': res.statusCode = 503; res.end('unavailable'); return
    case '/loop': res.statusCode = 302; res.setHeader('location', '/loop'); res.end(); return
    case '/bad-gzip': res.setHeader('content-encoding', 'gzip'); res.end('this is not gzip at all'); return
    case '/big': res.end('x'.repeat(4096)); return
    case '/token': res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ access: `Bearer ${AUTH_TOKEN}${AUTH_TOKEN}` })); return
    case '/reset': req.socket.destroy(); return
    default: res.statusCode = 404; res.end()
  }
}

/** Runs every scenario; each failure scenario must fail (asserted here), and every error is kept. */
export async function runSecretTraffic (): Promise<SecretTraffic> {
  const errors = new Map<string, unknown>()
  const lines: string[] = []
  const server = await startHttpServer(answer)
  const https = await startHttpsServer(answer)
  const httpsOrigin = https.origin.replace('localhost', '127.0.0.1')
  const origin = `http://scanuser:${URL_PASSWORD}@127.0.0.1:${server.port}`
  const proxy = await startHttpProxy({ authorization: 'Bearer some-other-value' })
  const deadPort = await freePort()
  const redis = await startRedisServer()
  const dir = await mkdtemp(join(tmpdir(), 'conduit-secret-scan-'))
  const closers: Array<() => unknown> = []
  const opened = new Set<Dispatcher>()
  const logged = (dispatcher: Dispatcher, ...more: Parameters<Agent['compose']>): Dispatcher => {
    if (!opened.has(dispatcher)) closers.push(() => dispatcher.close())
    opened.add(dispatcher)
    return dispatcher.compose(...more, interceptors.debug({ logger: (line) => lines.push(line) }))
  }

  /** Runs a request that must fail; keeps what it failed with. */
  let failures = 0
  const fails = async (name: string, attempt: () => Promise<unknown>): Promise<void> => {
    failures++
    try {
      const res = await attempt() as { body?: { text: () => Promise<string> } } | undefined
      await res?.body?.text()
    } catch (err) {
      errors.set(name, err)
      return
    }
    assert.fail(`${name}: expected a failure`)
  }
  /** Runs requests that may succeed (logging paths); keeps any failure too. */
  const runs = async (name: string, attempt: () => Promise<unknown>): Promise<void> => {
    try {
      await attempt()
    } catch (err) {
      errors.set(name, err)
    }
  }
  const get = (d: Dispatcher, path: string, extra: Record<string, unknown> = {}) => async () => {
    const res = await d.request({ origin, path, method: 'GET', headers: HEADERS, ...extra } as Parameters<Dispatcher['request']>[0])
    await res.body.text()
    return res
  }

  try {
    const retry = logged(new Agent(), interceptors.retry({ maxRetries: 1, minTimeout: 1, maxTimeout: 1 }))
    await fails('retry() on a status', get(retry, '/fail'))
    await fails('retry() on a reset', get(retry, '/reset'))
    const retryAgent = new RetryAgent(new Agent(), { maxRetries: 1, minTimeout: 1, maxTimeout: 1 })
    await fails('RetryAgent', get(logged(retryAgent), '/fail'))
    await fails('redirect()', get(logged(new Agent(), interceptors.redirect({ maxRedirections: 2, throwOnMaxRedirect: true })), '/loop'))
    await fails('decompress()', get(logged(new Agent(), interceptors.decompress({ skipErrorResponses: false })), '/bad-gzip'))
    await fails('dump()', get(logged(new Agent(), interceptors.dump({ maxSize: 16 })), '/big'))
    await fails('responseError()', get(logged(new Agent(), interceptors.responseError()), '/fail'))

    // dns() resolves names only: these origins name a host its lookup knows.
    const named = { origin: `http://scanuser:${URL_PASSWORD}@secret-host.test:${server.port}` }
    const failingLookup = interceptors.dns({ lookup: (_o, _opts, cb) => cb(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' })) })
    await fails('dns() lookup failure', get(logged(new Agent(), failingLookup), '/ok', named))
    const refusedFirst = interceptors.dns({ lookup: (_o, _opts, cb) => cb(null, [{ address: '127.0.0.1', family: 4, ttl: 10_000, port: deadPort }, { address: '127.0.0.1', family: 4, ttl: 10_000, port: server.port }]) })
    await runs('dns() failover', get(logged(new Agent(), refusedFirst), '/ok', named))
    const unreachable = interceptors.dns({ lookup: (_o, _opts, cb) => cb(null, [{ address: '127.0.0.1', family: 4, ttl: 10_000, port: deadPort }]) })
    await fails('dns() unreachable address', get(logged(new Agent(), unreachable), '/ok', named))

    const dedup = logged(new Agent(), interceptors.deduplicate())
    await fails('deduplicate()', async () => await Promise.all([get(dedup, '/reset')(), get(dedup, '/reset')()]))

    const stores: Array<[string, CacheStore & { close?: () => unknown }]> = [
      ['memory', new cacheStores.MemoryCacheStore()],
      ['SQLite', new cacheStores.SqliteCacheStore({ location: join(dir, 'cache.db') })],
      ['Redis', new cacheStores.RedisCacheStore({ clientOptions: redis.url, keyPrefix: 'scan:', timeoutMs: 5000 })]
    ]
    for (const [kind, store] of stores) {
      closers.push(() => store.close?.())
      const cached = logged(new Agent(), interceptors.cache({ store }))
      await runs(`cache() ${kind} store and hit`, async () => {
        // Without authorization the answer is stored and the second request is a hit.
        const { authorization: _authorization, ...unauthorized } = HEADERS
        await get(cached, '/ok', { headers: unauthorized })()
        await get(cached, '/ok', { headers: unauthorized })()
        await get(cached, '/ok')()
        await get(cached, '/ok')()
        await get(cached, '/ok', { headers: { ...HEADERS, host: 'other.example' } })()
        await get(cached, '/ok', { method: 'POST', body: 'x' })()
        await get(cached, '/fail')()
      })
      await fails(`cache() ${kind} store, reset`, get(cached, '/reset'))
    }

    const snapshotPath = join(dir, 'snapshots.json')
    // Authorization is kept (credential headers are left out of snapshots by default), so that a
    // different token misses and the miss explanation has a credential to keep quiet about.
    const keepCredentialHeaders = ['authorization']
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath, keepCredentialHeaders })
    await runs('SnapshotAgent record', get(logged(recorder), '/ok'))
    await recorder.saveSnapshots()
    const player = new SnapshotAgent({ mode: 'playback', snapshotPath, keepCredentialHeaders })
    await fails('SnapshotAgent playback miss', get(logged(player), '/ok', { headers: { ...HEADERS, authorization: `Bearer ${OTHER_TOKEN}` } }))
    await fails('snapshot() interceptor miss', get(logged(new Agent(), interceptors.snapshot({ mode: 'playback', snapshotPath, keepCredentialHeaders })), '/ok', { headers: { ...HEADERS, authorization: `Bearer ${OTHER_TOKEN}` } }))
    // A secret the header rules do not know (a token in a response body) stops the save, unnamed.
    const scanned = new SnapshotAgent({ mode: 'record', snapshotPath: join(dir, 'scanned.json') })
    await runs('SnapshotAgent record of a token response', get(logged(scanned), '/token'))
    await fails('SnapshotAgent save refused by the secret scan', () => scanned.saveSnapshots())
    // Closing would try the same save again.
    scanned.clearSnapshots()

    const mock = new MockAgent()
    mock.disableNetConnect()
    mock.get(`http://127.0.0.1:${server.port}`).intercept({ path: '/ok', method: 'GET', headers: { authorization: `Bearer ${OTHER_TOKEN}` } }).reply(200, 'mocked')
    await fails('MockAgent header mismatch', get(logged(mock), '/ok'))
    await fails('MockAgent net connect', get(logged(mock), '/other'))

    const fetchAgent = new Agent()
    closers.push(() => fetchAgent.close())
    await fails('fetch() reset', async () => await fetch(`http://127.0.0.1:${server.port}/reset`, { headers: HEADERS, dispatcher: fetchAgent }))
    await fails('fetch() URL with credentials', async () => await fetch(`${origin}/ok`, { headers: HEADERS, dispatcher: fetchAgent }))
    await fails('fetch() through a cache and retry', async () => await fetch(`http://127.0.0.1:${server.port}/reset`, {
      headers: HEADERS, dispatcher: logged(new Agent(), interceptors.cache(), interceptors.retry({ maxRetries: 1, minTimeout: 1, maxTimeout: 1 }))
    }))

    const proxyUri = `http://proxyuser:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`
    const tunnelled = async (d: Dispatcher): Promise<unknown> => await d.request({ origin: httpsOrigin, path: '/ok', method: 'GET', headers: HEADERS })
    await fails('ProxyAgent refused (URI credentials)', async () => await tunnelled(logged(new ProxyAgent({ uri: proxyUri, requestTls: { ca: caCrt } }))))
    await fails('ProxyAgent refused (token)', async () => await tunnelled(logged(new ProxyAgent({ uri: proxy.url, token: `Bearer ${PROXY_TOKEN}`, requestTls: { ca: caCrt } }))))
    await fails('proxy() interceptor unreachable', get(logged(new Agent(), interceptors.proxy({ uri: `http://proxyuser:${PROXY_PASSWORD}@127.0.0.1:${deadPort}` })), '/ok'))
    await fails('EnvHttpProxyAgent unreachable', get(logged(new EnvHttpProxyAgent({ httpProxy: `http://proxyuser:${PROXY_PASSWORD}@127.0.0.1:${deadPort}`, noProxy: '' })), '/ok'))
    await fails('Socks5ProxyAgent unreachable', get(logged(new Socks5ProxyAgent(`socks5://proxyuser:${PROXY_PASSWORD}@127.0.0.1:${deadPort}`)), '/ok'))
  } finally {
    for (const close of closers) await close()
    await Promise.all([server.close(), https.close(), proxy.close(), redis.close()])
    await rm(dir, { recursive: true, force: true })
  }
  return { errors, failures, lines }
}
