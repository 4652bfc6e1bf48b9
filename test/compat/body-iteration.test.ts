/**
 * `for await` over a `request()` body through undici and conduit against one server. conduit's
 * body reads what is already buffered without Node's stream iterator and hands over to it when a
 * step must wait; what a user sees (chunks, errors, the body's state when the loop ends, the
 * events and their order, the connection afterwards) must be the same as with undici.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { both, caught, errorShape } from './harness.js'
import type { Lib } from './harness.js'

let server: http.Server
let origin: string

before(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '/'
    if (url === '/small') res.end('x'.repeat(1024))
    else if (url === '/empty') res.end()
    else if (url === '/big') res.end(Buffer.alloc(300 * 1024, 'b'))
    else if (url === '/slow') {
      res.write('first,')
      setTimeout(() => { res.write('second,') }, 20)
      setTimeout(() => { res.end('third') }, 40)
    } else if (url === '/broken') {
      res.writeHead(200, { 'content-length': '100' })
      res.write('only ten b')
      setTimeout(() => { res.socket?.destroy() }, 20)
    } else {
      res.statusCode = 404
      res.end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => { server.closeAllConnections(); server.close() })

type Body = AsyncIterable<Buffer> & NodeJS.ReadableStream & {
  destroy: (err?: Error) => void
  readableEnded: boolean, destroyed: boolean, bodyUsed: boolean, errored: unknown, readableFlowing: boolean | null
}

/** Body state as a user can see it. */
function state (body: Body): Record<string, unknown> {
  return { readableEnded: body.readableEnded, destroyed: body.destroyed, bodyUsed: body.bodyUsed, errored: body.errored === null ? null : errorShape(body.errored) }
}

/**
 * Requests `path` (after `waitMs`, so the body is whole in the buffer or not), iterates its body
 * with `loop`, and records the outcome, the body's state right after the loop and one tick later,
 * the events in order, and whether the next request on the same Agent succeeds.
 */
async function observe (lib: Lib, path: string, waitMs: number, loop: (body: Body) => Promise<unknown>): Promise<unknown> {
  const agent = new lib.Agent({ connections: 1 })
  try {
    const res = await agent.request({ origin, path, method: 'GET' })
    const body = res.body as Body
    const events: string[] = []
    for (const name of ['end', 'close', 'error']) body.on(name, () => { events.push(name) })
    if (waitMs > 0) await sleep(waitMs)
    const outcome = await caught(() => loop(body))
    const atLoopEnd = state(body)
    await sleep(5)
    const later = state(body)
    const next = await agent.request({ origin, path: '/small', method: 'GET' })
    const nextText = await next.body.text()
    return { outcome, atLoopEnd, later, events, next: nextText.length }
  } finally {
    await agent.close()
  }
}

async function same (path: string, waitMs: number, loop: (body: Body) => Promise<unknown>): Promise<unknown> {
  const { undici, conduit } = await both((lib) => observe(lib, path, waitMs, loop))
  assert.deepEqual(conduit, undici)
  return conduit
}

async function readAll (body: Body): Promise<string> {
  let text = ''
  for await (const chunk of body) text += String(chunk)
  return text
}

async function firstOnly (body: Body): Promise<string> {
  for await (const chunk of body) return String(chunk).slice(0, 3)
  return 'none'
}

describe('for await over a request() body compared with undici', () => {
  it('reads a body already buffered, an empty one and a large one alike, with the same state and events after the loop', async () => {
    for (const wait of [0, 30]) {
      const small = await same('/small', wait, readAll) as { outcome: { value: string } }
      assert.equal(small.outcome.value.length, 1024)
      await same('/empty', wait, readAll)
      const big = await same('/big', wait, async (body) => (await readAll(body)).length) as { outcome: { value: number } }
      assert.equal(big.outcome.value, 300 * 1024)
    }
  })

  it('reads a body that arrives over time (the steps that wait) alike', async () => {
    const slow = await same('/slow', 0, readAll) as { outcome: { value: string } }
    assert.equal(slow.outcome.value, 'first,second,third')
  })

  it('destroys the body when the loop is left early, and the Agent goes on alike', async () => {
    for (const wait of [0, 30]) {
      const seen = await same('/small', wait, firstOnly) as { atLoopEnd: { destroyed: boolean } }
      assert.equal(seen.atLoopEnd.destroyed, true)
      await same('/big', wait, firstOnly)
      await same('/slow', wait, firstOnly)
    }
  })

  it('rejects with the same error when the connection breaks mid-body', async () => {
    const broken = await same('/broken', 0, readAll) as { outcome: unknown }
    assert.ok(!('value' in (broken.outcome as object)))
  })

  it('handles a manual iterator alike: return() and throw() before and after next()', async () => {
    await same('/small', 30, async (body) => {
      const iterator = body[Symbol.asyncIterator]()
      const early = await iterator.return!()
      return { early, destroyed: body.destroyed }
    })
    await same('/small', 30, async (body) => {
      const iterator = body[Symbol.asyncIterator]()
      const first = await iterator.next()
      const done = await iterator.return!()
      const after = await iterator.next()
      return { first: first.done, done, after }
    })
    await same('/small', 30, async (body) => {
      const iterator = body[Symbol.asyncIterator]()
      await iterator.next()
      return await iterator.throw!(new TypeError('stop'))
    })
  })

  it('settles a consumer of a destroyed body alike, with the error the destroy left (no hang)', async () => {
    for (const wait of [0, 30]) {
      await same('/slow', wait, async (body) => {
        body.on('error', () => {})
        body.destroy()
        return await (body as unknown as { text: () => Promise<string> }).text()
      })
      await same('/small', wait, async (body) => {
        body.on('error', () => {})
        await new Promise((resolve) => { body.once('close', resolve); body.destroy() })
        return await (body as unknown as { text: () => Promise<string> }).text()
      })
    }
  })

  it('refuses a second consumer after the loop alike', async () => {
    await same('/small', 30, async (body) => {
      await readAll(body)
      return await caught(() => (body as unknown as { text: () => Promise<string> }).text())
    })
  })
})
