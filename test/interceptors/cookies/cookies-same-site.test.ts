/**
 * The cookies interceptor tells the jar each request's SameSite context: a request that a
 * redirect from another site led to is cross-site, and gets no `SameSite=Strict` (nor, unless
 * the client acts as a top-level navigation, `Lax`) cookies. Two sites on one test server:
 * `a.test` and `b.test`, both resolved to 127.0.0.1.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import type { LookupFunction } from 'node:net'
import { Agent, fetch, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

// Every name is this machine: the sites differ by name only.
const loopback: LookupFunction = (_host, options, callback) => {
  if ((options as { all?: boolean }).all === true) (callback as unknown as (err: null, all: Array<{ address: string, family: number }>) => void)(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

function sites (req: http.IncomingMessage, res: http.ServerResponse): void {
  const host = (req.headers.host ?? '').split(':')[0]
  const port = (req.headers.host ?? '').split(':')[1]
  const path = (req.url ?? '/').split('?')[0]
  if (path === '/set') {
    res.writeHead(200, { 'set-cookie': ['strict=1; SameSite=Strict; Path=/', 'lax=1; SameSite=Lax; Path=/', 'plain=1; Path=/'] }).end()
  } else if (path === '/to-b') {
    res.writeHead(302, { location: `http://b.test:${port}/echo` }).end()
  } else if (path === '/to-b-set') {
    res.writeHead(302, { location: `http://b.test:${port}/set-late` }).end()
  } else if (path === '/set-late') {
    res.writeHead(200, { 'set-cookie': 'late=1; SameSite=Strict; Path=/' }).end(req.headers.cookie ?? '')
  } else if (path === '/to-b-post') {
    res.writeHead(307, { location: `http://b.test:${port}/echo` }).end()
  } else if (path === '/to-self') {
    res.writeHead(302, { location: `http://www.${host}:${port}/echo` }).end()
  } else {
    req.resume()
    req.on('end', () => res.end(req.headers.cookie ?? ''))
  }
}

function names (header: string): string[] {
  return header === '' ? [] : header.split('; ').map((pair) => pair.split('=')[0]!).sort()
}

async function text (dispatcher: Dispatcher, url: string, method = 'GET'): Promise<string> {
  const { origin, pathname } = new URL(url)
  const { body } = await dispatcher.request({ origin, path: pathname, method, body: method === 'POST' ? 'x' : undefined })
  return await body.text()
}

interface Sites {
  /** Follows redirects with redirect(). */
  client: Dispatcher
  /** The same jar without redirect(): fetch follows redirects itself. */
  forFetch: Dispatcher
  port: number
}

async function setUp (t: { after: (fn: () => Promise<void>) => void }, options: Parameters<typeof interceptors.cookies>[0] = {}): Promise<Sites> {
  const server = await startHttpServer(sites)
  const agent = new Agent({ connect: { lookup: loopback } })
  t.after(async () => { await agent.close(); await server.close() })
  const cookies = interceptors.cookies(options)
  const client = agent.compose(cookies, interceptors.redirect({ maxRedirections: 3 }))
  const forFetch = agent.compose(interceptors.cookies({ ...options, jar: cookies.jar }))
  await text(client, `http://b.test:${server.port}/set`)
  await text(client, `http://www.b.test:${server.port}/set`)
  return { client, forFetch, port: server.port }
}

describe('interceptors.cookies() and SameSite', () => {
  it('sends every cookie on a request of its own and after a same-site redirect', async (t) => {
    const { client, port } = await setUp(t)
    assert.deepEqual(names(await text(client, `http://b.test:${port}/echo`)), ['lax', 'plain', 'strict'])
    // www.b.test and b.test are one site (same registrable domain and scheme).
    assert.deepEqual(names(await text(client, `http://b.test:${port}/to-self`)), ['lax', 'plain', 'strict'])
  })

  it('sends neither Strict nor Lax cookies after a redirect from another site, through redirect() and through fetch', async (t) => {
    const { client, forFetch, port } = await setUp(t)
    assert.deepEqual(names(await text(client, `http://a.test:${port}/to-b`)), ['plain'])
    const response = await fetch(`http://a.test:${port}/to-b`, { dispatcher: forFetch })
    assert.equal(response.redirected, true)
    assert.deepEqual(names(await response.text()), ['plain'])
    // The next request of its own is same-site again.
    assert.deepEqual(names(await text(client, `http://b.test:${port}/echo`)), ['lax', 'plain', 'strict'])
  })

  it('as a top-level navigation, sends Lax but not Strict cookies after a cross-site redirect, and only for a safe method', async (t) => {
    const { client, port } = await setUp(t, { topLevelNavigation: true })
    assert.deepEqual(names(await text(client, `http://a.test:${port}/to-b`)), ['lax', 'plain'])
    assert.deepEqual(names(await text(client, `http://a.test:${port}/to-b-post`, 'POST')), ['plain'])
  })

  it('stores a SameSite cookie that a response after a cross-site redirect sets, as a navigation would', async (t) => {
    const { client, port } = await setUp(t)
    assert.deepEqual(names(await text(client, `http://a.test:${port}/to-b-set`)), ['plain'])
    assert.deepEqual(names(await text(client, `http://b.test:${port}/echo`)), ['late', 'lax', 'plain', 'strict'])
  })

  it('refuses a topLevelNavigation that is not a boolean with an InvalidArgumentError', () => {
    assert.throws(() => interceptors.cookies({ topLevelNavigation: 'yes' as never }), {
      code: 'LIB_ERR_INVALID_ARG',
      message: 'cookies(): topLevelNavigation must be a boolean, got "yes"'
    })
  })
})
