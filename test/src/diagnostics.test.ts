import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Client, fetch } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import { respond, startH2cServer } from '../helpers/h2-server.js'

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

  describe('the caller tag', () => {
    const CALLER_TAG = Symbol.for('conduit.callerTag')
    const WATCHED = ['conduit:request:create', 'conduit:client:beforeConnect', 'conduit:client:connected', 'conduit:request:headers', 'conduit:request:trailers']

    /** Runs `send` with the channels above observed; resolves with each message by channel name. */
    async function observe (send: () => Promise<void>): Promise<Map<string, Record<string, unknown>>> {
      const seen = new Map<string, Record<string, unknown>>()
      const subscriptions = WATCHED.map((name) => {
        const fn = (message: unknown): void => { seen.set(name, message as Record<string, unknown>) }
        diagnosticsChannel.subscribe(name, fn)
        return () => diagnosticsChannel.unsubscribe(name, fn)
      })
      try {
        await send()
      } finally {
        for (const off of subscriptions) off()
      }
      return seen
    }

    function callersIn (seen: Map<string, Record<string, unknown>>): unknown[] {
      return WATCHED.map((name) => {
        const message = seen.get(name)!
        return name.startsWith('conduit:client:') ? message.caller : (message.request as Record<string, unknown>).caller
      })
    }

    it('reaches the request and connection messages of an HTTP/1.1 request as the dispatch options gave it', async (t) => {
      const server = await startHttpServer((req, res) => { res.end('ok') })
      const client = new Client(server.origin)
      t.after(async () => { await client.close(); await server.close() })
      const seen = await observe(async () => {
        const { body } = await client.request({ path: '/tagged', method: 'GET', [CALLER_TAG]: 'my-api' } as Parameters<Client['request']>[0])
        await body.text()
      })
      assert.deepEqual(callersIn(seen), ['my-api', 'my-api', 'my-api', 'my-api', 'my-api'])
      assert.equal((seen.get('conduit:request:create')!.request as Record<string, unknown>).fetch, false)
    })

    it('reaches the request and connection messages of an HTTP/2 request as the dispatch options gave it', async (t) => {
      const server = await startH2cServer((stream) => respond(stream, 200, 'ok'))
      const client = new Client(server.origin, { h2c: true })
      t.after(async () => { await client.close(); await server.close() })
      const seen = await observe(async () => {
        const { body } = await client.request({ path: '/tagged', method: 'GET', [CALLER_TAG]: 'my-api' } as Parameters<Client['request']>[0])
        await body.text()
      })
      assert.deepEqual(callersIn(seen), ['my-api', 'my-api', 'my-api', 'my-api', 'my-api'])
    })

    it('is null on untagged requests, and fetch\'s requests carry the fetch tag and flag', async (t) => {
      const server = await startHttpServer((req, res) => { res.end('ok') })
      const client = new Client(server.origin)
      t.after(async () => { await client.close(); await server.close() })
      const plain = await observe(async () => { await (await client.request({ path: '/plain', method: 'GET' })).body.text() })
      assert.deepEqual(plain.get('conduit:request:create')!.request, { origin: server.origin, method: 'GET', path: '/plain', headers: undefined, caller: null, fetch: false })
      const fetched = await observe(async () => { await (await fetch(`${server.origin}/fetched`, { dispatcher: client })).text() })
      const request = fetched.get('conduit:request:headers')!.request as Record<string, unknown>
      assert.deepEqual([request.path, request.caller, request.fetch], ['/fetched', 'fetch', true])
    })

    it('is ignored unless it is a non-empty string', async (t) => {
      const server = await startHttpServer((req, res) => { res.end('ok') })
      const client = new Client(server.origin)
      t.after(async () => { await client.close(); await server.close() })
      for (const tag of [42, '', { name: 'x' }]) {
        const seen = await observe(async () => {
          const { body } = await client.request({ path: '/', method: 'GET', [CALLER_TAG]: tag } as Parameters<Client['request']>[0])
          await body.text()
        })
        assert.equal((seen.get('conduit:request:create')!.request as Record<string, unknown>).caller, null)
      }
    })
  })
})
