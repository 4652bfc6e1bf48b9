import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import type { RequestOptions } from '../../../src/api/request.js'
import type { DispatchController, DispatchHandler } from '../../../src/handler.js'
import { EVENTS, fixture, recordingOrigin, tempDir } from './snapshot-test-kit.js'

type T = { after: (fn: () => unknown) => void }

/** A hand-made recording: head after 1000 ms, then chunks a, b, c, 0, 5000 and 5000 ms apart. */
async function timedFile (dir: string): Promise<string> {
  const file = join(dir, 'timed.json')
  const chunks = ['a', 'b', 'c'].map((c) => Buffer.from(c).toString('base64'))
  await writeFile(file, JSON.stringify([{
    hash: 'x',
    snapshot: {
      request: { method: 'GET', url: 'http://127.0.0.1:1/stream', headers: {}, body: '' },
      responses: [{ statusCode: 200, headers: { 'content-type': 'text/event-stream' }, body: Buffer.from('abc').toString('base64'), chunks, trailers: {}, delayMs: 1000, chunkDelaysMs: [0, 5000, 5000] }],
      timestamp: new Date().toISOString()
    }
  }]))
  return file
}

/** What reached a handler, in order. */
function collector () {
  const events: string[] = []
  let controller: DispatchController | undefined
  const handler: DispatchHandler = {
    onRequestStart: (c) => { controller = c },
    onResponseStart: (_c, status) => { events.push(`head ${status}`) },
    onResponseData: (_c, chunk) => { events.push(chunk.toString()) },
    onResponseEnd: () => { events.push('end') },
    onResponseError: (_c, err) => { events.push(`error ${(err as Error & { code?: string }).code ?? err.message}`) }
  }
  return { events, handler, abort: (err: Error) => controller?.abort(err) }
}

/** Lets queued microtasks and immediates run (the fake clock does not move them). */
const settle = async (): Promise<void> => { for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve)) }

async function timedAgent (t: T, replaySpeed: number): Promise<SnapshotAgent> {
  const dir = await tempDir(t)
  const agent = new SnapshotAgent({ mode: 'lockdown', snapshotPath: await timedFile(dir), replaySpeed })
  t.after(() => agent.close())
  await agent.loadSnapshots()
  return agent
}

describe('snapshot replay timing', () => {
  it('records the wait for the head and the gaps between the chunks of a streamed response', async (t) => {
    const dir = await tempDir(t)
    const server = await recordingOrigin(t, 25)
    const file = join(dir, 'recorded.json')
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    await (await recorder.request({ origin: server.origin, path: '/sse', method: 'GET' } as RequestOptions)).body.text()
    await (await recorder.request({ origin: server.origin, path: '/json', method: 'GET' } as RequestOptions)).body.text()
    await recorder.close()
    const [json, sse] = JSON.parse(await readFile(file, 'utf8')).map((e: { snapshot: { responses: Array<{ delayMs: number, chunkDelaysMs: number[], chunks?: string[] }> } }) => e.snapshot.responses[0]!)
    assert.equal(sse.chunks?.length, EVENTS.length)
    assert.equal(sse.chunkDelaysMs.length, EVENTS.length)
    assert.ok(sse.chunkDelaysMs.every((ms: number) => Number.isInteger(ms) && ms >= 0))
    assert.ok(sse.chunkDelaysMs[1] + sse.chunkDelaysMs[2] > 0, 'the server paused between events')
    assert.ok(Number.isInteger(sse.delayMs) && sse.delayMs >= 0)
    assert.equal(json.chunkDelaysMs.length, 1, 'a body kept whole has one delay')
  })

  it('replays at the recorded pace with replaySpeed: 1, on the caller\'s clock', async (t) => {
    const agent = await timedAgent(t, 1)
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { events, handler } = collector()
    agent.dispatch({ origin: 'http://127.0.0.1:1', path: '/stream', method: 'GET' }, handler)
    await settle()
    assert.deepEqual(events, [])
    t.mock.timers.tick(999)
    await settle()
    assert.deepEqual(events, [])
    t.mock.timers.tick(1)
    await settle()
    assert.deepEqual(events, ['head 200', 'a'])
    t.mock.timers.tick(4999)
    await settle()
    assert.deepEqual(events, ['head 200', 'a'])
    t.mock.timers.tick(1)
    await settle()
    assert.deepEqual(events, ['head 200', 'a', 'b'])
    t.mock.timers.tick(5000)
    await settle()
    assert.deepEqual(events, ['head 200', 'a', 'b', 'c', 'end'])
  })

  it('divides the delays by replaySpeed: 2 plays twice as fast', async (t) => {
    const agent = await timedAgent(t, 2)
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { events, handler } = collector()
    agent.dispatch({ origin: 'http://127.0.0.1:1', path: '/stream', method: 'GET' }, handler)
    await settle()
    t.mock.timers.tick(500)
    await settle()
    assert.deepEqual(events, ['head 200', 'a'])
    t.mock.timers.tick(2500)
    await settle()
    assert.deepEqual(events, ['head 200', 'a', 'b'])
    t.mock.timers.tick(2500)
    await settle()
    assert.deepEqual(events, ['head 200', 'a', 'b', 'c', 'end'])
  })

  it('replays at once with replaySpeed: 0, the default', async (t) => {
    const agent = await timedAgent(t, 0)
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { events, handler } = collector()
    agent.dispatch({ origin: 'http://127.0.0.1:1', path: '/stream', method: 'GET' }, handler)
    await settle()
    assert.deepEqual(events, ['head 200', 'a', 'b', 'c', 'end'])
  })

  it('stops a paced replay aborted between chunks: the error once, nothing after, no timer left', async (t) => {
    const agent = await timedAgent(t, 1)
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { events, handler, abort } = collector()
    agent.dispatch({ origin: 'http://127.0.0.1:1', path: '/stream', method: 'GET' }, handler)
    await settle()
    t.mock.timers.tick(1000)
    await settle()
    abort(Object.assign(new Error('gave up'), { code: 'GAVE_UP' }))
    await settle()
    t.mock.timers.tick(20_000)
    await settle()
    assert.deepEqual(events, ['head 200', 'a', 'error GAVE_UP'])
  })

  it('replays the timings of a HAR entry: the wait before the head, the receive time before the body', async (t) => {
    const dir = await tempDir(t)
    const agent = new SnapshotAgent({ mode: 'lockdown', snapshotPath: await fixture(dir, 'mitmproxy.har'), replaySpeed: 1 })
    t.after(() => agent.close())
    await agent.loadSnapshots()
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { events, handler } = collector()
    agent.dispatch({ origin: 'http://shop.example.test', path: '/api/events', method: 'GET' }, handler)
    await settle()
    // send 0.1 + wait 10.2 ms, then receive 290.2 ms.
    t.mock.timers.tick(10)
    await settle()
    assert.deepEqual(events, [])
    t.mock.timers.tick(1)
    await settle()
    assert.deepEqual(events, ['head 200'])
    // The body's delay starts once the head was delivered, at 11 ms on the fake clock.
    t.mock.timers.tick(290)
    await settle()
    assert.deepEqual(events, ['head 200'])
    t.mock.timers.tick(1)
    await settle()
    assert.equal(events.length, 3)
    assert.equal(events[2], 'end')
  })

  it('rejects a replaySpeed that is not a non-negative finite number', () => {
    for (const bad of [-1, Infinity, Number.NaN, '1']) {
      assert.throws(() => new SnapshotAgent({ replaySpeed: bad as never }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: replaySpeed must be a non-negative finite number/ })
    }
  })
})
