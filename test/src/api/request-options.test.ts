import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, DecoratorHandler, interceptors } from '../../../src/index.js'
import type { DispatchController, IncomingHeaders, Interceptor } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

let server: TestServer

before(async () => {
  server = await startHttpServer((req, res) => res.end(`${req.method} ${req.url}`))
})
after(() => server.close())

describe('request() options', () => {
  it('refuses maxRedirections that no redirect interceptor took, pointing at interceptors.redirect', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: server.origin, path: '/', method: 'GET', maxRedirections: 3 }), {
      name: 'InvalidArgumentError',
      code: 'LIB_ERR_INVALID_ARG',
      message: /maxRedirections .*got 3.*interceptors\.redirect\(\)/
    })
    assert.equal(server.requests.length, 0)
  })

  it('accepts maxRedirections: 0, which asks for no redirect handling', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const res = await agent.request({ origin: server.origin, path: '/zero', method: 'GET', maxRedirections: 0 })
    assert.equal(await res.body.text(), 'GET /zero')
  })

  it('refuses reset and expectContinue that are not booleans, and throwOnError, naming the value, before sending', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const table: Array<[Record<string, unknown>, RegExp]> = [
      [{ reset: 0 }, /invalid reset: 0 \(must be a boolean\)/],
      [{ expectContinue: 0 }, /invalid expectContinue: 0 \(must be a boolean\)/],
      [{ expectContinue: 'yes' }, /invalid expectContinue: "yes"/],
      [{ throwOnError: true }, /throwOnError is not a request option, got true: compose interceptors\.responseError\(\)/]
    ]
    const sent = server.requests.length
    for (const [bad, message] of table) {
      await assert.rejects(agent.request({ origin: server.origin, path: '/', method: 'POST', body: 'x', ...bad }), { name: 'InvalidArgumentError', code: 'LIB_ERR_INVALID_ARG', message })
    }
    assert.equal(server.requests.length, sent)
  })

  it('refuses query parameters on a path with a fragment, naming the path', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    await assert.rejects(agent.request({ origin: server.origin, path: '/#frag', method: 'GET', query: { foo: 1 } }), {
      code: 'LIB_ERR_INVALID_ARG',
      message: /invalid path: "\/#frag" \(a path with a fragment cannot take query parameters\)/
    })
  })

  it('gives the status message as statusText too', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const res = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    await res.body.dump()
    assert.equal(res.statusText, 'OK')
    assert.equal(res.statusMessage, 'OK')
  })

  it('gives an empty statusText when the head reached request() without a status message', async (t) => {
    class WithoutStatusMessage extends DecoratorHandler {
      override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
        super.onResponseStart(controller, statusCode, headers)
      }
    }
    const dropStatusMessage: Interceptor = (dispatch) => (opts, handler) => dispatch(opts, new WithoutStatusMessage(handler))
    const agent = new Agent().compose(dropStatusMessage)
    t.after(() => agent.close())
    const res = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
    await res.body.dump()
    assert.equal(res.statusText, '')
    assert.equal(res.statusMessage, undefined)
  })

  it('reads upgrade: false as no upgrade and refuses upgrade: true, as undici does', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const res = await agent.request({ origin: server.origin, path: '/no-upgrade', method: 'GET', upgrade: false })
    assert.equal(await res.body.text(), 'GET /no-upgrade')
    const sent = server.requests.length
    await assert.rejects(agent.request({ origin: server.origin, path: '/', method: 'GET', upgrade: true }), { name: 'InvalidArgumentError', code: 'LIB_ERR_INVALID_ARG', message: /invalid upgrade: true/ })
    assert.equal(server.requests.length, sent)
  })

  it('takes a Client origin as a URL-like object of parts', async (t) => {
    const client = new Client({ protocol: 'http:', hostname: '127.0.0.1', port: server.port } as never)
    t.after(() => client.close())
    const res = await client.request({ path: '/parts', method: 'GET' })
    assert.equal(await res.body.text(), 'GET /parts')
    assert.throws(() => new Client({ protocol: 'ftp:', hostname: '127.0.0.1' } as never), { code: 'LIB_ERR_INVALID_ARG', message: /http: or https:, got "ftp:"/ })
    assert.throws(() => new Client({ origin: 5 } as never), { code: 'LIB_ERR_INVALID_ARG', message: /url\.origin must be a string, got 5/ })
  })

  it('skips null and undefined entries in compose(), as undici does', async (t) => {
    const agent = new Agent()
    t.after(() => agent.close())
    const composed = agent.compose(null, interceptors.debug(), undefined)
    const res = await composed.request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(res.statusCode, 200)
    assert.throws(() => agent.compose(5 as never), { name: 'TypeError', message: /interceptor at index 0 must be a function, got 5/ })
  })
})
