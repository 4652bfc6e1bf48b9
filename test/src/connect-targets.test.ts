import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import type { TLSSocket } from 'node:tls'
import { Agent, Client } from '../../src/index.js'
import { startHttpsServer, trustTestCa } from '../helpers/servers.js'

describe('connection targets', () => {
  it('sends no SNI to an IP origin and checks the certificate against the address, but names a host origin', async (t) => {
    const server = await startHttpsServer((req, res) => res.end(String((req.socket as TLSSocket).servername)))
    const byAddress = new Client(`https://127.0.0.1:${server.port}`, { connect: trustTestCa })
    const byName = new Client(server.origin, { connect: trustTestCa })
    t.after(async () => { await byAddress.close(); await byName.close(); await server.close() })
    assert.equal(await (await byAddress.request({ path: '/', method: 'GET' })).body.text(), 'false')
    assert.equal(await (await byName.request({ path: '/', method: 'GET' })).body.text(), 'localhost')
  })

  it('routes every origin of an Agent with socketPath to the unix socket, keeping the origin as host', async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-agent-sock-'))
    const socketPath = path.join(dir, 'http.sock')
    const server = http.createServer((req, res) => res.end(`${req.headers.host} ${req.url}`))
    await new Promise<void>((resolve) => server.listen(socketPath, resolve))
    const agent = new Agent({ socketPath })
    t.after(async () => {
      await agent.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(dir, { recursive: true, force: true })
    })
    for (const origin of ['http://service-a.internal', 'http://service-b.internal:8080']) {
      const { body } = await agent.request({ origin, path: '/ping', method: 'GET' })
      assert.equal(await body.text(), `${new URL(origin).host} /ping`)
    }
  })
})
