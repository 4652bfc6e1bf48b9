import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { Request } from '../../../src/fetch/request.js'
import { Response } from '../../../src/fetch/response.js'
import { startFetchServer, useFetchServer } from './fetch-server.js'
import { startHttpsServer, trustTestCa } from '../../helpers/servers.js'

describe('fetch over a dispatcher', () => {
  const ctx = useFetchServer()

  it('resolves with status, headers, url and a readable body', async () => {
    const response = await fetch(`${ctx.server.origin}/text`, { dispatcher: ctx.agent })
    assert.ok(response instanceof Response)
    assert.equal(response.status, 200)
    assert.equal(response.ok, true)
    assert.equal(response.statusText, 'OK')
    assert.equal(response.type, 'basic')
    assert.equal(response.url, `${ctx.server.origin}/text`)
    assert.equal(response.redirected, false)
    assert.equal(response.headers.get('x-custom'), 'yes')
    assert.throws(() => response.headers.set('x', 'y'), TypeError)
    assert.equal(await response.text(), 'hello')
  })

  it('parses JSON bodies', async () => {
    const response = await fetch(new URL(`${ctx.server.origin}/json`), { dispatcher: ctx.agent })
    assert.deepEqual(await response.json(), { ok: true, items: [1, 2, 3] })
  })

  it('resolves for HTTP error statuses instead of rejecting', async () => {
    const response = await fetch(`${ctx.server.origin}/status?code=503`, { dispatcher: ctx.agent })
    assert.equal(response.status, 503)
    assert.equal(response.ok, false)
    assert.equal(await response.text(), 'status 503')
  })

  it('gives a null body for HEAD and 204 responses', async () => {
    const head = await fetch(`${ctx.server.origin}/text`, { method: 'HEAD', dispatcher: ctx.agent })
    assert.equal(head.body, null)
    assert.equal(await head.text(), '')
    const empty = await fetch(`${ctx.server.origin}/status?code=204`, { dispatcher: ctx.agent })
    assert.equal(empty.body, null)
  })

  it('sends the method, headers and default headers fetch adds', async () => {
    const response = await fetch(`${ctx.server.origin}/echo?q=1`, {
      method: 'PATCH', body: 'data', headers: { 'x-one': '1', Authorization: 'Bearer t' }, dispatcher: ctx.agent
    })
    const echo = await response.json() as { method: string, url: string, headers: Record<string, string>, body: string }
    assert.equal(echo.method, 'PATCH')
    assert.equal(echo.url, '/echo?q=1')
    assert.equal(echo.body, 'data')
    assert.equal(echo.headers['x-one'], '1')
    assert.equal(echo.headers.authorization, 'Bearer t')
    assert.equal(echo.headers['content-type'], 'text/plain;charset=UTF-8')
    assert.equal(echo.headers['content-length'], '4')
    assert.equal(echo.headers.accept, '*/*')
    assert.match(echo.headers['accept-encoding']!, /gzip, deflate, br/)
  })

  it('sends content-length: 0 for a POST without a body', async () => {
    const echo = await (await fetch(`${ctx.server.origin}/echo`, { method: 'POST', dispatcher: ctx.agent })).json() as { headers: Record<string, string> }
    assert.equal(echo.headers['content-length'], '0')
  })

  it('accepts a Request as input, and marks its body used', async () => {
    const request = new Request(`${ctx.server.origin}/echo`, { method: 'PUT', body: 'from request', headers: { 'x-r': 'r' } })
    const echo = await (await fetch(request, { dispatcher: ctx.agent })).json() as { method: string, body: string, headers: Record<string, string> }
    assert.equal(echo.method, 'PUT')
    assert.equal(echo.body, 'from request')
    assert.equal(echo.headers['x-r'], 'r')
    assert.equal(request.bodyUsed, true)
    await assert.rejects(fetch(request, { dispatcher: ctx.agent }), TypeError)
  })

  it("accepts the runtime's Request, Headers and URLSearchParams as inputs", async () => {
    const runtime = new globalThis.Request(`${ctx.server.origin}/echo`, { method: 'POST', body: new URLSearchParams('a=1'), headers: new globalThis.Headers({ 'x-g': 'g' }) })
    const echo = await (await fetch(runtime, { dispatcher: ctx.agent })).json() as { body: string, headers: Record<string, string> }
    assert.equal(echo.body, 'a=1')
    assert.equal(echo.headers['x-g'], 'g')
    const echo2 = await (await fetch(`${ctx.server.origin}/echo`, { headers: new globalThis.Headers({ 'x-h': 'h' }), dispatcher: ctx.agent })).json() as { headers: Record<string, string> }
    assert.equal(echo2.headers['x-h'], 'h')
  })

  it('returns each Set-Cookie value separately', async () => {
    const response = await fetch(`${ctx.server.origin}/cookies`, { dispatcher: ctx.agent })
    assert.deepEqual(response.headers.getSetCookie(), ['a=1; Path=/', 'b=2; HttpOnly'])
    await response.text()
  })

  it('rejects with TypeError("fetch failed") and the real error as cause on a network failure', async () => {
    const closed = await startFetchServer()
    const origin = closed.origin
    await closed.close()
    await assert.rejects(fetch(`${origin}/text`, { dispatcher: ctx.agent }), (err: Error & { cause?: { code?: string } }) => {
      assert.ok(err instanceof TypeError)
      assert.equal(err.message, 'fetch failed')
      assert.equal(err.cause?.code, 'ECONNREFUSED')
      return true
    })
  })

  it('errors a body cut short by the server with TypeError("terminated")', async () => {
    const response = await fetch(`${ctx.server.origin}/cut`, { dispatcher: ctx.agent })
    await assert.rejects(response.text(), (err: Error) => err instanceof TypeError && err.message === 'terminated' && err.cause instanceof Error)
  })

  it('rejects invalid input with a TypeError before dispatching', async () => {
    await assert.rejects(fetch('not a url', { dispatcher: ctx.agent }), (err: Error) => err instanceof TypeError && err.message.includes('not a url'))
    await assert.rejects(fetch(`${ctx.server.origin}/`, { redirect: 'sometimes' as never, dispatcher: ctx.agent }), (err: Error) => err instanceof TypeError && err.message.includes('sometimes'))
    await assert.rejects(fetch(`${ctx.server.origin}/`, { dispatcher: {} as never }), TypeError)
  })

  it('fails with a network error for schemes other than http, https and data', async () => {
    await assert.rejects(fetch('file:///etc/hostname', { dispatcher: ctx.agent }), (err: Error) => err instanceof TypeError && err.message === 'fetch failed')
  })

  it('refuses the Fetch Standard\'s bad ports with a network error, sending nothing', async () => {
    for (const port of [9, 25, 6667]) {
      await assert.rejects(fetch(`http://127.0.0.1:${port}/`, { dispatcher: ctx.agent }), (err: Error) =>
        err instanceof TypeError && err.message === 'fetch failed' && /bad port: \d+/.test(String((err.cause as Error).message)))
    }
  })

  it('answers data: URLs locally', async () => {
    const response = await fetch('data:text/plain;base64,aGk=')
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'text/plain')
    assert.equal(await response.text(), 'hi')
    await assert.rejects(fetch('data:no-comma'), (err: Error) => err instanceof TypeError && err.message === 'fetch failed')
  })

  it('reads a large body with arrayBuffer() intact', async () => {
    const size = 4 * 1024 * 1024 + 7
    const response = await fetch(`${ctx.server.origin}/big?size=${size}`, { dispatcher: ctx.agent })
    const buffer = await response.arrayBuffer()
    assert.equal(buffer.byteLength, size)
    assert.equal(new Uint8Array(buffer)[size - 1], 97)
  })

  it('streams a large body through response.body with backpressure', async () => {
    const size = 2 * 1024 * 1024
    const response = await fetch(`${ctx.server.origin}/big?size=${size}`, { dispatcher: ctx.agent })
    let total = 0
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) total += chunk.length
    assert.equal(total, size)
  })

  it('cancelling response.body releases the request', async () => {
    const response = await fetch(`${ctx.server.origin}/big?size=${8 * 1024 * 1024}`, { dispatcher: ctx.agent })
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel(new Error('enough'))
    const next = await fetch(`${ctx.server.origin}/text`, { dispatcher: ctx.agent })
    assert.equal(await next.text(), 'hello')
  })

  it('fetches over HTTPS and reports a certificate failure as a network error', async () => {
    const secure = await startHttpsServer((_req, res) => res.end('secure hello'))
    const trusting = new Agent({ connect: trustTestCa })
    try {
      const response = await fetch(`${secure.origin}/`, { dispatcher: trusting })
      assert.equal(response.url, `${secure.origin}/`)
      assert.equal(await response.text(), 'secure hello')
      await assert.rejects(fetch(`${secure.origin}/`, { dispatcher: ctx.agent }), (err: Error & { cause?: { code?: string } }) =>
        err instanceof TypeError && err.message === 'fetch failed' && typeof err.cause?.code === 'string')
    } finally {
      await trusting.close()
      await secure.close()
    }
  })
})

