import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent } from '../../src/index.js'
import type { Dispatcher } from '../../src/index.js'
import { startHttpServer, startTcpServer } from '../helpers/servers.js'

// The runtime's own fetch hands a dispatcher the handler shape of the undici it bundles: the
// older hooks (onConnect, onHeaders, onData, onComplete, onError) up to Node 24 (undici 6 and 7),
// the current ones (onRequestStart, onResponseStart, ...) from Node 26 (undici 8). Each runtime
// runs this file with its own shape; conduit adapts whichever arrives.
const BUNDLED_UNDICI_MAJOR = Number(process.versions.undici?.split('.')[0])
const CURRENT_SHAPE = ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError']
const OLDER_SHAPE = ['onConnect', 'onHeaders', 'onData', 'onComplete', 'onError']

/** The `on*` hooks an object has, own or inherited. */
function hooksOf (handler: object): string[] {
  const names = new Set<string>()
  for (let proto: object | null = handler; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (/^on[A-Z]/.test(key) && typeof (handler as Record<string, unknown>)[key] === 'function') names.add(key)
    }
  }
  return [...names]
}

/** A conduit Agent behind a dispatcher that records the hooks of every handler fetch passes in. */
function recordingAgent (): { dispatcher: Dispatcher, shapes: string[][], close: () => Promise<void> } {
  const agent = new Agent()
  const shapes: string[][] = []
  const dispatcher = Object.create(agent) as Dispatcher
  dispatcher.dispatch = (opts, handler) => {
    shapes.push(hooksOf(handler))
    return agent.dispatch(opts, handler)
  }
  return { dispatcher, shapes, close: () => agent.close() }
}

describe("the runtime's fetch hands conduit the handler shape of its bundled undici", async () => {
  const server = await startHttpServer((req, res) => {
    res.setHeader('content-type', 'text/plain')
    res.setHeader('x-path', req.url ?? '')
    res.write('first ')
    res.end('second')
  })
  after(() => server.close())

  it(`passes the ${BUNDLED_UNDICI_MAJOR >= 8 ? 'current' : 'older'} hooks on Node ${process.versions.node} (undici ${process.versions.undici}), and conduit serves them`, async () => {
    const { dispatcher, shapes, close } = recordingAgent()
    after(close)
    const res = await fetch(`${server.origin}/shape`, { dispatcher } as RequestInit)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('x-path'), '/shape')
    assert.equal(await res.text(), 'first second')
    assert.equal(shapes.length, 1)
    const expected = BUNDLED_UNDICI_MAJOR >= 8 ? CURRENT_SHAPE : OLDER_SHAPE
    for (const hook of expected) assert.ok(shapes[0]!.includes(hook), `${hook} in ${shapes[0]!.join(', ')}`)
  })

  it('reports a connection the server drops mid-body as a fetch failure, whatever the shape', async () => {
    const dropping = await startTcpServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial'))
    })
    after(() => dropping.close())
    const { dispatcher, shapes, close } = recordingAgent()
    after(close)
    const res = await fetch(`http://127.0.0.1:${dropping.port}/`, { dispatcher } as RequestInit)
    assert.equal(res.status, 200)
    await assert.rejects(res.text(), TypeError)
    assert.equal(shapes.length, 1)
  })
})
