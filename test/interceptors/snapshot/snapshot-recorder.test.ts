import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SnapshotRecorder } from '../../../interceptors/snapshot/index.js'
import type { SnapshotOptions } from '../../../interceptors/snapshot/index.js'
import { resolveSnapshotOptions } from '../../../interceptors/snapshot/snapshot-options.js'
import type { DispatchOptions } from '../../../src/handler.js'

const ORIGIN = 'http://127.0.0.1:9'
const req = (path: string): DispatchOptions => ({ origin: ORIGIN, path, method: 'GET' })
const reply = (body: string) => ({ statusCode: 200, headers: {}, body: Buffer.from(body) })

async function tempFile (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-recorder-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return join(dir, 'snap.json')
}

function recorder (opts: SnapshotOptions = {}): SnapshotRecorder {
  return new SnapshotRecorder(resolveSnapshotOptions(opts, 'test'))
}

describe('SnapshotRecorder', () => {
  it('keeps at most maxSnapshots distinct requests, dropping the oldest recorded', () => {
    const r = recorder({ maxSnapshots: 2 })
    r.record(req('/1'), reply('1'))
    r.record(req('/2'), reply('2'))
    r.record(req('/2'), reply('2 again'))
    r.record(req('/3'), reply('3'))
    assert.equal(r.size(), 2)
    assert.equal(r.findSnapshot(req('/1')), undefined)
    assert.equal(r.getSnapshotInfo(req('/2'))!.responseCount, 2)
    assert.ok(r.findSnapshot(req('/3')))
  })

  it('reports snapshot info without payload, counts calls, and resets them', () => {
    const r = recorder()
    r.record(req('/a'), reply('x'))
    r.findSnapshot(req('/a'))
    r.findSnapshot(req('/a'))
    const info = r.getSnapshotInfo(req('/a'))!
    assert.deepEqual(Object.keys(info).sort(), ['callCount', 'hash', 'request', 'responseCount', 'timestamp'])
    assert.equal(info.callCount, 2)
    assert.equal(info.responseCount, 1)
    assert.equal(info.request.url, `${ORIGIN}/a`)
    assert.ok(!Number.isNaN(Date.parse(info.timestamp)))
    r.resetCallCounts()
    assert.equal(r.getSnapshotInfo(req('/a'))!.callCount, 0)
    assert.equal(r.getSnapshotInfo(req('/none')), null)
  })

  it('deletes, clears and replaces snapshots', () => {
    const r = recorder()
    r.record(req('/a'), reply('a'))
    r.record(req('/b'), reply('b'))
    assert.equal(r.deleteSnapshot(req('/a')), true)
    assert.equal(r.deleteSnapshot(req('/a')), false)
    const kept = r.getSnapshotInfo(req('/b'))!
    const data = r.getSnapshots().map((snapshot) => ({ hash: kept.hash, snapshot }))
    r.clear()
    assert.equal(r.size(), 0)
    r.replaceSnapshots(data)
    assert.equal(Buffer.from(r.findSnapshot(req('/b'))!.response.body, 'base64').toString(), 'b')
    assert.throws(() => r.replaceSnapshots([{ hash: 1 }]), { code: 'LIB_ERR_INVALID_ARG', message: /entry 0: hash must be a non-empty string, got number/ })
  })

  it('writes on its flush interval when autoFlush is on', async (t) => {
    const file = await tempFile(t)
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const r = recorder({ snapshotPath: file, autoFlush: true, flushInterval: 5000 })
    t.after(() => r.destroy())
    r.record(req('/a'), reply('a'))
    t.mock.timers.tick(4999)
    await r.whenSaved()
    await assert.rejects(stat(file), { code: 'ENOENT' })
    t.mock.timers.tick(1)
    await r.whenSaved()
    assert.equal(JSON.parse(await readFile(file, 'utf8')).length, 1)
    r.record(req('/b'), reply('b'))
    t.mock.timers.tick(5000)
    await r.whenSaved()
    assert.equal(JSON.parse(await readFile(file, 'utf8')).length, 2)
  })

  it('never writes on a timer without autoFlush, and saves on close only in record and update modes', async (t) => {
    const file = await tempFile(t)
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const r = recorder({ snapshotPath: file, flushInterval: 10 })
    r.record(req('/a'), reply('a'))
    t.mock.timers.tick(60_000)
    await r.whenSaved()
    await assert.rejects(stat(file), { code: 'ENOENT' })
    await r.close()
    assert.equal(JSON.parse(await readFile(file, 'utf8')).length, 1)

    const playback = recorder({ mode: 'playback', snapshotPath: file })
    await playback.loadSnapshots()
    playback.record(req('/b'), reply('b'))
    await playback.close()
    assert.equal(JSON.parse(await readFile(file, 'utf8')).length, 1)
  })

  it('keeps the snapshots of the load asked for last when loads overlap', async (t) => {
    const first = await tempFile(t)
    const second = `${first}.second.json`
    const writer = recorder({ snapshotPath: first })
    writer.record(req('/first'), reply('1'))
    await writer.saveSnapshots()
    writer.clear()
    writer.record(req('/second'), reply('2'))
    await writer.saveSnapshots(second)
    const r = recorder({ mode: 'playback', snapshotPath: first })
    await Promise.all([r.ensureLoaded(), r.loadSnapshots(second)])
    assert.deepEqual(r.getSnapshots().map((s) => s.request.url), [`${ORIGIN}/second`])
  })

  it('throws at once when asked to load or save without any path', () => {
    const r = recorder()
    assert.throws(() => r.saveSnapshots(), { code: 'LIB_ERR_INVALID_ARG', message: /saveSnapshots\(\): a snapshot path is required/ })
    assert.throws(() => r.loadSnapshots(), { code: 'LIB_ERR_INVALID_ARG', message: /loadSnapshots\(\): a snapshot path is required/ })
  })
})
