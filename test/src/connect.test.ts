import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { TLSSocket } from 'node:tls'
import { Agent, Client, buildConnector } from '../../src/index.js'
import type { Connector } from '../../src/index.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../helpers/servers.js'
import { otherCaCrt } from '../helpers/certs.js'

describe('buildConnector', () => {
  it('rejects bad options naming the value', () => {
    assert.throws(() => buildConnector({ timeout: -5 }), { code: 'LIB_ERR_INVALID_ARG', message: 'buildConnector(): timeout must be a number of milliseconds from 0 to 2147483647, got -5' })
    assert.throws(() => buildConnector({ maxCachedSessions: 1.5 }), { code: 'LIB_ERR_INVALID_ARG', message: /maxCachedSessions must be a non-negative integer, got 1.5/ })
  })

  it('passes TLS verification failures through with their code', async (t) => {
    const server = await startHttpsServer((req, res) => res.end('x'))
    const untrusted = new Client(server.origin, { connect: { ca: otherCaCrt } })
    t.after(async () => { await untrusted.close(); await server.close() })
    await assert.rejects(untrusted.request({ path: '/', method: 'GET' }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })
    const insecure = new Client(server.origin, { connect: { rejectUnauthorized: false } })
    t.after(() => insecure.close())
    assert.equal(await (await insecure.request({ path: '/', method: 'GET' })).body.text(), 'x')
  })

  it('checks the certificate against servername when connecting to an address', async (t) => {
    const server = await startHttpsServer((req, res) => res.end('named'))
    const good = new Client(`https://127.0.0.1:${server.port}`, { connect: { ...trustTestCa, servername: 'localhost' } })
    const bad = new Client(`https://127.0.0.1:${server.port}`, { connect: { ...trustTestCa, servername: 'other.test' } })
    t.after(async () => { await good.close(); await bad.close(); await server.close() })
    assert.equal(await (await good.request({ path: '/', method: 'GET' })).body.text(), 'named')
    await assert.rejects(bad.request({ path: '/', method: 'GET' }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' })
  })

  it('resumes the TLS session on the next connection to the same server', async (t) => {
    const server = await startHttpsServer((req, res) => { res.setHeader('connection', 'close'); res.end('x') })
    const client = new Client(server.origin, { connect: trustTestCa })
    const reused: boolean[] = []
    const onConnected = (message: unknown): void => { reused.push((message as { socket: TLSSocket }).socket.isSessionReused()) }
    diagnosticsChannel.subscribe('conduit:client:connected', onConnected)
    t.after(async () => {
      diagnosticsChannel.unsubscribe('conduit:client:connected', onConnected)
      await client.close()
      await server.close()
    })
    for (let i = 0; i < 2; i++) await (await client.request({ path: '/', method: 'GET' })).body.text()
    assert.deepEqual(reused, [false, true])
  })

  it('connects over a unix domain socket with socketPath', async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-sock-'))
    const socketPath = path.join(dir, 'http.sock')
    const server = http.createServer((req, res) => res.end(`unix ${req.headers.host}`))
    await new Promise<void>((resolve) => server.listen(socketPath, resolve))
    const client = new Client('http://localhost', { socketPath })
    t.after(async () => {
      await client.close()
      await new Promise((resolve) => server.close(resolve))
      await rm(dir, { recursive: true, force: true })
    })
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'unix localhost')
  })

  it('uses a connector function given as the connect option', async (t) => {
    const server = await startHttpServer((req, res) => res.end('custom'))
    const calls: string[] = []
    const connector: Connector = (opts, callback) => {
      calls.push(`${opts.protocol}//${opts.hostname}:${opts.port}`)
      const socket = net.connect(Number(opts.port), opts.hostname)
      socket.once('connect', () => callback(null, socket))
      socket.once('error', (err) => callback(err, null))
    }
    const agent = new Agent({ connect: connector })
    t.after(async () => { await agent.close(); await server.close() })
    assert.equal(await (await agent.request({ origin: server.origin, path: '/', method: 'GET' })).body.text(), 'custom')
    assert.deepEqual(calls, [`http://127.0.0.1:${server.port}`])
  })

  it('fails every waiting request with the error a connector function reports', async (t) => {
    const agent = new Agent({ connect: (_opts, callback) => callback(Object.assign(new Error('no route'), { code: 'EHOSTUNREACH' }), null) })
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: 'http://127.0.0.1:9', path: '/', method: 'GET' }), { code: 'EHOSTUNREACH' })
  })

  it('binds to localAddress', async (t) => {
    const server = await startHttpServer((req, res) => res.end(req.socket.remoteAddress))
    const client = new Client(server.origin, { localAddress: '127.0.0.1' })
    t.after(async () => { await client.close(); await server.close() })
    assert.match(await (await client.request({ path: '/', method: 'GET' })).body.text(), /127\.0\.0\.1/)
  })
})
