import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { useFetchServer } from './fetch-server.js'
import { startTcpServer } from '../../helpers/servers.js'

describe('fetch abort', () => {
  const ctx = useFetchServer()

  it('rejects with the reason of an already aborted signal without dispatching', async () => {
    const before = ctx.server.requests.length
    const reason = new Error('already')
    await assert.rejects(fetch(`${ctx.server.origin}/text`, { signal: AbortSignal.abort(reason), dispatcher: ctx.agent }), (err) => err === reason)
    assert.equal(ctx.server.requests.length, before)
  })

  it('rejects with an AbortError DOMException when the signal was aborted without a reason', async () => {
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(fetch(`${ctx.server.origin}/text`, { signal: controller.signal, dispatcher: ctx.agent }), (err: Error) => err.name === 'AbortError')
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
    const pending = fetch(`${ctx.server.origin}/hang`, { signal: controller.signal, dispatcher: ctx.agent })
    const seen = ctx.server.requests.length
    await new Promise<void>((resolve) => { const wait = (): void => { ctx.server.requests.length > seen ? resolve() : setImmediate(wait) }; wait() })
    controller.abort(new Error('too slow'))
    await assert.rejects(pending, (err: Error) => err.message === 'too slow')
  })

  it('errors the body being read with the reason when aborted after the headers', async () => {
    const controller = new AbortController()
    const response = await fetch(`${ctx.server.origin}/partial`, { signal: controller.signal, dispatcher: ctx.agent })
    const reading = response.text()
    controller.abort(new Error('stop reading'))
    await assert.rejects(reading, (err: Error) => err.message === 'stop reading')
  })

  it('errors response.body when aborted while streaming', async () => {
    const controller = new AbortController()
    const response = await fetch(`${ctx.server.origin}/partial`, { signal: controller.signal, dispatcher: ctx.agent })
    const reader = response.body!.getReader()
    const first = await reader.read()
    assert.equal(Buffer.from(first.value!).toString(), 'first part')
    controller.abort(new Error('stop streaming'))
    await assert.rejects(reader.read(), (err: Error) => err.message === 'stop streaming')
  })

  it('does nothing when the signal is aborted after the body was read', async () => {
    const controller = new AbortController()
    const response = await fetch(`${ctx.server.origin}/text`, { signal: controller.signal, dispatcher: ctx.agent })
    assert.equal(await response.text(), 'hello')
    controller.abort()
  })

  it('leaves no abort listener on the signal once a fetch has finished', async () => {
    const controller = new AbortController()
    const text = await (await fetch(`${ctx.server.origin}/text`, { signal: controller.signal, dispatcher: ctx.agent })).text()
    const data = await (await fetch('data:,x', { signal: controller.signal })).text()
    await assert.rejects(fetch(`${ctx.server.origin}/text`, { signal: controller.signal, integrity: 'sha256-AAAA', dispatcher: ctx.agent }), TypeError)
    assert.equal(text + data, 'hellox')
    assert.equal(EventEmitter.getEventListeners(controller.signal, 'abort').length, 0)
  })
})

