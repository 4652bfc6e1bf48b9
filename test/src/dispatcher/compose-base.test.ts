// A composed dispatcher keeps its base reachable, as undici's does: the base's own methods and
// properties (MockAgent's get(), SnapshotAgent's getRecorder(), stats) and `instanceof`, while
// requests still go through the interceptors.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../../helpers/undici-reference.js'
import { Agent, ComposedDispatcher, Dispatcher, MockAgent, Pool, SnapshotAgent } from '../../../src/index.js'
import type { Dispatch, Interceptor } from '../../../src/handler.js'
import { startHttpServer } from '../../helpers/servers.js'

/** An interceptor that counts the requests it sees and tags them. */
function counting (): { interceptor: Interceptor, seen: () => number } {
  let seen = 0
  const interceptor: Interceptor = (dispatch: Dispatch): Dispatch => (opts, handler) => {
    seen++
    return dispatch({ ...opts, headers: { ...(opts.headers as Record<string, string>), 'x-seen': String(seen) } }, handler)
  }
  return { interceptor, seen: () => seen }
}

interface MockLike {
  compose: (i: Interceptor) => {
    get: (origin: string) => { intercept: (o: object) => { reply: (status: number, body: (o: { headers: Record<string, string> }) => string) => unknown } }
    request: (o: object) => Promise<{ statusCode: number, body: { text: () => Promise<string> } }>
    disableNetConnect: () => void
    assertNoPendingInterceptors: () => void
    close: () => Promise<void>
  }
}

/** Mocks a reply through the composed dispatcher's get(), then requests through it. */
async function mockThroughComposed (agent: MockLike): Promise<{ status: number, body: string, seen: number }> {
  const { interceptor, seen } = counting()
  const composed = agent.compose(interceptor as never)
  composed.disableNetConnect()
  composed.get('http://api.test').intercept({ path: '/thing', method: 'GET' }).reply(200, ({ headers }) => `seen ${headers['x-seen']}`)
  const { statusCode, body } = await composed.request({ origin: 'http://api.test', path: '/thing', method: 'GET' })
  const text = await body.text()
  composed.assertNoPendingInterceptors()
  await composed.close()
  return { status: statusCode, body: text, seen: seen() }
}

describe('A composed dispatcher keeps its base reachable', () => {
  it('mocks through a composed MockAgent\'s get(), and its requests still pass the interceptors, as in undici', async () => {
    const theirs = await mockThroughComposed(new undici.MockAgent() as unknown as MockLike)
    const ours = await mockThroughComposed(new MockAgent() as unknown as MockLike)
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, { status: 200, body: 'seen 1', seen: 1 })
  })

  it('is an instance of its base\'s class, through any number of compositions, as in undici', () => {
    const check = (make: () => object, Class: Function, Other: Function): boolean[] => {
      const once = (make() as { compose: (i: Interceptor) => object }).compose((d: Dispatch) => d)
      const twice = (once as { compose: (i: Interceptor) => object }).compose((d: Dispatch) => d)
      return [once instanceof Class, twice instanceof Class, once instanceof Other]
    }
    const theirs = check(() => new undici.MockAgent(), undici.MockAgent, undici.Pool)
    const ours = check(() => new MockAgent(), MockAgent, Pool)
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, [true, true, false])
    const composed = new Agent().compose((d: Dispatch) => d)
    assert.ok(composed instanceof Agent)
    assert.ok(composed instanceof Dispatcher)
    assert.ok(composed instanceof ComposedDispatcher)
    assert.equal(new Agent() instanceof ComposedDispatcher, false)
    assert.equal(({}) instanceof Agent, false)
    assert.equal((null as unknown as object) instanceof Dispatcher, false)
  })

  it('reads the base\'s stats and properties as they are at the moment, as in undici', async (t) => {
    const server = await startHttpServer((req, res) => res.end('ok'))
    t.after(() => server.close())
    const read = async (pool: { compose: (i: Interceptor) => unknown, close: () => Promise<void> }): Promise<unknown[]> => {
      const composed = pool.compose((d: Dispatch) => d) as { stats: { connected: number }, request: (o: object) => Promise<{ body: { text: () => Promise<string> } }> }
      const before = composed.stats.connected
      await (await composed.request({ path: '/', method: 'GET' })).body.text()
      const after = composed.stats.connected
      await pool.close()
      return [before, after]
    }
    const theirs = await read(new undici.Pool(server.origin) as never)
    const ours = await read(new Pool(server.origin))
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, [0, 1])
  })

  it('gives a composed SnapshotAgent\'s recorder, the base\'s own', async (t) => {
    const agent = new SnapshotAgent({ mode: 'record' })
    const composed = agent.compose((d: Dispatch) => d) as unknown as SnapshotAgent
    t.after(() => composed.close())
    assert.equal(composed.getRecorder(), agent.getRecorder())
    assert.equal(typeof composed.getSnapshotInfo, 'function')
  })

  it('keeps its own dispatch, close and request APIs: the base\'s methods never bypass the interceptors', async (t) => {
    const server = await startHttpServer((req, res) => res.end(String(req.headers['x-seen'])))
    t.after(() => server.close())
    const { interceptor, seen } = counting()
    const base = new Agent()
    const composed = base.compose(interceptor)
    assert.equal(await (await composed.request({ origin: server.origin, path: '/', method: 'GET' })).body.text(), '1')
    assert.equal(seen(), 1)
    await composed.close()
    assert.equal(base.closed, true)
  })

  it('writes a property set on it to the base', () => {
    const agent = new MockAgent()
    const composed = agent.compose((d: Dispatch) => d) as unknown as { get: unknown }
    const replaced = (): string => 'replaced'
    composed.get = replaced
    assert.equal((agent as unknown as { get: unknown }).get, replaced)
  })
})
