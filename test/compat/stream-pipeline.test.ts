/**
 * stream() and pipeline() through undici and conduit against one server: what the factory and
 * the handler receive, what the caller gets back, backpressure, and how failures surface.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough, Readable, Writable } from 'node:stream'
import { pipeline as pipe } from 'node:stream/promises'
import { EventEmitter } from 'node:events'
import { both, caught, errorShape, stableHeaders } from './harness.js'
import type { Lib } from './harness.js'
import { startCompatServer } from './compat-server.js'
import type { TestServer } from '../helpers/servers.js'

let server: TestServer

before(async () => { server = await startCompatServer() })
after(() => server.close())

/** A Writable that collects what it is given, slowly when `slow` (to exercise backpressure). */
function collector (slow = false): Writable & { text: () => string } {
  const chunks: Buffer[] = []
  const writable = new Writable({
    highWaterMark: 1024,
    write (chunk: Buffer, _encoding, done) {
      chunks.push(chunk)
      if (slow) setImmediate(done)
      else done()
    }
  }) as Writable & { text: () => string }
  writable.text = () => Buffer.concat(chunks).toString()
  return writable
}

async function withAgent<T> (lib: Lib, run: (agent: any) => Promise<T>): Promise<T> {
  const agent = new lib.Agent()
  try {
    return await run(agent)
  } finally {
    await agent.close()
  }
}

describe('stream() compared with undici', () => {
  it('hands the factory status, headers, opaque and context, and resolves with opaque and trailers', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      let factoryArgs: Record<string, unknown> = {}
      const sink = collector()
      const data = await agent.stream({ origin: server.origin, path: '/chunks', method: 'GET', opaque: 'op' }, (args: Record<string, unknown>) => {
        factoryArgs = { statusCode: args.statusCode, headers: stableHeaders(args.headers as Record<string, unknown>), opaque: args.opaque, hasContext: 'context' in args }
        return sink
      })
      return { factoryArgs, data, body: sink.text() }
    }))
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit.data, { opaque: 'op', trailers: { 'x-checksum': 'abc' } })
  })

  it('writes a large body into a slow Writable completely', async () => {
    const sizes = await both((lib) => withAgent(lib, async (agent) => {
      const sink = collector(true)
      await agent.stream({ origin: server.origin, path: '/big?bytes=2000000', method: 'GET' }, () => sink)
      return sink.text().length
    }))
    assert.deepEqual(sizes, { undici: 2_000_000, conduit: 2_000_000 })
  })

  it('calls back with the data, and with { opaque } on error', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      // Only the hanging request gets the short timeout: on a busy machine /echo may take longer.
      const call = (path: string, headersTimeout?: number): Promise<unknown> => new Promise((resolve) => {
        agent.stream({ origin: server.origin, path, method: 'GET', opaque: 'cb', headersTimeout }, () => collector(), (err: Error | null, data: unknown) => {
          resolve(err === null ? data : [errorShape(err), data])
        })
      })
      return [await call('/echo'), await call('/hang', 20)]
    }))
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('fails with the same errors for a bad factory, a factory that throws, a bad return and an abort', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      const opts = { origin: server.origin, path: '/echo', method: 'GET' }
      const emitter = new EventEmitter()
      return [
        await caught(agent.stream(opts, 'not a function')),
        await caught(agent.stream(opts, () => { throw new RangeError('from factory') })),
        await caught(agent.stream(opts, () => 'not writable')),
        await caught(() => {
          // An EventEmitter has no aborted state: it must fire while the request waits.
          setTimeout(() => emitter.emit('abort'), 20)
          return agent.stream({ ...opts, path: '/hang', signal: emitter }, () => collector())
        }),
        await caught(agent.stream({ ...opts, method: 'CONNECT' }, () => collector()))
      ]
    }))
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('fails when the Writable is destroyed mid-body, with its error', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      return caught(agent.stream({ origin: server.origin, path: '/big?bytes=4000000', method: 'GET' }, () => new Writable({
        write (_chunk, _encoding, done) { done(new RangeError('sink broke')) }
      })))
    }))
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { error: 'RangeError', code: undefined })
  })

  it('is a top-level function on the global dispatcher too', async () => {
    const seen = await both(async (lib) => {
      const sink = collector()
      const data = await lib.stream(`${server.origin}/echo?top=1`, { opaque: 7 }, () => sink)
      return [data.opaque, JSON.parse(sink.text()).url]
    })
    assert.deepEqual(seen, { undici: [7, '/echo?top=1'], conduit: [7, '/echo?top=1'] })
  })

  it('takes the two-argument forms stream(url, factory), pipeline(url, handler) and request(url, callback) at the top level', async () => {
    const seen = await both(async (lib) => {
      const sink = collector()
      const streamed = await lib.stream(`${server.origin}/echo?two=1`, () => sink)
      const piped = collector()
      await pipe(Readable.from([]), lib.pipeline(`${server.origin}/echo?two=2`, ({ body }: { body: Readable }) => body), piped)
      const called = await new Promise<number>((resolve, reject) => {
        lib.request(`${server.origin}/echo?two=3`, (err: Error | null, data: { statusCode: number, body: Readable }) => {
          if (err !== null) { reject(err); return }
          data.body.resume()
          resolve(data.statusCode)
        })
      })
      return [streamed.opaque ?? null, JSON.parse(sink.text()).url, JSON.parse(piped.text()).url, called]
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, [null, '/echo?two=1', '/echo?two=2', 200])
  })
})

