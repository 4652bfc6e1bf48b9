import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, Pool } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

const dispatchers: Array<[string, (origin: string) => Dispatcher]> = [
  ['Client', (origin) => new Client(origin)],
  ['Pool', (origin) => new Pool(origin, { connections: 1 })],
  ['Agent', () => new Agent({ connections: 2 })]
]

describe('close() overtaken by destroy()', () => {
  for (const [name, create] of dispatchers) {
    it(`${name}: a close() still waiting when destroy() is called resolves, and every request fails with LIB_ERR_DESTROYED`, { timeout: 5000 }, async (t) => {
      // The server reads requests and never answers, so close() has to wait.
      let accepted = 0
      let seen!: () => void
      const firstRequest = new Promise<void>((resolve) => { seen = resolve })
      const server = await startTcpServer((socket) => {
        accepted++
        socket.once('data', () => seen())
      })
      t.after(() => server.close())
      const dispatcher = create(server.origin)
      const handlers = [1, 2, 3].map(() => new RecordingHandler())
      for (const h of handlers) dispatcher.dispatch({ origin: server.origin, path: '/', method: 'GET' }, h)
      await firstRequest
      const closing = dispatcher.close()
      await dispatcher.destroy()
      await closing
      await Promise.all(handlers.map((h) => h.done))
      assert.deepEqual(handlers.map((h) => (h.error as { code?: string } | null)?.code), ['LIB_ERR_DESTROYED', 'LIB_ERR_DESTROYED', 'LIB_ERR_DESTROYED'])
      assert.ok(accepted >= 1)
    })
  }
})
