import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Agent } from '../../../src/index.js'
import { Agent as UndiciAgent } from '../../helpers/undici-reference.js'
import { startHttpServer } from '../../helpers/servers.js'

// Differential: a body read whole by text() or json() ends as a consumed stream, the same way
// through conduit and undici, whether it had fully arrived before the call or was still coming.

interface Requester {
  request (opts: { origin: string, path: string, method: string }): Promise<{ body: NodeJS.ReadableStream & { text (): Promise<string>, json (): Promise<unknown>, bodyUsed: boolean, readableEnded: boolean, destroyed: boolean } }>
  close (): Promise<void>
}

const SMALL = JSON.stringify({ greeting: 'hello', n: [1, 2, 3] })
const LATER_FIRST = '{"part":"one",'
const LATER_REST = '"then":"two"}'

async function consume (agent: Requester, origin: string, path: string, how: 'text' | 'json'): Promise<unknown> {
  const { body } = await agent.request({ origin, path, method: 'GET' })
  const events: string[] = []
  body.on('end', () => events.push('end'))
  body.on('close', () => events.push('close'))
  const value = how === 'text' ? await body.text() : await body.json()
  if (!events.includes('close')) await once(body, 'close')
  return { value, events, bodyUsed: body.bodyUsed, readableEnded: body.readableEnded, destroyed: body.destroyed }
}

describe('text() and json() against undici', () => {
  it('give the same value and end the body with the same events, for bodies arrived whole or still arriving', async (t) => {
    const server = await startHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      if (req.url === '/small') {
        res.end(SMALL)
        return
      }
      // The rest comes only after the head and a first part were sent.
      res.write(LATER_FIRST)
      setTimeout(() => res.end(LATER_REST), 20)
    })
    const conduit = new Agent() as unknown as Requester
    const undici = new UndiciAgent() as unknown as Requester
    t.after(async () => {
      await conduit.close()
      await undici.close()
      await server.close()
    })
    for (const path of ['/small', '/later']) {
      for (const how of ['text', 'json'] as const) {
        const ours = await consume(conduit, server.origin, path, how)
        const theirs = await consume(undici, server.origin, path, how)
        assert.deepEqual(ours, theirs, `${how}() of ${path}`)
        const expected = path === '/small' ? SMALL : LATER_FIRST + LATER_REST
        assert.deepEqual((ours as { value: unknown }).value, how === 'text' ? expected : JSON.parse(expected))
      }
    }
  })
})
