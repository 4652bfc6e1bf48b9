import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import type http from 'node:http'
import { Agent, errors, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'

async function readBody (req: http.IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += String(chunk)
  return text
}

function redirectTo (res: http.ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, 'content-type': 'text/plain' })
  res.end(`see ${location}`)
}

describe('interceptors.redirect()', () => {
  it('follows a chain of redirects and delivers only the last answer, with the URLs in context.history', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/a') redirectTo(res, 301, '/b')
      else if (req.url === '/b') redirectTo(res, 302, '/c?x=1')
      else if (req.url === '/c?x=1') redirectTo(res, 308, '/done')
      else res.end(`at ${req.url}`)
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 5 }))
    const { statusCode, body, context } = await dispatcher.request({ origin: server.origin, path: '/a', method: 'GET' })
    assert.equal(statusCode, 200)
    assert.equal(await body.text(), 'at /done')
    const history = (context as { history: URL[] }).history.map((url) => url.href)
    assert.deepEqual(history, ['/a', '/b', '/c?x=1', '/done'].map((path) => `${server.origin}${path}`))
  })

  it('drops Authorization, Cookie and Proxy-Authorization on a cross-origin hop and keeps them on a same-origin one', async (t) => {
    const target = await startHttpServer((req, res) => res.end('target'))
    const start = await startHttpServer((req, res) => {
      if (req.url === '/same') redirectTo(res, 302, '/other')
      else redirectTo(res, 302, `${target.origin}/landed`)
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await start.close(); await target.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 3 }))
    const headers = { authorization: 'Bearer x', cookie: 'a=1', 'proxy-authorization': 'Basic y', 'x-kept': 'yes' }
    const { body } = await dispatcher.request({ origin: start.origin, path: '/same', method: 'GET', headers })
    assert.equal(await body.text(), 'target')
    const sameHop = start.requests[1]!.headers
    assert.equal(sameHop.authorization, 'Bearer x')
    assert.equal(sameHop.cookie, 'a=1')
    const crossHop = target.requests[0]!.headers
    assert.equal(crossHop.authorization, undefined)
    assert.equal(crossHop.cookie, undefined)
    assert.equal(crossHop['proxy-authorization'], undefined)
    assert.equal(crossHop['x-kept'], 'yes')
    assert.equal(crossHop.host, `127.0.0.1:${target.port}`)
  })

  it('turns a POST answered with 303 into a GET without body or body headers', async (t) => {
    const seen: Array<{ method: string, body: string, type: string | undefined }> = []
    const server = await startHttpServer(async (req, res) => {
      seen.push({ method: req.method!, body: await readBody(req), type: req.headers['content-type'] })
      if (req.url === '/form') redirectTo(res, 303, '/result')
      else res.end('result')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 2 }))
    const { statusCode, body } = await dispatcher.request({ origin: server.origin, path: '/form', method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    assert.equal(statusCode, 200)
    assert.equal(await body.text(), 'result')
    assert.deepEqual(seen, [
      { method: 'POST', body: 'a=1', type: 'application/x-www-form-urlencoded' },
      { method: 'GET', body: '', type: undefined }
    ])
  })

  it('sends the method and a buffered body again after 307', async (t) => {
    const seen: string[] = []
    const server = await startHttpServer(async (req, res) => {
      seen.push(`${req.method} ${req.url} ${await readBody(req)}`)
      if (req.url === '/upload') redirectTo(res, 307, '/upload-here')
      else res.end('stored')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 2 }))
    const { body } = await dispatcher.request({ origin: server.origin, path: '/upload', method: 'PUT', body: Buffer.from('payload') })
    assert.equal(await body.text(), 'stored')
    assert.deepEqual(seen, ['PUT /upload payload', 'PUT /upload-here payload'])
  })

  it('does not follow a 307 whose streamed body cannot be sent again, and delivers the 307', async (t) => {
    const server = await startHttpServer(async (req, res) => {
      await readBody(req)
      if (req.url === '/upload') redirectTo(res, 307, '/elsewhere')
      else res.end('should not be reached')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 2 }))
    const { statusCode, headers, body } = await dispatcher.request({ origin: server.origin, path: '/upload', method: 'POST', body: Readable.from(['chunk-1', 'chunk-2']) })
    assert.equal(statusCode, 307)
    assert.equal(headers.location, '/elsewhere')
    assert.equal(await body.text(), 'see /elsewhere')
    assert.equal(server.requests.length, 1)
  })

  it('delivers the redirect past maxRedirections, or fails with RedirectError when throwOnMaxRedirect is set', async (t) => {
    let n = 0
    const server = await startHttpServer((req, res) => redirectTo(res, 302, `/hop${++n}`))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const lenient = agent.compose(interceptors.redirect({ maxRedirections: 2 }))
    const { statusCode, headers, body } = await lenient.request({ origin: server.origin, path: '/', method: 'GET' })
    await body.text()
    assert.equal(statusCode, 302)
    assert.equal(headers.location, '/hop3')
    assert.equal(server.requests.length, 3)
    const strict = agent.compose(interceptors.redirect({ maxRedirections: 2, throwOnMaxRedirect: true }))
    await assert.rejects(strict.request({ origin: server.origin, path: '/', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof errors.RedirectError)
      assert.ok(err instanceof errors.MaxRedirectsError)
      assert.equal((err as errors.RedirectError).code, 'LIB_ERR_REDIRECT_MAX')
      assert.match(err.message, /max redirects \(2\)/)
      return true
    })
    // The request's own option wins over the interceptor's.
    const perRequest = await lenient.request({ origin: server.origin, path: '/', method: 'GET', maxRedirections: 0 })
    await perRequest.body.text()
    assert.equal(perRequest.statusCode, 302)
    await assert.rejects(lenient.request({ origin: server.origin, path: '/', method: 'GET', throwOnMaxRedirect: true }), { code: 'LIB_ERR_REDIRECT_MAX' })
  })

  it('follows nothing without maxRedirections, unless the request asks for it', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/old') redirectTo(res, 301, '/new')
      else res.end('new')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect())
    const plain = await dispatcher.request({ origin: server.origin, path: '/old', method: 'GET' })
    await plain.body.text()
    assert.equal(plain.statusCode, 301)
    const followed = await dispatcher.request({ origin: server.origin, path: '/old', method: 'GET', maxRedirections: 1 })
    assert.equal(await followed.body.text(), 'new')
  })

  it('fails with RedirectError on a loop back to a URL already requested', async (t) => {
    const server = await startHttpServer((req, res) => redirectTo(res, 302, req.url === '/a' ? '/b' : '/a'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 10 }))
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/a', method: 'GET' }), { code: 'LIB_ERR_REDIRECT', name: 'RedirectError' })
    assert.equal(server.requests.length, 2)
  })

  it('delivers a redirect to a non-HTTP URL or without Location as it is', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/ftp') redirectTo(res, 302, 'ftp://127.0.0.1/file')
      else { res.writeHead(302); res.end() }
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 2 }))
    for (const path of ['/ftp', '/nowhere']) {
      const { statusCode, body } = await dispatcher.request({ origin: server.origin, path, method: 'GET' })
      await body.text()
      assert.equal(statusCode, 302)
    }
  })

  it('destroys a streamed body it will not send again when 303 turns the request into a GET', async (t) => {
    const server = await startHttpServer(async (req, res) => {
      await readBody(req)
      if (req.url === '/submit') redirectTo(res, 303, '/done')
      else res.end(`${req.method} done`)
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 1 }))
    const upload = Readable.from(['a', 'b'])
    const { body } = await dispatcher.request({ origin: server.origin, path: '/submit', method: 'POST', body: upload })
    assert.equal(await body.text(), 'GET done')
    assert.equal(upload.destroyed, true)
  })

  it('delivers a redirect whose Location is not a valid URL, and ends with the caller reason when it aborts during a hop', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/bad') redirectTo(res, 302, 'http://[not-a-host/')
      else if (req.url === '/hop') redirectTo(res, 302, '/end')
      else res.end('end')
    })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 2 }))
    const bad = await dispatcher.request({ origin: server.origin, path: '/bad', method: 'GET' })
    await bad.body.text()
    assert.equal(bad.statusCode, 302)
    const reason = new Error('not any more')
    const outcome = await new Promise<Error | string>((resolve) => {
      dispatcher.dispatch({ origin: server.origin, path: '/hop', method: 'GET' }, {
        onResponseStart: () => resolve('the final answer was delivered'),
        onResponseError: (_c, err) => resolve(err),
        onRequestStart: (controller) => { queueMicrotask(() => server.server.once('request', () => controller.abort(reason))) }
      })
    })
    assert.equal(outcome, reason)
  })

  it('refuses bad options naming the value', () => {
    assert.throws(() => interceptors.redirect({ maxRedirections: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: 'redirect(): maxRedirections must be a non-negative integer, got -1' })
    assert.throws(() => interceptors.redirect({ maxRedirections: '3' as never }), { message: 'redirect(): maxRedirections must be a non-negative integer, got "3"' })
    assert.throws(() => interceptors.redirect({ throwOnMaxRedirect: 1 as never }), { message: 'redirect(): throwOnMaxRedirect must be a boolean, got 1' })
    assert.throws(() => interceptors.redirect(null as never), { message: 'redirect(): options must be an object, got null' })
  })

  it('refuses a bad per-request maxRedirections without sending anything', async (t) => {
    const server = await startHttpServer((req, res) => res.end())
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 1 }))
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/', method: 'GET', maxRedirections: 1.5 }), { code: 'LIB_ERR_INVALID_ARG', message: /got 1\.5/ })
    assert.equal(server.requests.length, 0)
  })

  it('logs each decision under NODE_DEBUG=conduit:redirect', async () => {
    const script = `
      import http from 'node:http'
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      const server = http.createServer((req, res) => {
        if (req.url === '/a') { res.writeHead(302, { location: '/b' }); res.end() } else res.end('ok')
      })
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const agent = new Agent()
      const { body } = await agent.compose(interceptors.redirect({ maxRedirections: 1 })).request({ origin: 'http://127.0.0.1:' + server.address().port, path: '/a', method: 'POST', body: 'x' })
      await body.text()
      await agent.close()
      server.close()
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit:redirect')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /CONDUIT:REDIRECT \d+: following 302 from http:\/\/127\.0\.0\.1:\d+\/a to http:\/\/127\.0\.0\.1:\d+\/b as GET \(was POST\)/)
  })
})
