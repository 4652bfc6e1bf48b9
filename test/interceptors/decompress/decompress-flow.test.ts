import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { Agent, interceptors } from '../../../src/index.js'
import type { DispatchController, DispatchHandler } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

// Incompressible, so the compressed body is as large as the decoded one and fills the decoder's buffers.
const RANDOM = randomBytes(1024 * 1024)
// Highly compressible: the whole compressed body arrives long before decoding is done.
const ZEROS = Buffer.alloc(8 * 1024 * 1024)

async function encodedServer () {
  return await startHttpServer((req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' })
    res.end(zlib.gzipSync(req.url === '/zeros' ? ZEROS : RANDOM))
  })
}

interface Run { bytes: Buffer, error: Error | null, dataWhilePaused: number }

function dispatchWith (dispatch: (handler: DispatchHandler) => void, hooks: { onStart?: (c: DispatchController) => void, onData?: (c: DispatchController, count: number) => void }): Promise<Run> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let paused = 0
    let count = 0
    dispatch({
      onResponseStart: (controller) => hooks.onStart?.(controller),
      onResponseData: (controller, chunk) => {
        if (controller.paused) paused++
        chunks.push(chunk)
        hooks.onData?.(controller, ++count)
      },
      onResponseEnd: () => resolve({ bytes: Buffer.concat(chunks), error: null, dataWhilePaused: paused }),
      onResponseError: (_c, error) => resolve({ bytes: Buffer.concat(chunks), error, dataWhilePaused: paused })
    })
  })
}

describe('interceptors.decompress() flow control', () => {
  it('delivers nothing while the caller is paused and everything once it resumes, under decoder backpressure', async (t) => {
    const server = await encodedServer()
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.decompress())
    const run = await dispatchWith((handler) => dispatcher.dispatch({ origin: server.origin, path: '/random', method: 'GET' }, handler), {
      onData: (controller, count) => {
        if (count % 4 !== 1) return
        controller.pause()
        setImmediate(() => controller.resume())
      }
    })
    assert.equal(run.error, null)
    assert.equal(run.dataWhilePaused, 0)
    assert.ok(run.bytes.equals(RANDOM))
  })

  it('ends with the caller reason when it aborts while the body is still arriving', async (t) => {
    const server = await encodedServer()
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.decompress())
    const reason = new Error('enough')
    const run = await dispatchWith((handler) => dispatcher.dispatch({ origin: server.origin, path: '/random', method: 'GET' }, handler), {
      onData: (controller, count) => { if (count === 1) controller.abort(reason) }
    })
    assert.equal(run.error, reason)
  })

  it('ends with the caller reason when it aborts after the network part finished, while decoding goes on', async (t) => {
    const server = await encodedServer()
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const dispatcher = agent.compose(interceptors.decompress())
    const reason = new Error('stop decoding')
    let controller!: DispatchController
    const run = await dispatchWith((handler) => dispatcher.dispatch({ origin: server.origin, path: '/zeros', method: 'GET' }, handler), {
      onStart: (c) => { controller = c; c.pause(); setTimeout(() => c.abort(reason), 50) }
    })
    assert.equal(run.error, reason)
    assert.equal(controller.aborted, true)
    assert.equal(controller.reason, reason)
    assert.ok(run.bytes.length < ZEROS.length)
  })
})
