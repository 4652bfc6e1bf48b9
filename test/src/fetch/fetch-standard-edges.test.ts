import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../../helpers/undici-reference.js'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { Request } from '../../../src/fetch/request.js'
import { Response } from '../../../src/fetch/response.js'
import { startFetchServer } from './fetch-server.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

function sharedBytes (text: string): SharedArrayBuffer {
  const shared = new SharedArrayBuffer(text.length)
  new Uint8Array(shared).set(Buffer.from(text, 'latin1'))
  return shared
}

function stringStream (): ReadableStream<string> {
  return new ReadableStream<string>({ start (controller) { controller.enqueue('abc'); controller.close() } })
}

describe('fetch edge cases the Fetch standard defines', () => {
  let server: TestServer
  let agent: Agent
  before(async () => {
    server = await startFetchServer()
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  it('has a length of 1, counting only the required input', () => {
    assert.equal(fetch.length, 1)
    assert.equal(fetch.length, undici.fetch.length)
  })

  it('cancels a ReadableStream body with the reason when the signal is already aborted', async () => {
    let cancelledWith: unknown = null
    const body = new ReadableStream<Uint8Array>({
      pull (controller) { controller.enqueue(new Uint8Array(1)) },
      cancel (reason) { cancelledWith = reason }
    })
    const controller = new AbortController()
    const reason = new Error('stop before sending')
    controller.abort(reason)
    await assert.rejects(fetch(`${server.origin}/echo`, { method: 'POST', body, duplex: 'half', signal: controller.signal, dispatcher: agent } as never), (err) => err === reason)
    assert.equal(cancelledWith, reason)
  })

  it('fails reading a Response over a stream of strings with a TypeError, as undici does', async () => {
    await assert.rejects(new Response(stringStream() as never).text(), (err: Error) => err instanceof TypeError && /Uint8Array/.test(err.message) && /"abc"/.test(err.message))
    await assert.rejects(new undici.Response(stringStream() as never).text(), TypeError)
  })

  it('fails a fetch whose request body stream yields strings with a TypeError cause', async () => {
    // The upload breaks off after the head: this server drains and ignores the aborted request.
    const sink = await startHttpServer((req, res) => {
      req.on('error', () => {})
      req.resume()
      req.on('end', () => res.end())
    })
    try {
      await assert.rejects(fetch(`${sink.origin}/`, { method: 'POST', body: stringStream() as never, duplex: 'half', dispatcher: agent } as never),
        (err: Error) => err instanceof TypeError && err.cause instanceof TypeError && /Uint8Array/.test(err.cause.message))
    } finally {
      await sink.close()
    }
  })

  it('reads a SharedArrayBuffer and views over one as a body, in a Response and in a fetch', async () => {
    const shared = sharedBytes('hi!!')
    assert.equal(await new Response(shared).text(), 'hi!!')
    assert.equal(await new Response(new Uint8Array(shared, 1, 2)).text(), 'i!')
    assert.equal(await new Response(new DataView(shared, 2)).text(), '!!')
    const response = await fetch(`${server.origin}/echo`, { method: 'POST', body: new Uint8Array(shared, 0, 2), dispatcher: agent })
    const echo = await response.json() as { body: string, headers: Record<string, string> }
    assert.equal(echo.body, 'hi')
    assert.equal(echo.headers['content-length'], '2')
    const whole = await fetch(`${server.origin}/echo`, { method: 'POST', body: shared, dispatcher: agent })
    assert.equal((await whole.json() as { body: string }).body, 'hi!!')
  })

  it("normalises the referrer 'about://client' to 'about:client', as undici does", () => {
    for (const referrer of ['about://client', 'about:client']) {
      assert.equal(new Request('http://127.0.0.1/', { referrer }).referrer, 'about:client')
      assert.equal(new undici.Request('http://127.0.0.1/', { referrer }).referrer, 'about:client')
    }
    assert.equal(new Request('http://127.0.0.1/', { referrer: 'about:blank' }).referrer, 'about:blank')
  })
})
