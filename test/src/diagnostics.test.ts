import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Client } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'

const NAMES = [
  'conduit:client:beforeConnect', 'conduit:client:connected', 'conduit:client:sendHeaders',
  'conduit:request:create', 'conduit:request:bodySent', 'conduit:request:headers',
  'conduit:request:trailers', 'conduit:request:error', 'conduit:client:connectError'
]

describe('diagnostics channels', () => {
  it('publishes the request lifecycle in order with the request, response and socket', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('x-r', '1'); res.end('ok') })
    const client = new Client(server.origin)
    const events: Array<[string, Record<string, unknown>]> = []
    const subscriptions = NAMES.map((name) => {
      const fn = (message: unknown): void => { events.push([name, message as Record<string, unknown>]) }
      diagnosticsChannel.subscribe(name, fn)
      return () => diagnosticsChannel.unsubscribe(name, fn)
    })
    t.after(async () => { for (const off of subscriptions) off(); await client.close(); await server.close() })
    await (await client.request({ path: '/d', method: 'POST', body: 'b' })).body.text()
    assert.deepEqual(events.map(([name]) => name), [
      'conduit:request:create', 'conduit:client:beforeConnect', 'conduit:client:connected',
      'conduit:client:sendHeaders', 'conduit:request:bodySent', 'conduit:request:headers', 'conduit:request:trailers'
    ])
    const request = events[0]![1].request as Record<string, unknown>
    assert.equal(request.method, 'POST')
    assert.equal(request.path, '/d')
    assert.equal(request.origin, server.origin)
    const connect = events[1]![1].connectParams as Record<string, unknown>
    assert.deepEqual([connect.hostname, connect.protocol, connect.version], ['127.0.0.1', 'http:', 'h1'])
    assert.match(String(events[3]![1].headers), /^POST \/d HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/)
    const response = events[5]![1].response as Record<string, unknown>
    assert.equal(response.statusCode, 200)
    assert.equal((response.headers as Record<string, string>)['x-r'], '1')
  })

  it('publishes connect and request errors', async () => {
    const server = await startHttpServer(() => {})
    const origin = server.origin
    await server.close()
    const client = new Client(origin)
    const names: string[] = []
    const errorCodes: string[] = []
    const onConnectError = (m: unknown): void => { names.push('connectError'); errorCodes.push((m as { error: NodeJS.ErrnoException }).error.code!) }
    const onError = (m: unknown): void => { names.push('error'); errorCodes.push((m as { error: NodeJS.ErrnoException }).error.code!) }
    diagnosticsChannel.subscribe('conduit:client:connectError', onConnectError)
    diagnosticsChannel.subscribe('conduit:request:error', onError)
    try {
      await assert.rejects(client.request({ path: '/', method: 'GET' }), { code: 'ECONNREFUSED' })
    } finally {
      diagnosticsChannel.unsubscribe('conduit:client:connectError', onConnectError)
      diagnosticsChannel.unsubscribe('conduit:request:error', onError)
      await client.close()
    }
    assert.deepEqual(names, ['connectError', 'error'])
    assert.deepEqual(errorCodes, ['ECONNREFUSED', 'ECONNREFUSED'])
  })
})
