/**
 * Differential tests: conduit's redirect interceptor against undici's, on the same local servers.
 * Intended differences are in docs/undici-differences.md.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { interceptors } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { compare, pair, undici } from './interceptors-harness.js'
import { UNDICI_MAJOR } from '../helpers/undici-reference.js'
import type { Pair } from './interceptors-harness.js'

async function bodyOf (req: http.IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += String(chunk)
  return text
}

describe('redirect(): conduit and undici agree', () => {
  let target: TestServer
  let server: TestServer
  let both: Pair
  const seenByTarget: Array<Record<string, unknown>> = []

  before(async () => {
    target = await startHttpServer((req, res) => {
      seenByTarget.push({ authorization: req.headers.authorization, cookie: req.headers.cookie, keep: req.headers['x-keep'] })
      res.end('target')
    })
    server = await startHttpServer(async (req, res) => {
      const body = await bodyOf(req)
      const go = (status: number, location: string): void => { res.writeHead(status, { location }); res.end('moved') }
      switch (req.url) {
        case '/chain': return go(301, '/chain2')
        case '/chain2': return go(302, '/chain3')
        case '/chain3': return go(308, '/final')
        case '/see-other': return go(303, '/echo')
        case '/temporary': return go(307, '/echo')
        case '/cross': return go(302, `${target.origin}/landed`)
        case '/loop-a': return go(302, '/loop-b')
        case '/loop-b': return go(302, '/loop-a')
        case '/none': res.writeHead(302); return res.end('no location')
        default: res.end(`${req.method} ${req.url} ${body}`)
      }
    })
    both = pair([interceptors.redirect({ maxRedirections: 3 })], [undici.interceptors.redirect({ maxRedirections: 3 })])
  })
  after(async () => { await both.close(); await server.close(); await target.close() })

  it('follows a chain of three redirects to the final body', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/chain' })
    assert.deepEqual(ours, theirs)
    assert.equal(ours.body, 'GET /final ')
  })

  it('turns a POST answered with 303 into a bodiless GET', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/see-other', method: 'POST', body: 'a=1' })
    assert.deepEqual(ours, theirs)
    assert.equal(ours.body, 'GET /echo ')
  })

  it('sends method and body again after 307', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/temporary', method: 'PUT', body: 'data' })
    assert.deepEqual(ours, theirs)
    assert.equal(ours.body, 'PUT /echo data')
  })

  it('drops credentials on a cross-origin hop and keeps other headers', async () => {
    seenByTarget.length = 0
    const headers = { authorization: 'Bearer t', cookie: 'c=1', 'x-keep': 'yes' }
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/cross', headers })
    assert.deepEqual(ours, theirs)
    assert.deepEqual(seenByTarget[0], seenByTarget[1])
    assert.deepEqual(seenByTarget[0], { authorization: undefined, cookie: undefined, keep: 'yes' })
  })

  it('delivers the redirect itself past maxRedirections', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/chain', maxRedirections: 1 }, ['location'])
    assert.deepEqual(ours, theirs)
    assert.equal(ours.status, 302)
  })

  it('fails past maxRedirections when the request sets throwOnMaxRedirect', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/chain', maxRedirections: 1, throwOnMaxRedirect: true })
    // undici 8 fails with MaxRedirectsError (UND_ERR_REDIRECT_MAX), as conduit does; undici 7
    // threw a plain Error without a code.
    assert.equal(theirs.error, UNDICI_MAJOR === 8 ? 'LIB_ERR_REDIRECT_MAX' : 'none')
    assert.equal(ours.error, 'LIB_ERR_REDIRECT_MAX')
  })

  it('fails on a redirect loop', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/loop-a' })
    assert.equal(theirs.error, 'LIB_ERR_INVALID_ARG')
    assert.equal(ours.error, 'LIB_ERR_REDIRECT')
  })

  it('delivers a redirect without Location as it is, and follows nothing without maxRedirections', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/none' })
    assert.deepEqual(ours, theirs)
    const plain = pair([interceptors.redirect()], [undici.interceptors.redirect()])
    try {
      const [a, b] = await compare(plain, { origin: server.origin, path: '/chain' }, ['location'])
      assert.deepEqual(a, b)
      assert.equal(a.status, 301)
    } finally {
      await plain.close()
    }
  })

  it('gives the followed response the context { history } with every URL requested', async () => {
    const seen = []
    for (const dispatcher of [both.conduit, both.undici] as unknown as Array<{ request: (opts: object) => Promise<{ context: unknown, body: { text: () => Promise<string> } }> }>) {
      const res = await dispatcher.request({ origin: server.origin, path: '/chain', method: 'GET' })
      await res.body.text()
      const context = res.context as { history: URL[] }
      seen.push({ keys: Object.keys(context), history: context.history.map(String), json: JSON.parse(JSON.stringify(context)) })
    }
    assert.deepEqual(seen[0], seen[1])
    const urls = ['/chain', '/chain2', '/chain3', '/final'].map((path) => `${server.origin}${path}`)
    assert.deepEqual(seen[0], { keys: ['history'], history: urls, json: { history: urls } })
  })
})
