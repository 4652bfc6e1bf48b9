import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { undici } from '../../helpers/undici-reference.js'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import type { RequestOptions } from '../../../src/api/request.js'
import { startHttpServer } from '../../helpers/servers.js'

// Removed once the whole file is done: an agent closed in a test's own after hook saves its
// snapshots, which would recreate a directory removed earlier in that test's cleanup.
const tempDirs: string[] = []
after(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))))

async function tempFile (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-undici-'))
  tempDirs.push(dir)
  return join(dir, 'snapshots.json')
}

const binary = randomBytes(512)

async function server () {
  return startHttpServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    if (req.url === '/bin') {
      res.setHeader('content-type', 'application/octet-stream')
      res.end(binary)
      return
    }
    res.setHeader('content-type', 'application/json')
    res.setHeader('x-served', 'yes')
    res.end(JSON.stringify({ method: req.method, url: req.url, body }))
  })
}

describe('snapshot files shared with undici', () => {
  it('replays a file recorded by undici SnapshotAgent', async (t) => {
    const file = await tempFile(t)
    const live = await server()
    const recorder = new undici.SnapshotAgent({ mode: 'record', snapshotPath: file })
    for (const [path, method, body] of [['/users?page=2', 'GET', undefined], ['/users', 'POST', '{"name":"ada"}'], ['/bin', 'GET', undefined]] as const) {
      const res = await undici.request(`${live.origin}${path}`, { method, body, dispatcher: recorder })
      await res.body.arrayBuffer()
    }
    await recorder.close()
    await live.close()

    const player = new SnapshotAgent({ mode: 'playback', snapshotPath: file })
    t.after(() => player.close())
    const get = async (opts: Partial<RequestOptions>) => player.request({ origin: live.origin, method: 'GET', ...opts } as RequestOptions)
    const one = await get({ path: '/users?page=2' })
    assert.equal(one.headers['x-served'], 'yes')
    assert.deepEqual(await one.body.json(), { method: 'GET', url: '/users?page=2', body: '' })
    const two = await get({ path: '/users', method: 'POST', body: '{"name":"ada"}' })
    assert.deepEqual(await two.body.json(), { method: 'POST', url: '/users', body: '{"name":"ada"}' })
    assert.deepEqual(Buffer.from(await (await get({ path: '/bin' })).body.bytes()), binary)
  })

  it('writes files that undici SnapshotAgent replays', async (t) => {
    const file = await tempFile(t)
    const live = await server()
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    const send = async (opts: Partial<RequestOptions>) => (await recorder.request({ origin: live.origin, method: 'GET', ...opts } as RequestOptions)).body.arrayBuffer()
    await send({ path: '/users?page=2' })
    await send({ path: '/users', method: 'POST', body: '{"name":"ada"}' })
    await send({ path: '/bin' })
    await recorder.close()
    await live.close()
    assert.equal(JSON.parse(await readFile(file, 'utf8')).length, 3)

    const player = new undici.SnapshotAgent({ mode: 'playback', snapshotPath: file })
    t.after(() => player.close())
    await player.loadSnapshots()
    const one = await undici.request(`${live.origin}/users?page=2`, { dispatcher: player })
    assert.equal(one.headers['x-served'], 'yes')
    assert.deepEqual(await one.body.json(), { method: 'GET', url: '/users?page=2', body: '' })
    const two = await undici.request(`${live.origin}/users`, { method: 'POST', body: '{"name":"ada"}', dispatcher: player })
    assert.deepEqual(await two.body.json(), { method: 'POST', url: '/users', body: '{"name":"ada"}' })
    const three = await undici.request(`${live.origin}/bin`, { dispatcher: player })
    assert.deepEqual(Buffer.from(await three.body.arrayBuffer()), binary)
  })
})
