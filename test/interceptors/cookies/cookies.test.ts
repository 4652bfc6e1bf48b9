import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CookieJar } from 'tough-cookie'
import { Agent, errors, fetch, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../../helpers/servers.js'
import { SESSION_SECRET, cookieApp } from './cookie-app.js'

async function get (dispatcher: Dispatcher, origin: string, path: string, headers?: Record<string, string>): Promise<{ status: number, text: string }> {
  const { statusCode, body } = await dispatcher.request({ origin, path, method: 'GET', headers })
  return { status: statusCode, text: await body.text() }
}

describe('interceptors.cookies()', () => {
  it('stores the cookies of a login and sends them on later requests, by path', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const client = agent.compose(interceptors.cookies())
    assert.equal((await get(client, server.origin, '/echo')).text, '')
    await get(client, server.origin, '/login')
    assert.equal((await get(client, server.origin, '/echo')).text, `session=${SESSION_SECRET}`)
    // pref has Path=/app: sent below /app only, after the cookie with the longer path.
    assert.equal((await get(client, server.origin, '/app/echo')).text, `pref=dark; session=${SESSION_SECRET}`)
    await get(client, server.origin, '/logout')
    assert.equal((await get(client, server.origin, '/echo')).text, '')
  })

  it('keeps cookies to their host: 127.0.0.1 and localhost are two sites, ports are not', async (t) => {
    const server = await startHttpServer(cookieApp)
    const other = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close(); await other.close() })
    const client = agent.compose(interceptors.cookies())
    await get(client, server.origin, '/login')
    assert.equal((await get(client, `http://localhost:${server.port}`, '/echo')).text, '')
    // Cookies do not isolate by port (RFC 6265 section 8.5).
    assert.equal((await get(client, other.origin, '/echo')).text, `session=${SESSION_SECRET}`)
    await get(client, `http://localhost:${server.port}`, '/short')
    assert.equal((await get(client, `http://localhost:${other.port}`, '/echo')).text, 'short=1')
    assert.equal((await get(client, server.origin, '/echo')).text, `session=${SESSION_SECRET}`)
  })

  it('matches cookies against the request\'s own origin, whatever its path looks like', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const client = agent.compose(interceptors.cookies())
    await get(client, server.origin, '/login')
    assert.equal((await get(client, `http://localhost:${server.port}`, `//127.0.0.1:${server.port}/echo`)).text, '')
    assert.equal(server.requests.at(-1)?.url, `//127.0.0.1:${server.port}/echo`)
  })

  it('drops a cookie for another domain and keeps the rest of the response\'s', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const client = agent.compose(interceptors.cookies())
    assert.equal((await get(client, server.origin, '/foreign-domain')).text, 'foreign')
    assert.equal((await get(client, server.origin, '/echo')).text, 'own=1')
  })

  it('sends a Secure cookie over https only', async (t) => {
    const secure = await startHttpsServer(cookieApp)
    const plain = await startHttpServer(cookieApp)
    const agent = new Agent({ connect: trustTestCa })
    t.after(async () => { await agent.close(); await secure.close(); await plain.close() })
    // tough-cookie counts loopback http as a secure context unless told otherwise; a real site is not loopback.
    const client = agent.compose(interceptors.cookies({ jar: new CookieJar(undefined, { allowSecureOnLocal: false }) }))
    await get(client, secure.origin, '/secure')
    assert.equal((await get(client, secure.origin, '/echo')).text, 'tls=1; plain=1')
    assert.equal((await get(client, `http://localhost:${plain.port}`, '/echo')).text, 'plain=1')
  })

  it('forgets a cookie when its Max-Age has passed', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2030, 0, 1) })
    const client = agent.compose(interceptors.cookies())
    await get(client, server.origin, '/short')
    assert.equal((await get(client, server.origin, '/echo')).text, 'short=1')
    // tough-cookie counts Max-Age from the cookie's last use, so the read above is the start.
    t.mock.timers.tick(61_000)
    assert.equal((await get(client, server.origin, '/echo')).text, '')
  })

  it('stores each hop\'s cookies of a redirect chain and sends them on the next hop', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const client = agent.compose(interceptors.cookies(), interceptors.redirect({ maxRedirections: 5 }))
    const { status, text } = await get(client, server.origin, '/hop1')
    assert.equal(status, 200)
    assert.equal(text, 'hop1=1; hop2=1')
    assert.deepEqual(server.requests.map((r) => [r.url, r.headers.cookie]), [['/hop1', undefined], ['/hop2', 'hop1=1'], ['/echo', 'hop1=1; hop2=1']])
  })

  it('works under fetch over a composed dispatcher, redirects included', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.cookies())
    const response = await fetch(`${server.origin}/hop1`, { dispatcher })
    assert.equal(response.status, 200)
    assert.equal(await response.text(), 'hop1=1; hop2=1')
    await (await fetch(`${server.origin}/login`, { dispatcher })).text()
    assert.equal(await (await fetch(`${server.origin}/echo`, { dispatcher })).text(), `hop1=1; hop2=1; session=${SESSION_SECRET}`)
  })

  it('keeps a Cookie header the caller set, first, and leaves out jar cookies of the same name', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const client = agent.compose(interceptors.cookies())
    await get(client, server.origin, '/login')
    await get(client, server.origin, '/short')
    assert.equal((await get(client, server.origin, '/echo', { Cookie: 'session=mine; extra=1' })).text, 'session=mine; extra=1; short=1')
    const flat = await client.request({ origin: server.origin, path: '/echo', method: 'GET', headers: ['x-a', '1', 'cookie', 'z=9'] })
    assert.equal(await flat.body.text(), `z=9; session=${SESSION_SECRET}; short=1`)
  })

  it('shares one jar between dispatchers, and the jar is reachable from the interceptor', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const jarInterceptor = interceptors.cookies()
    await get(agent.compose(jarInterceptor), server.origin, '/short')
    const jar = jarInterceptor.jar as CookieJar
    assert.equal(await jar.getCookieString(`${server.origin}/`), 'short=1')
    const second = new Agent()
    t.after(async () => { await second.close() })
    assert.equal((await get(second.compose(interceptors.cookies({ jar })), server.origin, '/echo')).text, 'short=1')
  })

  it('works with an asynchronous jar: writes are seen by the next request', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const inner = new CookieJar()
    // Only the promise methods: every read and write is asynchronous.
    const jar = {
      getCookieString: async (url: string) => await inner.getCookieString(url),
      setCookie: async (cookie: string, url: string) => { await new Promise((resolve) => setImmediate(resolve)); return await inner.setCookie(cookie, url, { ignoreError: true }) }
    }
    const client = agent.compose(interceptors.cookies({ jar }), interceptors.redirect({ maxRedirections: 3 }))
    assert.equal((await get(client, server.origin, '/hop1')).text, 'hop1=1; hop2=1')
  })

  it('refuses bad options with an InvalidArgumentError naming the value', () => {
    assert.throws(() => interceptors.cookies({ jar: {} as never }), (err: Error) => err instanceof errors.InvalidArgumentError && /jar must have getCookieString\(\) and setCookie\(\).*\[object Object\]/.test(err.message))
    assert.throws(() => interceptors.cookies(5 as never), (err: Error) => err instanceof errors.InvalidArgumentError && /got 5/.test(err.message))
  })

  it('fails the request, not the process, when the jar cannot read, without the cookie values', async (t) => {
    const server = await startHttpServer(cookieApp)
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const broken = {
      getCookieString: async () => { throw new Error('store offline') },
      setCookie: async () => undefined
    }
    const client = agent.compose(interceptors.cookies({ jar: broken }))
    await assert.rejects(client.request({ origin: server.origin, path: '/echo', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.LibraryError)
      assert.match(err.message, /cookie jar failed to give the cookies for http:\/\/127\.0\.0\.1:\d+$/)
      assert.equal((err.cause as Error).message, 'store offline')
      return true
    })
    assert.equal(server.requests.length, 0)
  })
})
