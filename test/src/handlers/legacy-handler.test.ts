import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { Agent, DecoratorHandler, interceptors } from '../../../src/index.js'
import type { DispatchBody, DispatchHandler, Interceptor, LegacyDispatchHandler } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

describe('handlers of the older shape on a real connection', async () => {
  const server = await startHttpServer((req, res) => {
    let length = 0
    req.on('data', (chunk: Buffer) => { length += chunk.length })
    req.on('end', () => res.end(`got ${length}`))
  })
  const agent = new Agent()
  after(async () => { await agent.close(); await server.close() })

  function send (dispatcher: { dispatch: (o: never, h: LegacyDispatchHandler) => boolean }, body: DispatchBody): Promise<{ events: string[], sent: number, text: string }> {
    return new Promise((resolve, reject) => {
      const events: string[] = []
      let sent = 0
      const chunks: Buffer[] = []
      dispatcher.dispatch({ origin: server.origin, path: '/', method: 'POST', body } as never, {
        onConnect: () => events.push('connect'),
        onBodySent: (chunk: unknown) => { sent += Buffer.byteLength(chunk as string | Uint8Array) },
        onHeaders: (status: number) => { events.push(`headers ${status}`); return true },
        onData: (chunk: Buffer) => { chunks.push(chunk); return true },
        onComplete: () => { events.push('complete'); resolve({ events, sent, text: Buffer.concat(chunks).toString() }) },
        onError: reject
      })
    })
  }

  it('reports every request body chunk through onBodySent, whatever the body kind', async () => {
    for (const body of ['héllo', Buffer.from('abcdef'), Readable.from([Buffer.from('ab'), Buffer.from('cde')])]) {
      const expected = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : 5
      const { events, sent, text } = await send(agent, body)
      assert.deepEqual(events, ['connect', 'headers 200', 'complete'])
      assert.equal(sent, expected)
      assert.equal(text, `got ${expected}`)
    }
  })

  it('keeps onBodySent through a DecoratorHandler-based interceptor', async () => {
    const passThrough: Interceptor = (dispatch) => (opts, handler: DispatchHandler) => dispatch(opts, new DecoratorHandler(handler))
    const { sent } = await send(agent.compose(passThrough, interceptors.debug({ logger: () => {} })), Buffer.from('xyz'))
    assert.equal(sent, 3)
  })
})
