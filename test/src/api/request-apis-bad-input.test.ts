import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { once } from 'node:events'
import { Agent, Client, Socks5ProxyAgent, connect, pipeline, request, stream, upgrade } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

let server: TestServer
let agent: Agent

before(async () => {
  server = await startHttpServer((_req, res) => res.end('ok'))
  agent = new Agent()
})
after(async () => {
  await agent.close()
  await server.close()
})

const sink = (): Writable => new Writable({ write (_c, _e, done) { done() } })
const INVALID = { name: 'InvalidArgumentError', code: 'LIB_ERR_INVALID_ARG' }

describe('request-level APIs with bad arguments', () => {
  it('stream() rejects bad options, factory and callback, naming the value, without a request', async () => {
    const opts = { origin: server.origin, path: '/', method: 'GET' }
    await assert.rejects(agent.stream(5 as never, sink), { ...INVALID, message: 'stream(): options must be an object, got 5' })
    await assert.rejects(agent.stream(opts, 'nope' as never), { ...INVALID, message: 'stream(): factory must be a function, got "nope"' })
    await assert.rejects(agent.stream({ ...opts, signal: 'x' as never }, sink), { ...INVALID, message: 'stream(): signal must be an AbortSignal or an EventEmitter, got "x"' })
    await assert.rejects(agent.stream({ ...opts, onInfo: 1 as never }, sink), { ...INVALID, message: 'stream(): onInfo must be a function, got 1' })
    assert.throws(() => agent.stream(opts, sink, 'cb' as never), { ...INVALID, message: 'stream(): callback must be a function, got "cb"' })
    const [err, data] = await new Promise<unknown[]>((resolve) => agent.stream(null as never, sink, (...args) => resolve(args)))
    assert.equal((err as Error).message, 'stream(): options must be an object, got null')
    assert.deepEqual(data, { opaque: undefined })
    assert.equal(server.requests.length, 0)
  })

  it('stream() fails with InvalidReturnValueError when the factory returns no Writable', async () => {
    await assert.rejects(agent.stream({ origin: server.origin, path: '/', method: 'GET' }, () => ({}) as never), {
      name: 'InvalidReturnValueError',
      code: 'LIB_ERR_INVALID_RETURN_VALUE',
      message: 'stream(): the factory must return a Writable, got [object Object]'
    })
  })

  it('pipeline() returns a destroyed stream for bad options or handler, and fails a non-stream return', async () => {
    for (const [opts, handler, message] of [
      [null, () => null, 'pipeline(): options must be an object, got null'],
      [{ origin: server.origin, path: '/', method: 'GET' }, 7, 'pipeline(): handler must be a function, got 7'],
      [{ origin: server.origin, path: '/', method: 'CONNECT' }, () => null, 'pipeline(): method "CONNECT" is not supported here; use connect()']
    ] as const) {
      const duplex = agent.pipeline(opts as never, handler as never)
      const [err] = await once(duplex, 'error') as [Error]
      assert.equal(err.message, message)
      assert.equal((err as Error & { code: string }).code, 'LIB_ERR_INVALID_ARG')
    }
    const duplex = agent.pipeline({ origin: server.origin, path: '/', method: 'GET' }, () => 42 as never)
    duplex.end()
    const [err] = await once(duplex, 'error') as [Error & { code: string }]
    assert.equal(err.code, 'LIB_ERR_INVALID_RETURN_VALUE')
    assert.equal(err.message, 'pipeline(): the handler must return a Readable, got 42')
  })

  it('upgrade() and connect() reject bad options, a bad signal and a CONNECT without target', async () => {
    await assert.rejects(agent.upgrade(3 as never), { ...INVALID, message: 'upgrade(): options must be an object, got 3' })
    await assert.rejects(agent.upgrade({ origin: server.origin, signal: 9 as never }), { ...INVALID, message: 'upgrade(): signal must be an AbortSignal or an EventEmitter, got 9' })
    await assert.rejects(agent.connect({ origin: server.origin }), { ...INVALID, message: 'connect(): path must be the tunnel target as host:port, got undefined' })
    assert.throws(() => agent.connect({ origin: server.origin, path: 'a:1' }, 'cb' as never), { ...INVALID, message: 'connect(): callback must be a function, got "cb"' })
  })

  it('the top-level functions reject a bad URL, options, path or agent option, naming the value', async () => {
    await assert.rejects(request(42 as never), { ...INVALID, message: 'request(): expected a URL string, URL or options object, got 42' })
    await assert.rejects(request('not a url'), { ...INVALID, message: 'request(): invalid URL "not a url"' })
    await assert.rejects(request('ftp://127.0.0.1/'), { ...INVALID, message: 'request(): the URL must be http: or https:, got "ftp://127.0.0.1/"' })
    await assert.rejects(request(server.origin, 'x' as never), { ...INVALID, message: 'request(): options must be an object, got "x"' })
    await assert.rejects(request(server.origin, { path: 5 as never }), { ...INVALID, message: 'request(): path must be a string, got 5' })
    await assert.rejects(request(server.origin, { agent: {} } as never), { ...INVALID, message: 'request(): there is no "agent" option; pass the dispatcher as "dispatcher"' })
    await assert.rejects(request(server.origin, { dispatcher: {} as never }), { ...INVALID, message: 'request(): dispatcher must be a Dispatcher, got [object Object]' })
    await assert.rejects(request({ protocol: 'http:', hostname: '127.0.0.1', port: 99999 }), { ...INVALID, message: 'request(): url.port must be an integer from 0 to 65535, got 99999' })
    await assert.rejects(request({ origin: server.origin, pathname: 1 } as never), { ...INVALID, message: 'request(): url.pathname must be a string, got 1' })
    assert.throws(() => stream(7 as never, {}, sink), { ...INVALID, message: 'stream(): expected a URL string, URL or options object, got 7' })
    assert.throws(() => pipeline('nope', {}, () => null as never), { ...INVALID, message: 'pipeline(): invalid URL "nope"' })
    await assert.rejects(upgrade(null as never), { ...INVALID, message: 'upgrade(): expected a URL string, URL or options object, got null' })
    assert.throws(() => connect(null as never, {}, () => {}), INVALID)
  })

  it('an Agent refuses a bad maxOrigins and a Socks5ProxyAgent a non-string username or password', () => {
    assert.throws(() => new Agent({ maxOrigins: 0 }), { ...INVALID, message: 'Agent: maxOrigins must be a number greater than 0, got 0' })
    assert.throws(() => new Agent({ maxOrigins: '2' as never }), { ...INVALID, message: 'Agent: maxOrigins must be a number greater than 0, got "2"' })
    assert.throws(() => new Socks5ProxyAgent('socks5://127.0.0.1:1080', { username: 5 as never }), { ...INVALID, message: 'Socks5ProxyAgent: username must be a string, got 5' })
    assert.throws(() => new Socks5ProxyAgent('socks5://127.0.0.1:1080', { password: {} as never }), { ...INVALID, message: 'Socks5ProxyAgent: password must be a string, got [object Object]' })
  })

  it('a Client origin object with a bad part is refused, naming it', () => {
    assert.throws(() => new Client({ protocol: 'http:', hostname: 5 } as never), { ...INVALID, message: 'Client: url.hostname must be a string, got 5' })
  })
})
