import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Agent, fetch, interceptors, cacheStores } from '../../../src/index.js'
import { startH2sServer, respond } from '../../helpers/h2-server.js'
import { trustTestCa } from '../../helpers/servers.js'

describe('HTTP/2: interceptors and fetch run unchanged', async () => {
  let flaky = 0
  const server = await startH2sServer((stream, headers) => {
    const path = String(headers[':path'])
    if (path === '/cached') return respond(stream, 200, `cached ${server.streams.length}`, { 'cache-control': 'max-age=60' })
    if (path === '/flaky') {
      flaky++
      if (flaky === 1) return respond(stream, 503, 'busy', { 'retry-after': '0' })
      return respond(stream, 200, 'recovered')
    }
    if (path === '/json') return respond(stream, 200, JSON.stringify({ proto: 'h2', method: headers[':method'] }), { 'content-type': 'application/json' })
    if (path === '/upload') {
      const parts: Buffer[] = []
      stream.on('data', (c: Buffer) => parts.push(c))
      stream.on('end', () => respond(stream, 201, Buffer.concat(parts).toString().toUpperCase()))
      return
    }
    respond(stream, 200, 'plain')
  })
  const agent = new Agent({ allowH2: true, connect: trustTestCa })
  after(async () => { await agent.close(); await server.close() })

  it('serves a cache hit without a second stream', async () => {
    const cached = agent.compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore() }))
    const first = await cached.request({ origin: server.origin, path: '/cached', method: 'GET' })
    const a = await first.body.text()
    const before = server.streams.length
    const second = await cached.request({ origin: server.origin, path: '/cached', method: 'GET' })
    assert.equal(await second.body.text(), a)
    assert.equal(server.streams.length, before)
  })

  it('retries a 503 over the same session', async () => {
    const sessions = server.sessions
    const retrying = agent.compose(interceptors.retry({ minTimeout: 1, maxTimeout: 5, statusCodes: [503] }))
    const res = await retrying.request({ origin: server.origin, path: '/flaky', method: 'GET' })
    assert.equal(await res.body.text(), 'recovered')
    assert.equal(server.sessions, sessions)
  })

  it('answers fetch() over h2, for reads and uploads', async () => {
    const res = await fetch(`${server.origin}/json`, { dispatcher: agent })
    assert.deepEqual(await res.json(), { proto: 'h2', method: 'GET' })
    assert.equal(res.statusText, '')
    const up = await fetch(`${server.origin}/upload`, { method: 'POST', body: 'shout', dispatcher: agent })
    assert.equal(up.status, 201)
    assert.equal(await up.text(), 'SHOUT')
  })

  it('logs through debug() and records then replays through snapshot()', async () => {
    const lines: string[] = []
    const logged = agent.compose(interceptors.debug({ logger: (line: string) => lines.push(line) }))
    await (await logged.request({ origin: server.origin, path: '/', method: 'GET' })).body.text()
    assert.ok(lines.some((line) => line.includes('/')), lines.join('\n'))

    const dir = mkdtempSync(join(tmpdir(), 'conduit-h2-snap-'))
    after(() => rmSync(dir, { recursive: true, force: true }))
    const snapshotPath = join(dir, 'h2.snap.json')
    const recording = interceptors.snapshot({ mode: 'record', snapshotPath })
    const recorder = agent.compose(recording)
    assert.equal(await (await recorder.request({ origin: server.origin, path: '/json', method: 'GET' })).body.text(), '{"proto":"h2","method":"GET"}')
    await recording.recorder.saveSnapshots()
    const player = new Agent().compose(interceptors.snapshot({ mode: 'playback', snapshotPath }))
    after(() => player.close())
    const replayed = await player.request({ origin: server.origin, path: '/json', method: 'GET' })
    assert.deepEqual(await replayed.body.json(), { proto: 'h2', method: 'GET' })
  })

  it('publishes the h2 version on the connected diagnostics channel', async () => {
    const versions: string[] = []
    const onConnected = (msg: unknown): void => { versions.push((msg as { connectParams: { version: string } }).connectParams.version) }
    diagnosticsChannel.subscribe('conduit:client:connected', onConnected)
    after(() => diagnosticsChannel.unsubscribe('conduit:client:connected', onConnected))
    const fresh = new Agent({ allowH2: true, connect: trustTestCa })
    after(() => fresh.close())
    await (await fresh.request({ origin: server.origin, path: '/', method: 'GET' })).body.text()
    assert.deepEqual(versions, ['h2'])
  })

  it('gives response headers without pseudo-headers, as over HTTP/1.1', async () => {
    const res = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    await res.body.text()
    assert.deepEqual(Object.keys(res.headers).filter((name) => name.startsWith(':')), [])
    assert.equal(res.headers['content-length'], '5')
  })
})
