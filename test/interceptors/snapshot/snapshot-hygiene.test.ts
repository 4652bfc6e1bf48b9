import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import type { RequestOptions } from '../../../src/api/request.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import { recordingOrigin, tempDir } from './snapshot-test-kit.js'

const DAY = 86_400_000

async function text (agent: Dispatcher, origin: string, path: string): Promise<string> {
  const res = await agent.request({ origin, path, method: 'GET' } as RequestOptions)
  return res.body.text()
}

/** Records /count and /json against a real origin, then dates /count `daysAgo` days back. */
async function recordingAged (t: { after: (fn: () => unknown) => void }, daysAgo: number) {
  const dir = await tempDir(t)
  const file = join(dir, 'aged.json')
  const server = await recordingOrigin(t)
  const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
  await text(recorder, server.origin, '/count')
  await text(recorder, server.origin, '/json')
  await recorder.close()
  const entries = JSON.parse(await readFile(file, 'utf8'))
  const old = new Date(Date.now() - daysAgo * DAY).toISOString()
  for (const entry of entries) if (entry.snapshot.request.url.endsWith('/count')) entry.snapshot.timestamp = old
  await writeFile(file, JSON.stringify(entries))
  return { file, server, old }
}

describe('snapshot hygiene', () => {
  it('replays an entry older than maxAge with one warning for it, and lists it in staleSnapshots()', async (t) => {
    const { file, server, old } = await recordingAged(t, 40)
    const agent = new SnapshotAgent({ mode: 'playback', snapshotPath: file, maxAge: 30 * DAY })
    t.after(() => agent.close())
    const warned = once(process, 'warning')
    assert.equal(await text(agent, server.origin, '/count'), 'hit 1')
    const [warning] = await warned as [Error & { code?: string }]
    assert.equal(warning.name, 'SnapshotStaleWarning')
    assert.equal(warning.code, 'CONDUIT_SNAPSHOT_STALE')
    assert.match(warning.message, new RegExp(`GET http://127\\.0\\.0\\.1:\\d+/count was recorded ${old.replace(/\./g, '\\.')} \\(40\\.0 days ago\\), longer ago than maxAge \\(${30 * DAY} ms\\)`))
    let again = 0
    const count = (w: Error & { code?: string }): void => { if (w.code === 'CONDUIT_SNAPSHOT_STALE') again++ }
    process.on('warning', count)
    t.after(() => process.off('warning', count))
    await text(agent, server.origin, '/count')
    await text(agent, server.origin, '/json')
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(again, 0, 'one warning per entry, and none for the fresh one')
    assert.deepEqual(agent.staleSnapshots().map((s) => new URL(s.request.url).pathname), ['/count'])
  })

  it('fails a request for a stale entry with onStale: fail', async (t) => {
    const { file, server, old } = await recordingAged(t, 40)
    const agent = new SnapshotAgent({ mode: 'lockdown', snapshotPath: file, maxAge: 30 * DAY, onStale: 'fail' })
    t.after(() => agent.close())
    await assert.rejects(text(agent, server.origin, '/count'), (err: Error & { code?: string, recordedAt?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_STALE')
      assert.equal(err.recordedAt, old)
      return true
    })
    assert.equal(JSON.parse(await text(agent, server.origin, '/json')).ok, true)
  })

  it('records a stale entry again in update mode and saves it with its new date', async (t) => {
    const { file, server, old } = await recordingAged(t, 40)
    const agent = new SnapshotAgent({ mode: 'update', snapshotPath: file, maxAge: 30 * DAY })
    assert.equal(await text(agent, server.origin, '/count'), 'hit 2')
    assert.equal(await text(agent, server.origin, '/count'), 'hit 2', 'then it is fresh and replays')
    await agent.close()
    const entry = JSON.parse(await readFile(file, 'utf8')).find((e: { snapshot: { request: { url: string } } }) => e.snapshot.request.url.endsWith('/count'))
    assert.equal(entry.snapshot.responses.length, 1)
    assert.ok(entry.snapshot.timestamp > old)
    assert.equal(server.hits(), 2)
  })

  it('counts an entry without a date (an older undici file) as stale', async (t) => {
    const { file, server } = await recordingAged(t, 0)
    const entries = JSON.parse(await readFile(file, 'utf8'))
    for (const entry of entries) delete entry.snapshot.timestamp
    await writeFile(file, JSON.stringify(entries))
    const agent = new SnapshotAgent({ mode: 'playback', snapshotPath: file, maxAge: DAY, onStale: 'fail' })
    t.after(() => agent.close())
    await assert.rejects(text(agent, server.origin, '/json'), { code: 'LIB_ERR_SNAPSHOT_STALE' })
  })

  it('lists the entries nothing asked for in unusedSnapshots(), and prune leaves them out when the file is saved', async (t) => {
    const { file, server } = await recordingAged(t, 0)
    const agent = new SnapshotAgent({ mode: 'update', snapshotPath: file, prune: true })
    await agent.loadSnapshots()
    assert.equal(agent.unusedSnapshots().length, 2)
    await text(agent, server.origin, '/json')
    await text(agent, server.origin, '/echo')
    assert.deepEqual(agent.unusedSnapshots().map((s) => new URL(s.request.url).pathname), ['/count'])
    await agent.close()
    const kept = JSON.parse(await readFile(file, 'utf8')).map((e: { snapshot: { request: { url: string } } }) => new URL(e.snapshot.request.url).pathname)
    assert.deepEqual(kept.sort(), ['/echo', '/json'])
  })

  it('keeps unused entries without prune, and writes nothing in playback even with prune', async (t) => {
    const { file, server } = await recordingAged(t, 0)
    const before = await readFile(file, 'utf8')
    const player = new SnapshotAgent({ mode: 'playback', snapshotPath: file, prune: true })
    await text(player, server.origin, '/json')
    await player.close()
    assert.equal(await readFile(file, 'utf8'), before)
    const updater = new SnapshotAgent({ mode: 'update', snapshotPath: file })
    await text(updater, server.origin, '/json')
    await updater.close()
    assert.equal(JSON.parse(await readFile(file, 'utf8')).length, 2)
  })

  it('rejects bad hygiene options, naming them', () => {
    assert.throws(() => new SnapshotAgent({ maxAge: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: maxAge must be a positive number of milliseconds or Infinity, got/ })
    assert.throws(() => new SnapshotAgent({ onStale: 'ignore' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: onStale must be one of 'warn', 'fail', got/ })
    assert.throws(() => new SnapshotAgent({ prune: 1 as never }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: prune must be a boolean, got/ })
  })
})
