import { before, describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, DecoratorHandler, getGlobalDispatcher, request, setGlobalDispatcher } from '../../src/index.js'
import type { Dispatch, DispatchController, Dispatcher, IncomingHeaders } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

const CONDUIT_KEY = Symbol.for('conduit.globalDispatcher.1')
const RUNTIME_KEY = Symbol.for('undici.globalDispatcher.1')
type Slots = Record<symbol, unknown>

/** Restores both global slots after the test, whatever it set. */
function keepGlobals (t: TestContext): void {
  const slots = globalThis as unknown as Slots
  const conduit = Object.getOwnPropertyDescriptor(slots, CONDUIT_KEY)
  const runtime = slots[RUNTIME_KEY]
  t.after(() => {
    if (conduit === undefined) delete slots[CONDUIT_KEY]
    else Object.defineProperty(slots, CONDUIT_KEY, conduit)
    // The runtime's slot cannot be deleted once defined; its old value goes back in.
    slots[RUNTIME_KEY] = runtime
  })
}

// The runtime defines its global dispatcher the first time its fetch runs; do that up front so
// every test can put the original back.
before(async () => { await (await fetch('data:,init')).text() })

/** An interceptor that tags requests with a header and records response statuses, to prove requests went through conduit. */
function tagging (seen: number[]) {
  return (dispatch: Dispatch): Dispatch => (opts, handler) => {
    const headers = { ...(opts.headers as Record<string, string> | undefined), 'x-through': 'conduit' }
    return dispatch({ ...opts, headers }, new class extends DecoratorHandler {
      override onResponseStart (controller: DispatchController, statusCode: number, h: IncomingHeaders, message?: string): void {
        seen.push(statusCode)
        super.onResponseStart(controller, statusCode, h, message)
      }
    }(handler))
  }
}

function echoTag (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => res.end(`${String(req.headers['x-through'])} ${req.method} ${Buffer.concat(chunks).toString()}`))
}

/**
 * A server answering with the tag header, method and body, and an Agent composed with
 * {@link tagging}; both are closed after the test. `seen` collects the statuses that went through.
 */
async function taggedAgent (t: TestContext): Promise<{ server: TestServer, seen: number[], dispatcher: Dispatcher }> {
  const server = await startHttpServer(echoTag)
  const seen: number[] = []
  const agent = new Agent()
  t.after(async () => { await agent.close(); await server.close() })
  return { server, seen, dispatcher: agent.compose(tagging(seen)) }
}

describe('global dispatcher', () => {
  it('creates one default Agent on first use and keeps it on globalThis', (t) => {
    keepGlobals(t)
    delete (globalThis as unknown as Slots)[CONDUIT_KEY]
    const first = getGlobalDispatcher()
    assert.ok(first instanceof Agent)
    assert.equal(getGlobalDispatcher(), first)
    assert.equal((globalThis as unknown as Slots)[CONDUIT_KEY], first)
  })

  it('installs the dispatcher for conduit and for the runtime fetch', (t) => {
    keepGlobals(t)
    const agent = new Agent()
    t.after(() => agent.close())
    setGlobalDispatcher(agent)
    assert.equal(getGlobalDispatcher(), agent)
    assert.equal((globalThis as unknown as Slots)[RUNTIME_KEY], agent)
  })

  it('rejects something that is not a dispatcher', () => {
    assert.throws(() => setGlobalDispatcher({} as never), { code: 'LIB_ERR_INVALID_ARG', message: /expected a dispatcher/ })
  })

  it('sends the top-level request() through the global dispatcher', async (t) => {
    keepGlobals(t)
    const { server, seen, dispatcher } = await taggedAgent(t)
    setGlobalDispatcher(dispatcher)
    const { statusCode, body } = await request(`${server.origin}/top?x=1`)
    assert.equal(statusCode, 200)
    assert.equal(await body.text(), 'conduit GET ')
    assert.equal(server.requests[0]!.url, '/top?x=1')
    const posted = await request({ origin: server.origin, path: '/', method: 'POST', body: 'data' })
    assert.equal(await posted.body.text(), 'conduit POST data')
    assert.deepEqual(seen, [200, 200])
  })
})

describe('the runtime fetch through a conduit dispatcher', () => {
  it('works with fetch(url, { dispatcher }) including interceptors and request bodies', async (t) => {
    const { server, seen, dispatcher } = await taggedAgent(t)
    const get = await fetch(`${server.origin}/a`, { dispatcher } as RequestInit)
    assert.equal(await get.text(), 'conduit GET ')
    const post = await fetch(`${server.origin}/b`, { method: 'POST', body: 'payload', dispatcher } as RequestInit)
    assert.equal(await post.text(), 'conduit POST payload')
    const stream = new ReadableStream({ start (c) { c.enqueue(new TextEncoder().encode('streamed')); c.close() } })
    const streamed = await fetch(`${server.origin}/c`, { method: 'PUT', body: stream, duplex: 'half', dispatcher } as RequestInit)
    assert.equal(await streamed.text(), 'conduit PUT streamed')
    assert.deepEqual(seen, [200, 200, 200])
    assert.equal(server.connections, 1)
  })

  it('goes through conduit after setGlobalDispatcher', async (t) => {
    keepGlobals(t)
    const { server, seen, dispatcher } = await taggedAgent(t)
    setGlobalDispatcher(dispatcher)
    const response = await fetch(`${server.origin}/global`)
    assert.equal(response.status, 200)
    assert.equal(await response.text(), 'conduit GET ')
    assert.deepEqual(seen, [200])
  })

  it('reads a large streamed response with backpressure', async (t) => {
    const big = Buffer.alloc(2 * 1024 * 1024, 'z')
    const server = await startHttpServer((req, res) => res.end(big))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const response = await fetch(server.origin, { dispatcher: agent } as RequestInit)
    assert.equal((await response.arrayBuffer()).byteLength, big.length)
  })
})
