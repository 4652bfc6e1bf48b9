import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { libraries } from '../compat/harness.js'
import type { Lib } from '../compat/harness.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

const SECRET_HEADERS = { Authorization: 'Bearer Hq4tY', Cookie: 'sid=Hq4tY', 'Proxy-Authorization': 'Basic Hq4tY', 'X-Kept': 'yes' }

/** What the plain-HTTP target saw of the credential headers after an https page redirected there. */
interface Landed { authorization?: string, cookie?: string, 'proxy-authorization'?: string, 'x-kept'?: string }

async function downgradeServers (t: { after: (fn: () => Promise<void>) => void }, port: (target: TestServer) => string): Promise<{ secure: TestServer<http.Server>, target: TestServer }> {
  const target = await startHttpServer((req, res) => res.end('landed'))
  const secure = await startHttpsServer((req, res) => { res.writeHead(302, { location: port(target) }); res.end() })
  t.after(async () => { await secure.close(); await target.close() })
  return { secure, target }
}

function landedHeaders (target: TestServer): Landed {
  const { authorization, cookie, 'x-kept': kept } = target.requests[0]!.headers
  const proxy = target.requests[0]!.headers['proxy-authorization']
  return { authorization, cookie, 'proxy-authorization': proxy, 'x-kept': kept as string | undefined }
}

async function followWith (lib: Lib, via: 'redirect' | 'fetch', url: string): Promise<string> {
  const agent = new lib.Agent({ connect: trustTestCa })
  try {
    if (via === 'fetch') return await (await lib.fetch(url, { dispatcher: agent, headers: SECRET_HEADERS })).text()
    const dispatcher = agent.compose(lib.interceptors.redirect({ maxRedirections: 3 }))
    const res = await dispatcher.request({ origin: new URL(url).origin, path: '/', method: 'GET', headers: SECRET_HEADERS })
    return await res.body.text()
  } finally {
    await agent.close()
  }
}

describe('credentials on an https to http redirect', () => {
  for (const via of ['redirect', 'fetch'] as const) {
    for (const [what, host] of [['the same host name', 'localhost'], ['another host', '127.0.0.1']] as const) {
      it(`drops Authorization, Cookie and Proxy-Authorization when ${via === 'fetch' ? 'fetch()' : 'the redirect interceptor'} follows https to http on ${what}, as undici does`, async (t) => {
        const seen: Record<string, Landed> = {}
        for (const name of ['undici', 'conduit'] as const) {
          const { secure, target } = await downgradeServers(t, (server) => `http://${host}:${server.port}/landed`)
          assert.equal(await followWith(libraries[name], via, `${secure.origin}/`), 'landed')
          seen[name] = landedHeaders(target)
        }
        assert.deepEqual(seen.conduit, { authorization: undefined, cookie: undefined, 'proxy-authorization': undefined, 'x-kept': 'yes' })
        assert.deepEqual(seen.conduit, seen.undici)
      })
    }
  }
})
