import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type net from 'node:net'
import { Agent } from '../../src/index.js'
import type { DispatchController } from '../../src/index.js'
import { startTcpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { describeGrowth, growth, takeCensus } from './heap-census.js'

// A guard that is a count, not a time: how many objects and closures one request holds while its
// body is being read, from heap snapshots (each runs a full collection, so only what is reachable
// counts, whatever the JIT or the machine load). Requests are held mid-body by the server; the
// keep-alive connections they use exist in both snapshots, so the growth divided by the number of
// requests is what a request itself holds: its dispatch state, and for request() the handler, the
// body stream and the response. The ceilings are today's counts plus a small margin for snapshot
// noise: a change that adds an object or a closure per request fails here as a number.
const IN_FLIGHT = 100
const HALF = 512
const RESPONSE_HEAD = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${2 * HALF}\r\n\r\n`

/** Objects and closures held per in-flight dispatch() with a plain handler: 16.1 measured. */
const DISPATCH_CEILING = 17
/**
 * Objects and closures held per in-flight request() beyond what its dispatch holds, by how the
 * body is read: 6.8 with 'data' events, 24.8 with text() (measured).
 */
const REQUEST_LAYER_CEILING = { data: 7.5, text: 26 }

describe('objects one request holds while its body is read', () => {
  let server: TestServer<net.Server>
  let agent: Agent
  const held: net.Socket[] = []
  let onHeld: (() => void) | null = null

  before(async () => {
    // A raw origin, so that the server side of the process adds no objects per request to the
    // counts, and keeps its connections for as long as the test runs.
    server = await startTcpServer((socket) => {
      let head = ''
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1')
        while (head.includes('\r\n\r\n')) {
          head = head.slice(head.indexOf('\r\n\r\n') + 4)
          // Half the body now, the rest when the test lets go: every request is caught mid-body.
          socket.write(RESPONSE_HEAD)
          socket.write(Buffer.alloc(HALF, 'a'))
          held.push(socket)
          if (held.length === IN_FLIGHT) onHeld?.()
        }
      })
    })
    agent = new Agent({ connections: IN_FLIGHT })
  })

  after(async () => {
    await agent.close()
    await server.close()
  })

  /** Resolves once the server holds IN_FLIGHT requests. */
  function allHeld (): Promise<void> {
    return new Promise((resolve) => { onHeld = resolve })
  }

  function release (): void {
    for (const socket of held.splice(0)) socket.write(Buffer.alloc(HALF, 'b'))
  }

  /** Runs IN_FLIGHT requests with `send`; measures the growth while all are mid-body, then after all ended. */
  async function measure (send: (firstChunk: () => void) => Promise<number>): Promise<{ perRequest: number, leftover: number, kinds: string, left: string, byKind: Map<string, number> }> {
    const run = async (): Promise<{ during: Awaited<ReturnType<typeof takeCensus>>, bytes: number[] }> => {
      const holding = allHeld()
      let chunks = 0
      let onChunks: () => void = () => {}
      const firstChunks = new Promise<void>((resolve) => { onChunks = resolve })
      const ended = Array.from({ length: IN_FLIGHT }, () => send(() => { if (++chunks === IN_FLIGHT) onChunks() }))
      await holding
      await firstChunks
      const during = await takeCensus()
      release()
      return { during, bytes: await Promise.all(ended) }
    }
    // A first run opens the keep-alive connections and compiles every path.
    await run()
    const idle = await takeCensus()
    const { during, bytes } = await run()
    const afterwards = await takeCensus()
    assert.deepEqual(new Set(bytes), new Set([2 * HALF]))
    const held = growth(idle, during)
    const left = growth(idle, afterwards)
    return { perRequest: held.total / IN_FLIGHT, leftover: left.total / IN_FLIGHT, kinds: describeGrowth(held.byKind, IN_FLIGHT / 2), left: describeGrowth(left.byKind, 10), byKind: held.byKind }
  }

  /** Request timings are recorded as numbers on objects every request has: no object of theirs exists until someone reads them. */
  function assertNoTimingObjects (byKind: Map<string, number>): void {
    for (const kind of ['object:LiveRequestTimings', 'object:ConnectTimes']) assert.equal(byKind.get(kind) ?? 0, 0, `${kind} grew with timings unread`)
  }

  // Set by the dispatch() case, which runs first (node:test runs a suite's cases in order).
  let dispatchHolds = 0

  it('dispatch() holds no more than its ceiling per request', async () => {
    const result = await measure((firstChunk) => new Promise<number>((resolve, reject) => {
      let bytes = 0
      agent.dispatch({ origin: server.origin, path: '/', method: 'GET' }, {
        onResponseData (_c: DispatchController, chunk: Buffer) { if (bytes === 0) firstChunk(); bytes += chunk.length },
        onResponseEnd () { resolve(bytes) },
        onResponseError (_c: DispatchController, err: Error) { reject(err) }
      })
    }))
    dispatchHolds = result.perRequest
    assertNoTimingObjects(result.byKind)
    assert.ok(result.perRequest > 0, 'the census saw no request state at all')
    assert.ok(result.perRequest <= DISPATCH_CEILING, `dispatch() holds ${result.perRequest} objects per request (ceiling ${DISPATCH_CEILING}): ${result.kinds}`)
  })

  for (const read of ['data', 'text'] as const) {
    it(`request() with the body read by ${read === 'data' ? "'data' events" : 'text()'} holds no more than the request layer's ceiling beyond dispatch(), and nothing once ended`, async () => {
      const result = await measure(async (firstChunk) => {
        const { body } = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
        if (read === 'text') {
          // text() first (a listener before it would lock the body), then a witness of its first chunk.
          const text = body.text()
          body.once('data', firstChunk)
          return (await text).length
        }
        return new Promise<number>((resolve, reject) => {
          let bytes = 0
          body.on('data', (chunk: Buffer) => { if (bytes === 0) firstChunk(); bytes += chunk.length })
          body.on('end', () => resolve(bytes))
          body.on('error', reject)
        })
      })
      const layer = result.perRequest - dispatchHolds
      assertNoTimingObjects(result.byKind)
      assert.ok(layer > 0, 'the census saw no request() state beyond dispatch()')
      assert.ok(layer <= REQUEST_LAYER_CEILING[read], `request() holds ${layer} objects per request beyond dispatch() (ceiling ${REQUEST_LAYER_CEILING[read]}): ${result.kinds}`)
      assert.ok(result.leftover < 1, `${result.leftover} objects per request outlive the request: ${result.left}`)
    })
  }

  it('reading timings costs one object per request, made on the first read', async () => {
    const result = await measure(async (firstChunk) => {
      const data = await agent.request({ origin: server.origin, path: '/', method: 'GET' })
      assert.equal(data.timings, data.timings, 'the same view at each read')
      assert.equal(data.timings!.reusedSocket, true)
      return new Promise<number>((resolve, reject) => {
        let bytes = 0
        data.body.on('data', (chunk: Buffer) => { if (bytes === 0) firstChunk(); bytes += chunk.length })
        data.body.on('end', () => resolve(bytes))
        data.body.on('error', reject)
      })
    })
    // One per request read; the idle snapshot may still hold the view of a request of the first run.
    const views = result.byKind.get('object:LiveRequestTimings') ?? 0
    assert.ok(views >= IN_FLIGHT - 2 && views <= IN_FLIGHT, `${views} timing views for ${IN_FLIGHT} requests`)
  })
})
