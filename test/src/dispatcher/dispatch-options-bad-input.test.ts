import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'
import { RecordingHandler } from './recording-handler.js'

function namedFunction (): string { return 'v' }

/** Dispatch options the transport must refuse before writing, with the message naming the value. */
const BAD_DISPATCH_OPTIONS: Array<[string, Record<string, unknown>, string]> = [
  ['an object as a header value', { headers: { 'x-a': { v: 1 } } }, 'invalid value for header x-a: [object Object] (must be a string, a number or an array of them)'],
  ['an object inside a header value array', { headers: { 'x-a': ['ok', {}] } }, 'invalid value for header x-a: [object Object] (must be a string, a number or an array of them)'],
  ['a function as a header value', { headers: ['x-a', namedFunction] }, 'invalid value for header x-a: [function namedFunction] (must be a string, a number or an array of them)'],
  ['a symbol as a header value', { headers: { 'x-a': Symbol('s') } }, 'invalid value for header x-a: Symbol(s) (must be a string, a number or an array of them)'],
  ['a header pair without a value', { headers: [['x-a']] }, 'headers pairs must each be [name, value], got a pair of 1 items'],
  ['a header pair with three items', { headers: [['x-a', '1', '2']] }, 'headers pairs must each be [name, value], got a pair of 3 items'],
  ['a flat entry among header pairs', { headers: [['x-a', '1'], 'x-b'] }, 'headers pairs must each be [name, value], got "x-b"'],
  ['a signal that is not an AbortSignal', { signal: 5 }, 'dispatch: signal must be an AbortSignal or an object with addEventListener, got 5'],
  ['an infinite headersTimeout', { headersTimeout: Infinity }, 'headersTimeout must be a number of milliseconds from 0 to 2147483647, got Infinity']
]

describe('dispatch options bad input', () => {
  it('throws InvalidArgumentError naming the value for each bad option, before a connection is opened or a hook is called', async (t) => {
    let bytes = 0
    const server = await startTcpServer((socket) => socket.on('data', (c: Buffer) => { bytes += c.length }))
    const client = new Client(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    for (const [what, bad, message] of BAD_DISPATCH_OPTIONS) {
      const handler = new RecordingHandler()
      assert.throws(() => client.dispatch({ method: 'GET', path: '/', ...bad } as never, handler), { code: 'LIB_ERR_INVALID_ARG', message }, what)
      assert.deepEqual(handler.events, [], what)
    }
    assert.equal(server.connections, 0)
    assert.equal(bytes, 0)
  })

  it('still sends numbers and arrays of strings as header values', async (t) => {
    const server = await startTcpServer((socket) => {
      let head = ''
      socket.on('data', (c: Buffer) => {
        head += c.toString('latin1')
        if (head.includes('\r\n\r\n')) socket.end(`HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(head)}\r\nconnection: close\r\n\r\n${head}`)
      })
    })
    const client = new Client(server.origin)
    t.after(async () => { await client.close(); await server.close() })
    const { body } = await client.request({ method: 'GET', path: '/', headers: [['x-n', 5 as never], ['x-list', ['a', 'b'] as never]] })
    const echoed = await body.text()
    assert.match(echoed, /\r\nx-n: 5\r\n/)
    assert.match(echoed, /\r\nx-list: a\r\nx-list: b\r\n/)
  })
})

describe('bad values in messages', () => {
  it('names a bad string value by its bad character and length only, so neither a secret nor a large value reaches the message', async (t) => {
    const server = await startTcpServer(() => {})
    const client = new Client(server.origin)
    t.after(async () => { await client.destroy(); await server.close() })
    const long = 'a'.repeat(10_000) + '\n'
    assert.throws(() => client.dispatch({ method: 'GET', path: '/', headers: { 'x-a': long } }, new RecordingHandler()), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.equal(err.message, 'invalid value for header x-a: contains CR, LF, NUL or another control character (character U+000A at index 10000 of 10001; the value is not shown, as it may be a credential)')
      return true
    })
  })
})
