import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, MockAgent, ProxyAgent, RetryAgent, interceptors, cacheStores } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'

// The runtime's own fetch (Node's built-in) passes its older handler shape to `dispatcher`;
// these tests run it over real conduit stacks, each with the interceptor's effect asserted.
describe("the runtime's global fetch over conduit dispatchers", async () => {
  let flaky = 0
  const origin = await startHttpServer((req, res) => {
    if (req.url === '/cached') {
      res.setHeader('cache-control', 'max-age=60')
      res.setHeader('etag', '"v1"')
      res.end('cached body')
    } else if (req.url === '/flaky') {
      if (flaky++ % 2 === 0) {
        res.writeHead(503, { 'retry-after': '0' })
        res.end('busy')
      } else {
        res.end('recovered')
      }
    } else if (req.url === '/upload') {
      let length = 0
      req.on('data', (chunk: Buffer) => { length += chunk.length })
      req.on('end', () => res.end(`got ${length} bytes`))
    } else {
      res.end(`hello ${req.url}`)
    }
  })
  const count = (path: string): number => origin.requests.filter((r) => r.url === path).length
  after(() => origin.close())

  it('gets cache hits and retries from a composed Agent', async () => {
    const agent = new Agent().compose(
      interceptors.cache({ store: new cacheStores.MemoryCacheStore() }),
      interceptors.retry({ minTimeout: 1 })
    )
    after(() => agent.close())
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${origin.origin}/cached`, { dispatcher: agent } as RequestInit)
      assert.equal(await res.text(), 'cached body')
      assert.match(res.headers.get('cache-status') ?? '', i === 0 ? /fwd=miss/ : /hit/)
    }
    assert.equal(count('/cached'), 1)
    const res = await fetch(`${origin.origin}/flaky`, { dispatcher: agent } as RequestInit)
    assert.equal(res.status, 200)
    assert.equal(await res.text(), 'recovered')
    assert.equal(count('/flaky'), 2)
  })

  it('streams a request body through a RetryAgent', async () => {
    const agent = new RetryAgent(new Agent(), { minTimeout: 1 })
    after(() => agent.close())
    const body = new Uint8Array(256 * 1024).fill(7)
    const res = await fetch(`${origin.origin}/upload`, { method: 'POST', body, dispatcher: agent } as RequestInit)
    assert.equal(await res.text(), `got ${body.length} bytes`)
  })

  it('goes through a ProxyAgent', async () => {
    const proxy = await startHttpProxy()
    const agent = new ProxyAgent(proxy.url)
    after(async () => { await agent.close(); await proxy.close() })
    const res = await fetch(`${origin.origin}/via-proxy`, { dispatcher: agent } as RequestInit)
    assert.equal(await res.text(), 'hello /via-proxy')
    assert.deepEqual(proxy.requests.map((r) => r.url), [`${origin.origin}/via-proxy`])
  })

  it('is answered by a MockAgent without touching the network', async () => {
    const mock = new MockAgent()
    mock.disableNetConnect()
    mock.get('http://127.0.0.1:3999').intercept({ path: '/users', method: 'GET' }).reply(200, { users: ['ada'] }, { headers: { 'content-type': 'application/json' } })
    after(() => mock.close())
    const res = await fetch('http://127.0.0.1:3999/users', { dispatcher: mock } as RequestInit)
    assert.deepEqual(await res.json(), { users: ['ada'] })
    await assert.rejects(fetch('http://127.0.0.1:3999/other', { dispatcher: mock } as RequestInit), (err: Error) =>
      err instanceof TypeError && (err.cause as { code?: string }).code === 'LIB_MOCK_ERR_MOCK_NOT_MATCHED')
  })
})
