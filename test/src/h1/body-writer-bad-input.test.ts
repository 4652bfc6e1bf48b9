import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { Client } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { RecordingHandler } from '../dispatcher/recording-handler.js'

describe('request body chunks of the wrong type', () => {
  const bodies: Array<[string, () => { body: unknown, closed: () => boolean }, string]> = [
    ['a generator yielding a number', () => {
      let closed = false
      const body = (function * () { try { yield 'a'; yield 5; yield 'never' } finally { closed = true } })()
      return { body, closed: () => closed }
    }, 'got 5'],
    ['an async generator yielding an object', () => {
      let closed = false
      const body = (async function * () { try { yield Buffer.from('a'); yield { a: 1 } } finally { closed = true } })()
      return { body, closed: () => closed }
    }, 'got [object Object]'],
    ['an object-mode Readable', () => {
      const body = Readable.from([{ a: 1 }, { b: 2 }])
      return { body, closed: () => body.destroyed }
    }, 'got [object Object]']
  ]

  for (const [what, make, shown] of bodies) {
    it(`fails the request once with InvalidArgumentError for ${what}, stops the body source, and keeps the client usable`, async (t) => {
      const server = await startHttpServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); req.on('error', () => {}) })
      const client = new Client(server.origin)
      t.after(async () => { await client.close(); await server.close() })
      const { body, closed } = make()
      const handler = new RecordingHandler()
      client.dispatch({ method: 'POST', path: '/', body: body as never }, handler)
      await handler.done
      assert.deepEqual(handler.events, ['start', 'error'])
      assert.equal((handler.error as Error & { code?: string }).code, 'LIB_ERR_INVALID_ARG')
      assert.equal(handler.error?.message, `request body chunks must be strings or bytes (Buffer, Uint8Array), ${shown}`)
      const next = await client.request({ method: 'GET', path: '/' })
      assert.equal(await next.body.text(), 'ok')
      // An async generator's finally runs once its return() settles, after the error was reported.
      assert.equal(closed(), true)
    })
  }
})
