import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

describe('snapshot() under compose', () => {
  it('saves the recordings when the composed dispatcher is closed', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('recorded'))
    const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-close-'))
    t.after(async () => { await server.close(); await rm(dir, { recursive: true, force: true }) })
    const snapshotPath = join(dir, 'api.json')
    const agent = new Agent().compose(interceptors.snapshot({ mode: 'record', snapshotPath }))
    const res = await agent.request({ origin: server.origin, path: '/items', method: 'GET' })
    assert.equal(await res.body.text(), 'recorded')
    await agent.close()
    const saved = await readFile(snapshotPath, 'utf8')
    assert.match(saved, /\/items/)
    assert.match(saved, /recorded|cmVjb3JkZWQ=/)
  })

  it('does not save when the composed dispatcher is destroyed', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('dropped'))
    const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-destroy-'))
    t.after(async () => { await server.close(); await rm(dir, { recursive: true, force: true }) })
    const snapshotPath = join(dir, 'api.json')
    const agent = new Agent().compose(interceptors.snapshot({ mode: 'record', snapshotPath }))
    await (await agent.request({ origin: server.origin, path: '/', method: 'GET' })).body.dump()
    await agent.destroy()
    await assert.rejects(stat(snapshotPath), { code: 'ENOENT' })
  })
})
