// Dispatcher1Wrapper: handlers of the first API served through a dispatcher of today's, compared
// with undici's wrapper where the reference undici has one (undici 8).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Dispatcher1Wrapper, errors } from '../../../src/index.js'
import { undici } from '../../helpers/undici-reference.js'
import { startHttpServer } from '../../helpers/servers.js'

/** Runs one GET with a first-API handler; resolves with what the handler saw. */
function legacyGet (dispatcher: { dispatch: (opts: any, handler: any) => boolean }, origin: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const seen: string[] = []
    let body = ''
    dispatcher.dispatch({ origin, path: '/legacy', method: 'GET' }, {
      onConnect: () => { seen.push('connect') },
      onHeaders: (status: number, raw: Buffer[]) => {
        const names = raw.filter((_, i) => i % 2 === 0).map((b) => b.toString().toLowerCase())
        seen.push(`headers ${status} ${names.includes('x-legacy')}`)
        return true
      },
      onData: (chunk: Buffer) => { body += chunk.toString(); return true },
      onComplete: () => { seen.push(`complete ${body}`); resolve(seen) },
      onError: reject
    })
  })
}

describe('Dispatcher1Wrapper', () => {
  it('serves a first-API handler through the wrapped dispatcher, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => { res.setHeader('x-legacy', '1'); res.end('old') })
    const ours = new Dispatcher1Wrapper(new Agent())
    t.after(async () => { await ours.close(); await server.close() })
    const seen = await legacyGet(ours, server.origin)
    assert.deepEqual(seen, ['connect', 'headers 200 true', 'complete old'])
    const TheirWrapper = (undici as Record<string, unknown>).Dispatcher1Wrapper as (new (d: unknown) => { dispatch: (o: any, h: any) => boolean, close: () => Promise<void> }) | undefined
    if (TheirWrapper !== undefined) {
      const theirs = new TheirWrapper(new undici.Agent())
      t.after(() => theirs.close())
      assert.deepEqual(await legacyGet(theirs, server.origin), seen)
    }
  })

  it('refuses what is not a dispatcher or a handler, naming it', () => {
    assert.throws(() => new Dispatcher1Wrapper({} as never), (err: unknown) => err instanceof errors.InvalidArgumentError && /dispatch\(\)/.test((err as Error).message))
    assert.throws(() => Dispatcher1Wrapper.wrapHandler(5 as never), errors.InvalidArgumentError)
  })
})
