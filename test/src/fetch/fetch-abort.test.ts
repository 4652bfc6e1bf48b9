import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { startFetchServer } from './fetch-server.js'
import { startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

describe('fetch abort', () => {
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

  it('rejects with the reason of an already aborted signal without dispatching', async () => {
    const before = server.requests.length
    const reason = new Error('already')
    await assert.rejects(fetch(`${server.origin}/text`, { signal: AbortSignal.abort(reason), dispatcher: agent }), (err) => err === reason)
    assert.equal(server.requests.length, before)
  })

  it('rejects with an AbortError DOMException when the signal was aborted without a reason', async () => {
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(fetch(`${server.origin}/text`, { signal: controller.signal, dispatcher: agent }), (err: Error) => err.name === 'AbortError')
  })

  it('rejects with the reason when aborted while the connection is still being set up', async (t) => {
    // The server accepts TCP but never answers the TLS ClientHello, so the connection never completes.
    const controller = new AbortController()
    const reason = new Error('stop connecting')
    const tcp = await startTcpServer(() => controller.abort(reason))
    const connecting = new Agent()
    t.after(async () => {
      await connecting.destroy()
      await tcp.close()
    })
    await assert.rejects(fetch(`https://127.0.0.1:${tcp.port}/`, { signal: controller.signal, dispatcher: connecting }), (err) => err === reason)
  })

  it('rejects with the reason when aborted while waiting for headers', async () => {
    const controller = new AbortController()
    const pending = fetch(`${server.origin}/hang`, { signal: controller.signal, dispatcher: agent })
    const seen = server.requests.length
    await new Promise<void>((resolve) => { const wait = (): void => { server.requests.length > seen ? resolve() : setImmediate(wait) }; wait() })
    controller.abort(new Error('too slow'))
    await assert.rejects(pending, (err: Error) => err.message === 'too slow')
  })

  it('errors the body being read with the reason when aborted after the headers', async () => {
    const controller = new AbortController()
    const response = await fetch(`${server.origin}/partial`, { signal: controller.signal, dispatcher: agent })
    const reading = response.text()
    controller.abort(new Error('stop reading'))
    await assert.rejects(reading, (err: Error) => err.message === 'stop reading')
  })

  it('errors response.body when aborted while streaming', async () => {
    const controller = new AbortController()
    const response = await fetch(`${server.origin}/partial`, { signal: controller.signal, dispatcher: agent })
    const reader = response.body!.getReader()
    const first = await reader.read()
    assert.equal(Buffer.from(first.value!).toString(), 'first part')
    controller.abort(new Error('stop streaming'))
    await assert.rejects(reader.read(), (err: Error) => err.message === 'stop streaming')
  })

  it('does nothing when the signal is aborted after the body was read', async () => {
    const controller = new AbortController()
    const response = await fetch(`${server.origin}/text`, { signal: controller.signal, dispatcher: agent })
    assert.equal(await response.text(), 'hello')
    controller.abort()
  })

  it('leaves no abort listener on the signal once a fetch has finished', async () => {
    const controller = new AbortController()
    const text = await (await fetch(`${server.origin}/text`, { signal: controller.signal, dispatcher: agent })).text()
    const data = await (await fetch('data:,x', { signal: controller.signal })).text()
    await assert.rejects(fetch(`${server.origin}/text`, { signal: controller.signal, integrity: 'sha256-AAAA', dispatcher: agent }), TypeError)
    assert.equal(text + data, 'hellox')
    assert.equal(EventEmitter.getEventListeners(controller.signal, 'abort').length, 0)
  })
})

