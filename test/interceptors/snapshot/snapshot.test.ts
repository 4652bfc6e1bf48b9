import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Agent } from '../../../src/dispatcher/agent.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import type { RequestOptions } from '../../../src/api/request.js'
import type { DispatchHandler } from '../../../src/handler.js'
import { LibraryError } from '../../../src/errors.js'
import { snapshot } from '../../../interceptors/snapshot/index.js'
import type { SnapshotInterceptorOptions } from '../../../interceptors/snapshot/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { countConnects } from './snapshot-test-kit.js'

type T = { after: (fn: () => unknown) => void }

async function tempFile (t: T): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return join(dir, 'snapshots.json')
}

function stack (t: T, options: SnapshotInterceptorOptions): { agent: Dispatcher, snap: ReturnType<typeof snapshot> } {
  const base = new Agent()
  const snap = snapshot(options)
  t.after(async () => { await snap.recorder.close(); await base.close() })
  return { agent: base.compose(snap), snap }
}

async function text (agent: Dispatcher, origin: string, path: string, extra: Partial<RequestOptions> = {}): Promise<string> {
  const res = await agent.request({ origin, path, method: 'GET', ...extra } as RequestOptions)
  return res.body.text()
}

describe('snapshot interceptor: record and playback', () => {
  it('records against a real server, then plays back with the server stopped and no connection attempted', async (t) => {
    const file = await tempFile(t)
    let hits = 0
    const server = await startHttpServer((req, res) => {
      hits++
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ url: req.url, hits }))
    })
    const origin = server.origin
    const recording = snapshot({ mode: 'record', snapshotPath: file })
    const recordAgent = new Agent().compose(recording)
    assert.deepEqual(JSON.parse(await text(recordAgent, origin, '/users?page=1')), { url: '/users?page=1', hits: 1 })
    assert.deepEqual(JSON.parse(await text(recordAgent, origin, '/posts', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })), { url: '/posts', hits: 2 })
    await recording.recorder.close()
    await recordAgent.close()
    await server.close()

    const { agent } = stack(t, { mode: 'playback', snapshotPath: file })
    const attempts = await countConnects(async () => {
      assert.deepEqual(JSON.parse(await text(agent, origin, '/users?page=1')), { url: '/users?page=1', hits: 1 })
      const res = await agent.request({ origin, path: '/posts', method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['content-type'], 'application/json')
      assert.deepEqual(await res.body.json(), { url: '/posts', hits: 2 })
    })
    assert.equal(attempts, 0)
  })

  it('replays repeated identical requests in recorded order, then repeats the last', async (t) => {
    const file = await tempFile(t)
    let n = 0
    const server = await startHttpServer((_req, res) => res.end(`response ${++n}`))
    t.after(() => server.close())
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    for (let i = 0; i < 3; i++) await text(rec.agent, server.origin, '/counter')
    await rec.snap.recorder.close()
    const play = stack(t, { mode: 'playback', snapshotPath: file })
    const seen: string[] = []
    for (let i = 0; i < 4; i++) seen.push(await text(play.agent, server.origin, '/counter'))
    assert.deepEqual(seen, ['response 1', 'response 2', 'response 3', 'response 3'])
    play.snap.recorder.resetCallCounts()
    assert.equal(await text(play.agent, server.origin, '/counter'), 'response 1')
    assert.equal(server.requests.length, 3)
  })

  it('keeps binary response bodies byte-exact', async (t) => {
    const file = await tempFile(t)
    const bytes = randomBytes(70_000)
    const server = await startHttpServer((_req, res) => res.end(bytes))
    t.after(() => server.close())
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    await (await rec.agent.request({ origin: server.origin, path: '/bin', method: 'GET' })).body.bytes()
    await rec.snap.recorder.close()
    const play = stack(t, { mode: 'playback', snapshotPath: file })
    const res = await play.agent.request({ origin: server.origin, path: '/bin', method: 'GET' })
    assert.deepEqual(Buffer.from(await res.body.bytes()), bytes)
  })

  it('records a server-sent event stream as its chunks and replays it chunk by chunk', async (t) => {
    const file = await tempFile(t)
    const events = ['data: one\n\n', 'data: two\n\n', 'data: three\n\n']
    const server = await startHttpServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const event of events) {
        res.write(event)
        // Separate writes so the chunks travel in separate packets, as a live stream's do.
        await new Promise((resolve) => setTimeout(resolve, 15))
      }
      res.end()
    })
    t.after(() => server.close())
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    assert.equal(await text(rec.agent, server.origin, '/events'), events.join(''))
    await rec.snap.recorder.close()
    const stored = JSON.parse(await readFile(file, 'utf8'))[0].snapshot.responses[0]
    const recordedChunks = stored.chunks.map((c: string) => Buffer.from(c, 'base64').toString())
    assert.deepEqual(recordedChunks, events)
    assert.equal(Buffer.from(stored.body, 'base64').toString(), events.join(''))

    const play = stack(t, { mode: 'playback', snapshotPath: file })
    const chunks: string[] = []
    await new Promise<void>((resolve, reject) => {
      const handler: DispatchHandler = {
        onResponseData: (_c, chunk) => { chunks.push(chunk.toString()) },
        onResponseEnd: () => resolve(),
        onResponseError: (_c, err) => reject(err)
      }
      play.agent.dispatch({ origin: server.origin, path: '/events', method: 'GET' }, handler)
    })
    assert.deepEqual(chunks, events)
  })

  it('mixes replay and recording in update mode, and saves both', async (t) => {
    const file = await tempFile(t)
    const server = await startHttpServer((req, res) => res.end(`live ${req.url}`))
    t.after(() => server.close())
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    assert.equal(await text(rec.agent, server.origin, '/old'), 'live /old')
    await rec.snap.recorder.close()

    const upd = stack(t, { mode: 'update', snapshotPath: file })
    assert.equal(await text(upd.agent, server.origin, '/old'), 'live /old')
    assert.equal(await text(upd.agent, server.origin, '/new'), 'live /new')
    assert.equal(await text(upd.agent, server.origin, '/new'), 'live /new')
    assert.deepEqual(server.requests.map((r) => r.url), ['/old', '/new'])
    await upd.snap.recorder.close()
    const saved = JSON.parse(await readFile(file, 'utf8'))
    assert.deepEqual(saved.map((e: { snapshot: { request: { url: string } } }) => new URL(e.snapshot.request.url).pathname), ['/new', '/old'])
  })

  it('fails a playback miss with a LibraryError naming the closest recording and what differs', async (t) => {
    const file = await tempFile(t)
    const server = await startHttpServer((_req, res) => res.end('ok'))
    t.after(() => server.close())
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    await text(rec.agent, server.origin, '/items?sort=asc', { headers: { 'x-tenant': 'a' } })
    await rec.snap.recorder.close()
    const play = stack(t, { mode: 'playback', snapshotPath: file })
    await assert.rejects(text(play.agent, server.origin, '/items?sort=desc', { headers: { 'x-tenant': 'b' } }), (err: Error & { code?: string, differences?: string[] }) => {
      assert.equal(err instanceof LibraryError, true)
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_NOT_FOUND')
      assert.ok(err.message.startsWith(`No snapshot found for GET ${server.origin}/items?sort=desc`))
      assert.match(err.message, /closest recorded request: GET http:\/\/127\.0\.0\.1:\d+\/items\?sort=asc/)
      assert.deepEqual(err.differences, ['query (?sort=desc vs recorded ?sort=asc)', 'header x-tenant (b vs recorded a)'])
      return true
    })
    assert.equal(server.requests.length, 1)
  })

  it('says so when nothing is recorded at all', async (t) => {
    const file = await tempFile(t)
    const { agent } = stack(t, { mode: 'playback', snapshotPath: file })
    await assert.rejects(text(agent, 'http://127.0.0.1:9', '/x'), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND', message: `No snapshot found for GET http://127.0.0.1:9/x (no snapshots are recorded: ${file} does not exist)` })
    const empty = stack(t, { mode: 'playback', snapshotPath: file })
    empty.snap.recorder.replaceSnapshots([])
    await empty.snap.recorder.saveSnapshots()
    await empty.snap.recorder.loadSnapshots()
    await assert.rejects(text(empty.agent, 'http://127.0.0.1:9', '/x'), { message: 'No snapshot found for GET http://127.0.0.1:9/x (no snapshots are recorded)' })
  })

  it('fails requests with an error naming a corrupt snapshot file', async (t) => {
    const file = await tempFile(t)
    await writeFile(file, '{ not json')
    const { agent } = stack(t, { mode: 'playback', snapshotPath: file })
    await assert.rejects(text(agent, 'http://127.0.0.1:9', '/x'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_FILE')
      assert.ok(err.message.includes(file))
      return true
    })
  })

  it('records a streamed request body and sends it to the server intact', async (t) => {
    const file = await tempFile(t)
    const server = await startHttpServer(async (req, res) => {
      let body = ''
      for await (const chunk of req) body += chunk
      res.end(`echo ${body}`)
    })
    t.after(() => server.close())
    const { Readable } = await import('node:stream')
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    const res = await rec.agent.request({ origin: server.origin, path: '/up', method: 'POST', body: Readable.from(['a', 'b']) })
    assert.equal(await res.body.text(), 'echo ab')
    await rec.snap.recorder.close()
    const play = stack(t, { mode: 'playback', snapshotPath: file })
    assert.equal(await text(play.agent, server.origin, '/up', { method: 'POST', body: 'ab' }), 'echo ab')
  })

  it('does not record a response that failed, and passes the error on', async (t) => {
    const file = await tempFile(t)
    const server = await startHttpServer((_req, res) => { res.socket?.destroy() })
    t.after(() => server.close())
    const rec = stack(t, { mode: 'record', snapshotPath: file })
    await assert.rejects(text(rec.agent, server.origin, '/broken'))
    assert.equal(rec.snap.recorder.size(), 0)
  })

  it('fails the request, not the process, when a user callback throws', async (t) => {
    const file = await tempFile(t)
    const boom = new Error('callback broke')
    const { agent } = stack(t, { mode: 'playback', snapshotPath: file, shouldPlayback: () => { throw boom } })
    await assert.rejects(text(agent, 'http://127.0.0.1:9', '/x'), (err) => err === boom)
    const { Readable } = await import('node:stream')
    await assert.rejects(agent.request({ origin: 'http://127.0.0.1:9', path: '/x', method: 'POST', body: Readable.from(['a']) }), (err) => err === boom)
  })

  it('validates its options synchronously, naming the bad value', () => {
    assert.throws(() => snapshot({ mode: 'replay' as never }), { code: 'LIB_ERR_INVALID_ARG', message: `snapshot(): mode must be one of 'record', 'playback', 'update', 'lockdown', got "replay"` })
    assert.throws(() => snapshot({ mode: 'playback' }), { code: 'LIB_ERR_INVALID_ARG', message: `snapshot(): snapshotPath is required when mode is 'playback'` })
    assert.throws(() => snapshot({ maxSnapshots: 0 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxSnapshots must be a positive integer or Infinity, got 0/ })
    assert.throws(() => snapshot({ flushInterval: -5 }), { code: 'LIB_ERR_INVALID_ARG', message: /flushInterval must be a positive integer \(milliseconds\) up to 2147483647, got -5/ })
    assert.throws(() => snapshot({ matchHeaders: 'x' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /matchHeaders must be an array of header names, got "x"/ })
    assert.throws(() => snapshot({ normalizeBody: 1 as never }), { code: 'LIB_ERR_INVALID_ARG', message: /normalizeBody must be a function, got 1/ })
    assert.throws(() => snapshot({ excludeUrls: [1] as never }), { code: 'LIB_ERR_INVALID_ARG', message: /excludeUrls must be an array of strings and RegExps/ })
  })
})
