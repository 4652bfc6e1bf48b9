/**
 * A hostile subdomain floods the cookie jar: 20 responses of 1,000 `Set-Cookie` for the parent
 * domain. The jar keeps the per-domain limit, so a sibling's next request carries a Cookie
 * header a default server accepts, and the process stays small (measured in a child process).
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Agent, interceptors } from '../../../src/index.js'
import { DEFAULT_MAX_COOKIES_PER_DOMAIN } from '../../../interceptors/cookies/index.js'
import { startHttpServer } from '../../helpers/servers.js'

const run = promisify(execFile)

describe('interceptors.cookies() against a server that floods it with cookies', () => {
  it('sends a sibling of the flooding subdomain at most 50 cookies, in a process under 200 MB', async () => {
    const child = fileURLToPath(new URL('./cookie-flood-child.js', import.meta.url))
    const { stdout, stderr } = await run(process.execPath, [child], { timeout: 120_000 })
    assert.equal(stderr, '')
    const report = JSON.parse(stdout) as { bytes: number, count: number, rssMb: number }
    assert.equal(report.count, DEFAULT_MAX_COOKIES_PER_DOMAIN)
    // 50 cookies of 46 characters, joined by "; ": what Node's default 16 KiB head limit lets through.
    assert.ok(report.bytes < 16 * 1024, `the Cookie header has ${report.bytes} bytes`)
    assert.ok(report.rssMb < 200, `the child's resident memory reached ${report.rssMb.toFixed(0)} MB`)
  })

  it('never stores a cookie whose name and value pass 4096 characters, as parseCookie refuses it', async (t) => {
    const tooLong = `big=${'x'.repeat(4094)}`
    const server = await startHttpServer((req, res) => {
      if (req.url === '/set') res.writeHead(200, { 'set-cookie': [`${tooLong}; Path=/`, `fits=${'y'.repeat(4092)}; Path=/`] }).end()
      else res.end(req.headers.cookie ?? '')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const client = agent.compose(interceptors.cookies())
    await (await client.request({ origin: server.origin, path: '/set', method: 'GET' })).body.text()
    const sent = await (await client.request({ origin: server.origin, path: '/echo', method: 'GET' })).body.text()
    assert.equal(sent, `fits=${'y'.repeat(4092)}`)
  })

  it('hands the jar a Set-Cookie without the attributes a cookie parser ignores for being over 1024 characters', async (t) => {
    const received: string[] = []
    const jar = {
      getCookieString: () => '',
      setCookie: (cookie: string) => { received.push(cookie) }
    }
    const server = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'set-cookie': `id=1; Path=/${'p'.repeat(1100)}; HttpOnly` }).end()
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    await (await agent.compose(interceptors.cookies({ jar })).request({ origin: server.origin, path: '/', method: 'GET' })).body.text()
    assert.deepEqual(received, ['id=1; HttpOnly'])
  })
})
