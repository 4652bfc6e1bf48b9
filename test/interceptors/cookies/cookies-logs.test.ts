import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { errors } from '../../../src/index.js'
import { newToughCookieJar } from '../../../interceptors/cookies/load-tough-cookie.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'
import { startHttpServer } from '../../helpers/servers.js'
import { SESSION_SECRET, cookieApp } from './cookie-app.js'

describe('interceptors.cookies(): logs and the optional dependency', () => {
  it('NODE_DEBUG=conduit:cookies tells what was stored, never a cookie value', async (t) => {
    const server = await startHttpServer(cookieApp)
    t.after(async () => { await server.close() })
    const script = `
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      const agent = new Agent()
      const client = agent.compose(interceptors.cookies(), interceptors.redirect({ maxRedirections: 3 }))
      for (const path of ['/login', '/hop1', '/echo']) {
        const { body } = await client.request({ origin: ${JSON.stringify(server.origin)}, path, method: 'GET' })
        await body.text()
      }
      await agent.close()
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit:cookies')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /storing 2 Set-Cookie value\(s\) from http:\/\/127\.0\.0\.1:\d+/)
    assert.match(stderr, /storing 1 Set-Cookie value\(s\) from/)
    assert.ok(!stderr.includes(SESSION_SECRET), stderr)
    assert.ok(!stderr.includes('pref=dark'), stderr)
  })

  it('without tough-cookie installed, cookies() with no jar names the missing package', () => {
    assert.throws(() => newToughCookieJar('tough-cookie-not-installed'), (err: Error) => {
      assert.ok(err instanceof errors.NotSupportedError)
      assert.match(err.message, /optional dependency "tough-cookie-not-installed" \(npm install tough-cookie-not-installed\)/)
      return true
    })
  })
})
