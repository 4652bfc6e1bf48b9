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

  it('takes a SharedArrayBuffer body, zero-length too, as its string form, as WebIDL converts it and undici does', async () => {
    for (const shared of [new SharedArrayBuffer(0), sharedBytes('hi!!')]) {
      for (const [Req, Res] of [[Request, Response], [undici.Request, undici.Response]] as const) {
        const response = new Res(shared as never)
        assert.equal(response.headers.get('content-type'), 'text/plain;charset=UTF-8')
        assert.equal(await response.text(), '[object SharedArrayBuffer]')
        assert.equal(await new Req('http://127.0.0.1/', { method: 'POST', body: shared as never }).text(), '[object SharedArrayBuffer]')
      }
    }
    const sent = await fetch(`${server.origin}/echo`, { method: 'POST', body: sharedBytes('hi') as never, dispatcher: agent })
    assert.equal((await sent.json() as { body: string }).body, '[object SharedArrayBuffer]')
  })

  it('refuses a view of a SharedArrayBuffer as a body with a TypeError naming it, where WebIDL refuses shared memory', async () => {
    const shared = sharedBytes('hi!!')
    for (const view of [new Uint8Array(shared, 1, 2), new DataView(shared, 2), new Uint8Array(new SharedArrayBuffer(0))]) {
      assert.throws(() => new Response(view), (err: Error) => err instanceof TypeError && /SharedArrayBuffer/.test(err.message))
      assert.throws(() => new Request('http://127.0.0.1/', { method: 'POST', body: view }), (err: Error) => err instanceof TypeError && /SharedArrayBuffer/.test(err.message))
    }
    await assert.rejects(fetch(`${server.origin}/echo`, { method: 'POST', body: new Uint8Array(shared), dispatcher: agent }), TypeError)
    // Views of ordinary buffers, a zero-length one included, are bytes.
    assert.equal(await new Response(new Uint8Array(new ArrayBuffer(0))).text(), '')
    assert.equal(await new Response(new Uint8Array(Buffer.from('hi!!')).subarray(1, 3)).text(), 'i!')
  })

  it("normalises the referrer 'about://client' to 'about:client', as undici does", () => {
    for (const referrer of ['about://client', 'about:client']) {
      assert.equal(new Request('http://127.0.0.1/', { referrer }).referrer, 'about:client')
      assert.equal(new undici.Request('http://127.0.0.1/', { referrer }).referrer, 'about:client')
    }
    assert.equal(new Request('http://127.0.0.1/', { referrer: 'about:blank' }).referrer, 'about:blank')
  })
})
