/**
 * Differential test: the `typeOfService` request option marks the HTTP/1.1 socket the request
 * goes out on, in conduit as in undici, where the runtime can (Node 24 and later); elsewhere
 * the request still succeeds unmarked.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { Socket, type AddressInfo } from 'node:net'
import { both } from './harness.js'

describe('typeOfService, compared with undici', () => {
  let server: http.Server
  let origin: string
  before(async () => {
    server = http.createServer((_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })

  it('marks the socket with each request\'s value, the same in both libraries', async () => {
    const seen = await both(async (lib) => {
      const sockets: Array<{ getTypeOfService?: () => number }> = []
      const connector = lib.buildConnector({})
      const client = new lib.Client(origin, {
        connect: (opts: unknown, callback: (err: Error | null, socket: any) => void) => connector(opts, (err: Error | null, socket: any) => {
          if (socket != null) sockets.push(socket)
          callback(err, socket)
        })
      })
      const marks: Array<number | string> = []
      try {
        for (const typeOfService of [16, 16, 32]) {
          const res = await client.request({ path: '/', method: 'GET', typeOfService })
          assert.equal(await res.body.text(), 'ok')
          const socket = sockets[sockets.length - 1]!
          marks.push(typeof socket.getTypeOfService === 'function' ? socket.getTypeOfService() : 'unsupported')
        }
      } finally {
        await client.close()
      }
      return { marks, connections: sockets.length }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    const supported = typeof (Socket.prototype as { getTypeOfService?: unknown }).getTypeOfService === 'function'
    assert.deepEqual(seen.conduit, { marks: supported ? [16, 16, 32] : ['unsupported', 'unsupported', 'unsupported'], connections: 1 })
  })
})
