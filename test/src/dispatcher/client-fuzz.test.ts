import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { Socket } from 'node:net'
import { Client } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

const responses = [
  'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nx-t: 1\r\n\r\n',
  'HTTP/1.1 204 No Content\r\n\r\n',
  'HTTP/1.1 200 OK\r\n\r\nclose delimited',
  'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'
]

describe('Client against random server behaviour', () => {
  it('ends every dispatch with exactly one of end or error, whatever bytes the server sends and however it closes', async (t) => {
    let script: { bytes: Buffer, pieces: number[], close: 'end' | 'destroy' | 'keep' } = { bytes: Buffer.alloc(0), pieces: [], close: 'end' }
    const sockets = new Set<Socket>()
    const server = await startTcpServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {})
      socket.once('data', () => {
        const { bytes, pieces, close } = script
        let last = 0
        for (const cut of [...pieces.map((p) => p % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
          socket.write(bytes.subarray(last, cut))
          last = cut
        }
        if (close === 'end') socket.end()
        else if (close === 'destroy') socket.destroy()
      })
    })
    t.after(() => server.close())
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...responses),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 3 }),
      fc.constantFrom('end' as const, 'destroy' as const, 'keep' as const),
      fc.nat({ max: 40 }),
      async (response, mutations, pieces, close, truncate) => {
        const bytes = Buffer.from(response, 'latin1')
        for (const [at, byte] of mutations) bytes[at % bytes.length] = byte
        script = { bytes: close === 'keep' ? bytes : bytes.subarray(0, Math.max(0, bytes.length - truncate)), pieces, close }
        const client = new Client(server.origin, { headersTimeout: 200, bodyTimeout: 200 })
        const handler = new RecordingHandler()
        client.dispatch({ path: '/', method: 'GET' }, handler)
        await handler.done
        await new Promise((resolve) => setImmediate(resolve))
        const terminal = handler.events.filter((e) => e === 'end' || e === 'error')
        assert.equal(terminal.length, 1, handler.events.join(','))
        assert.equal(handler.events.at(-1), terminal[0])
        assert.ok(handler.events.filter((e) => e === 'response').length <= 1)
        if (handler.error !== null) assert.ok(typeof (handler.error as { code?: string }).code === 'string', String(handler.error))
        await client.destroy()
        for (const socket of sockets) socket.destroy()
      }
    ), { numRuns: 60 })
  })
})
