import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { libraries } from '../../compat/harness.js'
import type { Lib } from '../../compat/harness.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

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

describe('a Location with user information', () => {
  it('never shows the password of a Location or an origin in the redirect log or errors, and never sends it', async () => {
    const script = `
      import http from 'node:http'
      import { inspect } from 'node:util'
      import * as conduit from ${JSON.stringify(indexUrl)}
      const target = http.createServer((req, res) => res.end(String(req.headers.authorization ?? 'no authorization')))
      await new Promise((resolve) => target.listen(0, '127.0.0.1', resolve))
      const start = http.createServer((req, res) => {
        if (req.url.startsWith('/same')) { res.writeHead(302, { location: req.url === '/same' ? '/same2' : '/same' }); res.end(); return }
        const scheme = req.url === '/ftp' ? 'ftp' : 'http'
        res.writeHead(302, { location: scheme + '://u:PwLeak9@localhost:' + target.address().port + '/x' })
        res.end()
      })
      await new Promise((resolve) => start.listen(0, '127.0.0.1', resolve))
      const origin = 'http://127.0.0.1:' + start.address().port
      const agent = new conduit.Agent()
      const out = []
      const dispatcher = agent.compose(conduit.interceptors.redirect({ maxRedirections: 2 }))
      for (const path of ['/', '/ftp']) {
        const res = await dispatcher.request({ origin, path, method: 'GET' })
        out.push(res.statusCode + ' ' + await res.body.text())
      }
      const limited = agent.compose(conduit.interceptors.redirect({ maxRedirections: 1, throwOnMaxRedirect: true }))
      try { await limited.request({ origin: 'http://u:PwLeak9@127.0.0.1:' + start.address().port, path: '/same', method: 'GET' }) } catch (err) { out.push(inspect(err, { depth: 5 })) }
      for (const path of ['/', '/ftp']) {
        try { await conduit.fetch(origin + path, { dispatcher: agent }) } catch (err) { out.push(inspect(err, { depth: 5 })) }
      }
      await agent.close(); start.close(); target.close()
      process.stderr.write(out.join('\\n'))
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit,conduit:redirect,fetch')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /following 302 from http:\/\/127\.0\.0\.1:\d+\/ to http:\/\/\*\*\*@localhost:\d+\/x, credentials dropped/)
    assert.match(stderr, /200 no authorization/)
    assert.match(stderr, /not following 302 from http:\/\/127\.0\.0\.1:\d+\/ftp: ftp:\/\/\*\*\*@localhost:\d+\/x is not an http\(s\) URL/)
    assert.match(stderr, /redirect to a non-HTTP\(S\) URL: ftp:\/\/\*\*\*@localhost/)
    assert.match(stderr, /redirect to a URL with credentials/)
    assert.match(stderr, /following 302 from http:\/\/\*\*\*@127\.0\.0\.1:\d+\/same to http:\/\/\*\*\*@127\.0\.0\.1:\d+\/same2/)
    assert.match(stderr, /MaxRedirectsError: max redirects \(1\) reached at http:\/\/127\.0\.0\.1:\d+\/same2/)
    assert.doesNotMatch(stderr, /PwLeak9/)
  })
})