describe('pipeline() compared with undici', () => {
  it('sends what is written as the request body and yields what the handler returns', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      let handlerArgs: Record<string, unknown> = {}
      const sink = collector()
      await pipe(
        Readable.from(['piped ', 'body']),
        agent.pipeline({ origin: server.origin, path: '/echo', method: 'POST', opaque: 'p' }, (args: Record<string, any>) => {
          handlerArgs = { statusCode: args.statusCode, opaque: args.opaque, hasContext: 'context' in args, readable: typeof args.body.on === 'function' }
          return args.body
        }),
        sink
      )
      const echoed = JSON.parse(sink.text())
      return { handlerArgs, method: echoed.method, body: echoed.body }
    }))
    assert.deepEqual(seen.conduit, seen.undici)
    assert.equal(seen.conduit.body, 'piped body')
  })

  it('keeps backpressure both ways with a large response and a slow reader', async () => {
    const sizes = await both((lib) => withAgent(lib, async (agent) => {
      const sink = collector(true)
      await pipe(Readable.from([]), agent.pipeline({ origin: server.origin, path: '/big?bytes=2000000', method: 'GET' }, ({ body }: { body: Readable }) => body.pipe(new PassThrough())), sink)
      return sink.text().length
    }))
    assert.deepEqual(sizes, { undici: 2_000_000, conduit: 2_000_000 })
  })

  // A handler returning a non-stream is left out: undici then also emits an 'error' nobody
  // listens to (an uncaught exception); conduit's own test covers it.
  it('destroys the Duplex with the same errors for a bad handler, a throwing handler, an abort and a refused connection', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      const opts = { origin: server.origin, path: '/echo', method: 'POST' }
      // undici answers a bad handler with an already destroyed PassThrough that emits 'error' a
      // tick later; on Node 24 stream.pipeline() reads the error from the destroyed stream without
      // listening for that event, so it would be uncaught. The no-op listener only absorbs the
      // event: the error compared is still the one pipe() rejects with.
      const run = (o: Record<string, unknown>, handler: unknown): Promise<unknown> => {
        const duplex = agent.pipeline(o, handler)
        duplex.on('error', () => {})
        return caught(pipe(Readable.from(['x']), duplex, collector()))
      }
      const controller = new AbortController()
      return [
        await run(opts, null),
        await run(opts, () => { throw new RangeError('from handler') }),
        await (setTimeout(() => controller.abort(), 20), run({ ...opts, path: '/hang', signal: controller.signal }, ({ body }: { body: Readable }) => body)),
        await run({ ...opts, method: 'CONNECT' }, ({ body }: { body: Readable }) => body),
        await run({ ...opts, origin: 'http://127.0.0.1:1' }, ({ body }: { body: Readable }) => body)
      ]
    }))
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('aborts the request when the Duplex is destroyed before the response ends', async () => {
    const seen = await both((lib) => withAgent(lib, async (agent) => {
      const duplex = agent.pipeline({ origin: server.origin, path: '/hang', method: 'GET' }, ({ body }: { body: Readable }) => body)
      duplex.end()
      const closed = new Promise<unknown>((resolve) => duplex.on('error', (err: Error) => resolve(errorShape(err))))
      setTimeout(() => duplex.destroy(), 20)
      return closed
    }))
    assert.deepEqual(seen.conduit, seen.undici)
  })
})
