/**
 * Snapshot files recorded through fetch, shared with undici: a file recorded with undici's
 * fetch and SnapshotAgent replays through conduit's fetch and SnapshotAgent, and the other way
 * round, with default options on both sides and real recordings against a real server.
 */

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { undici } from '../../helpers/undici-reference.js'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const tempDirs: string[] = []
after(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))))

async function tempFile (): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-fetch-'))
  tempDirs.push(dir)
  return join(dir, 'snapshots.json')
}

/** Answers with what it received, so a replayed body proves which request was recorded. */
function echoServer (): Promise<TestServer> {
  return startHttpServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ method: req.method, url: req.url, body, agent: req.headers['user-agent'] }))
  })
}

const CALLS = [
  { path: '/items?page=2', init: {} },
  { path: '/items', init: { method: 'POST', body: '{"name":"ada"}', headers: { 'content-type': 'application/json' } } },
  { path: '/custom', init: { headers: { 'user-agent': 'my-app/1.0', accept: 'application/json' } } }
] as const

describe('snapshots recorded through fetch are shared with undici', () => {
  it('replays through conduit fetch a file recorded with undici fetch', async () => {
    const file = await tempFile()
    const live = await echoServer()
    const recorder = new undici.SnapshotAgent({ mode: 'record', snapshotPath: file })
    const recorded: unknown[] = []
    for (const { path, init } of CALLS) {
      recorded.push(await (await undici.fetch(`${live.origin}${path}`, { ...init, dispatcher: recorder } as never)).json())
    }
    await recorder.close()
    await live.close()

    const player = new SnapshotAgent({ mode: 'playback', snapshotPath: file })
    try {
      for (const [i, { path, init }] of CALLS.entries()) {
        const response = await fetch(`${live.origin}${path}`, { ...init, dispatcher: player } as never)
        assert.equal(response.status, 200)
        assert.deepEqual(await response.json(), recorded[i])
      }
    } finally {
      await player.close()
    }
    assert.equal((recorded[0] as { agent: string }).agent, 'undici')
  })

  it('writes through conduit fetch a file that undici fetch replays', async () => {
    const file = await tempFile()
    const live = await echoServer()
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    const recorded: unknown[] = []
    for (const { path, init } of CALLS) {
      recorded.push(await (await fetch(`${live.origin}${path}`, { ...init, dispatcher: recorder } as never)).json())
    }
    await recorder.close()
    await live.close()
    const entries = JSON.parse(await readFile(file, 'utf8')) as Array<{ snapshot: { request: { url: string, headers: Record<string, string> } } }>
    assert.equal(entries.length, CALLS.length)
    const custom = entries.find((entry) => entry.snapshot.request.url.endsWith('/custom'))
    assert.equal(custom?.snapshot.request.headers['user-agent'], 'my-app/1.0', 'a chosen user-agent is kept as it is')

    const player = new undici.SnapshotAgent({ mode: 'playback', snapshotPath: file })
    try {
      await player.loadSnapshots()
      for (const [i, { path, init }] of CALLS.entries()) {
        const response = await undici.fetch(`${live.origin}${path}`, { ...init, dispatcher: player } as never)
        assert.equal(response.status, 200)
        assert.deepEqual(await response.json(), recorded[i])
      }
    } finally {
      await player.close()
    }
    assert.equal((recorded[0] as { agent: string }).agent, 'conduit', 'the wire still carried conduit\'s own user-agent')
  })

  it('still tells apart requests whose user-agent the caller chose', async () => {
    const file = await tempFile()
    const live = await echoServer()
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    await (await fetch(`${live.origin}/ua`, { headers: { 'user-agent': 'one' }, dispatcher: recorder })).text()
    await recorder.close()
    await live.close()
    const player = new SnapshotAgent({ mode: 'playback', snapshotPath: file })
    try {
      await assert.rejects(fetch(`${live.origin}/ua`, { headers: { 'user-agent': 'two' }, dispatcher: player }),
        (err: Error & { cause?: { code?: string } }) => err instanceof TypeError && typeof err.cause?.code === 'string' && /SNAPSHOT|MOCK/.test(err.cause.code))
    } finally {
      await player.close()
    }
  })
})
