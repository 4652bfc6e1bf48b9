import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { fetch as undiciFetch } from '../../helpers/undici-reference.js'
import { startFetchServer } from './fetch-server.js'
import type { TestServer } from '../../helpers/servers.js'

interface Echo { method: string, url: string, headers: Record<string, string | undefined>, body: string }

describe('fetch redirects', () => {
  let server: TestServer
  let other: TestServer
  let agent: Agent
  before(async () => {
    server = await startFetchServer()
    other = await startFetchServer()
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
    await other.close()
  })

  it('follows a chain of redirects and reports the final url', async () => {
    const response = await fetch(`${server.origin}/chain?left=5`, { dispatcher: agent })
    assert.equal(response.status, 200)
    assert.equal(response.redirected, true)
    assert.equal(response.url, `${server.origin}/chain?left=0`)
    assert.equal(await response.text(), 'end of chain')
  })

  it('follows 20 redirects and fails on the 21st', async () => {
    const ok = await fetch(`${server.origin}/chain?left=20`, { dispatcher: agent })
    assert.equal(await ok.text(), 'end of chain')
    await assert.rejects(fetch(`${server.origin}/chain?left=21`, { dispatcher: agent }), (err: Error) =>
      err instanceof TypeError && err.message === 'fetch failed' && /redirect count/.test((err.cause as Error).message))
  })

  it('turns a POST into a body-less GET on 301, 302 and 303', async () => {
    for (const status of [301, 302, 303]) {
      const response = await fetch(`${server.origin}/redirect?status=${status}&to=/echo`, {
        method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain', 'content-language': 'en' }, dispatcher: agent
      })
      const echo = await response.json() as Echo
      assert.equal(echo.method, 'GET', `status ${status}`)
      assert.equal(echo.body, '')
      assert.equal(echo.headers['content-type'], undefined)
      assert.equal(echo.headers['content-language'], undefined)
    }
  })

  it('turns any method but HEAD into GET on 303, and keeps it on 307 and 308 with the body', async () => {
    const put303 = await (await fetch(`${server.origin}/redirect?status=303&to=/echo`, { method: 'PUT', body: 'x', dispatcher: agent })).json() as Echo
    assert.equal(put303.method, 'GET')
    for (const status of [307, 308]) {
      const echo = await (await fetch(`${server.origin}/redirect?status=${status}&to=/echo`, { method: 'POST', body: 'kept', dispatcher: agent })).json() as Echo
      assert.equal(echo.method, 'POST')
      assert.equal(echo.body, 'kept')
    }
  })

  it('drops Authorization, Cookie and Proxy-Authorization on a cross-origin redirect only', async () => {
    const headers = { authorization: 'Bearer secret', cookie: 'id=1', 'proxy-authorization': 'Basic x', 'x-keep': 'kept' }
    const same = await (await fetch(`${server.origin}/redirect?to=/echo`, { headers, dispatcher: agent })).json() as Echo
    assert.equal(same.headers.authorization, 'Bearer secret')
    assert.equal(same.headers.cookie, 'id=1')
    const cross = await (await fetch(`${server.origin}/redirect?to=${encodeURIComponent(`${other.origin}/echo`)}`, { headers, dispatcher: agent })).json() as Echo
    assert.equal(cross.headers.authorization, undefined)
    assert.equal(cross.headers.cookie, undefined)
    assert.equal(cross.headers['proxy-authorization'], undefined)
    assert.equal(cross.headers['x-keep'], 'kept')
    assert.equal(cross.headers.host, new URL(other.origin).host)
  })

  it("returns the redirect itself with redirect: 'manual'", async () => {
    const response = await fetch(`${server.origin}/redirect?status=302&to=/text`, { redirect: 'manual', dispatcher: agent })
    assert.equal(response.status, 302)
    assert.equal(response.headers.get('location'), '/text')
    assert.equal(response.redirected, false)
    assert.equal(await response.text(), 'redirecting')
  })

  it("rejects any redirect status with redirect: 'error', even without a Location, as undici does", async () => {
    for (const code of [301, 302, 303, 307, 308]) {
      const url = `${server.origin}/status?code=${code}`
      await assert.rejects(fetch(url, { redirect: 'error', dispatcher: agent }), (err: Error) =>
        err instanceof TypeError && err.message === 'fetch failed' && (err.cause as Error).message.includes(`status ${code}`))
      await assert.rejects(undiciFetch(url, { redirect: 'error' }), TypeError)
    }
    const manual = await fetch(`${server.origin}/status?code=302`, { redirect: 'manual', dispatcher: agent })
    assert.equal(manual.status, 302)
    await manual.text()
  })

  it("rejects a redirect with redirect: 'error'", async () => {
    await assert.rejects(fetch(`${server.origin}/redirect?to=/text`, { redirect: 'error', dispatcher: agent }), (err: Error) =>
      err instanceof TypeError && err.message === 'fetch failed' && /unexpected redirect/.test((err.cause as Error).message))
  })

  it('refuses to follow a redirect to a non-HTTP scheme', async () => {
    await assert.rejects(fetch(`${server.origin}/redirect?to=${encodeURIComponent('ftp://127.0.0.1/x')}`, { dispatcher: agent }), (err: Error) =>
      err instanceof TypeError && /non-HTTP/.test((err.cause as Error).message))
  })

  it('refuses to re-send a streamed body on a 307 but follows a 303', async () => {
    const stream = (): ReadableStream<Uint8Array> => new ReadableStream({ start (c) { c.enqueue(Buffer.from('s')); c.close() } })
    await assert.rejects(fetch(`${server.origin}/redirect?status=307&to=/echo`, { method: 'POST', body: stream(), duplex: 'half', dispatcher: agent }), (err: Error) =>
      err instanceof TypeError && /streamed request body/.test((err.cause as Error).message))
    const echo = await (await fetch(`${server.origin}/redirect?status=303&to=/echo`, { method: 'POST', body: stream(), duplex: 'half', dispatcher: agent })).json() as Echo
    assert.equal(echo.method, 'GET')
  })

  it('passes a redirect without Location through as the response', async () => {
    const response = await fetch(`${server.origin}/status?code=301`, { dispatcher: agent })
    assert.equal(response.status, 301)
    assert.equal(await response.text(), 'status 301')
  })

  it('types a response that ended on another origin as cors, and hides it in no-cors mode', async () => {
    const to = `${server.origin}/redirect?to=${encodeURIComponent(`${other.origin}/text`)}`
    const cors = await fetch(to, { dispatcher: agent })
    assert.equal(cors.type, 'cors')
    assert.equal(await cors.text(), 'hello')
    const opaque = await fetch(to, { mode: 'no-cors', dispatcher: agent })
    assert.equal(opaque.type, 'opaque')
    assert.equal(opaque.status, 0)
    assert.equal(opaque.url, '')
    assert.equal(opaque.body, null)
    assert.deepEqual([...opaque.headers], [])
  })

  it("refuses a cross-origin redirect in 'same-origin' mode", async () => {
    const to = `${server.origin}/redirect?to=${encodeURIComponent(`${other.origin}/text`)}`
    await assert.rejects(fetch(to, { mode: 'same-origin', dispatcher: agent }), (err: Error) =>
      err instanceof TypeError && /same-origin/.test((err.cause as Error).message))
  })
})
