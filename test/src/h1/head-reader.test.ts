import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { HeadReader } from '../../../src/h1/head-reader.js'
import { parseHead } from '../../../src/h1/parse-head.js'
import { Client } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'

const HEAD = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nset-cookie: a=1\r\nset-cookie: b=2\r\nx-one: 1'

describe('HeadReader', () => {
  it('reads a repeated head as parseHead does, every time', () => {
    const reader = new HeadReader()
    const expected = parseHead(HEAD, true)
    for (let i = 0; i < 4; i++) {
      const read = reader.read(HEAD)
      assert.deepEqual({ ...read, headers: { ...read.headers } }, { ...expected, headers: { ...expected.headers } })
    }
  })

  it('gives each repeated head its own headers, lists included, so a receiver may change them', () => {
    const reader = new HeadReader()
    for (let i = 0; i < 4; i++) {
      const headers = reader.read(HEAD).headers
      assert.deepEqual(headers['set-cookie'], ['a=1', 'b=2'])
      assert.equal(headers['x-one'], '1')
      ;(headers['set-cookie'] as string[]).push('changed')
      headers['x-one'] = 'changed'
      delete headers['content-length']
    }
  })

  it('reads any sequence of heads as parseHead reads each one (property)', () => {
    const head = fc.constantFrom(
      HEAD,
      'HTTP/1.1 204 No Content\r\nx-a: 1',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-a: 2',
      'HTTP/1.0 200 OK\r\nconnection: keep-alive\r\nkeep-alive: timeout=5'
    )
    fc.assert(fc.property(fc.array(head, { maxLength: 12 }), (heads) => {
      const reader = new HeadReader()
      for (const text of heads) {
        const read = reader.read(text)
        const expected = parseHead(text, true)
        assert.deepEqual({ ...read, headers: { ...read.headers } }, { ...expected, headers: { ...expected.headers } })
        ;(read.headers as Record<string, unknown>)['x-added'] = 'by the receiver'
      }
    }))
  })

  it('keeps a handler\'s changes to one response\'s headers out of the next identical response', async (t) => {
    const server = await startTcpServer((socket) => {
      socket.on('data', (chunk) => {
        for (let i = chunk.toString('latin1').split('\r\n\r\n').length - 1; i > 0; i--) {
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-list: a\r\nx-list: b\r\n\r\nok')
        }
      })
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    for (let i = 0; i < 3; i++) {
      const { headers, body } = await client.request({ path: '/', method: 'GET' })
      assert.deepEqual(headers['x-list'], ['a', 'b'])
      ;(headers['x-list'] as string[]).push('mine')
      headers['x-extra'] = 'mine'
      assert.equal(await body.text(), 'ok')
    }
  })
})
