import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as errors from '../../src/errors.js'

describe('errors', () => {
  it('gives every error class a LIB_ code, a name and LibraryError as its base', () => {
    const made: errors.LibraryError[] = [
      new errors.InvalidArgumentError(),
      new errors.InvalidReturnValueError(),
      new errors.ConnectTimeoutError(),
      new errors.HeadersTimeoutError(),
      new errors.HeadersOverflowError(),
      new errors.BodyTimeoutError(),
      new errors.SocketError(),
      new errors.RequestAbortedError(),
      new errors.ClientDestroyedError(),
      new errors.ClientClosedError(),
      new errors.RequestContentLengthMismatchError(),
      new errors.ResponseContentLengthMismatchError(),
      new errors.ResponseExceededMaxSizeError(),
      new errors.RequestRetryError('retries exhausted', 503, { data: { count: 5 } }),
      new errors.ResponseError('bad status', 500),
      new errors.NotSupportedError(),
      new errors.InformationalError(),
      new errors.BalancedPoolMissingUpstreamError(),
      new errors.HTTPParserError('bad status line', 'LIB_ERR_HTTP_PARSER', 'HTTP/9'),
      new errors.SecureProxyConnectionError(new Error('cert')),
      new errors.ProxyConnectionError('proxy said 407', { statusCode: 407 }),
      new errors.MockNotMatchedError()
    ]
    const codes = new Set<string>()
    for (const err of made) {
      assert.ok(err instanceof errors.LibraryError, err.name)
      assert.ok(err instanceof Error)
      assert.match(err.code, /^LIB_(MOCK_)?ERR_[A-Z_]+$/, err.name)
      assert.ok(err.message.length > 0, err.name)
      codes.add(err.code)
    }
    assert.equal(codes.size, made.length, 'codes are distinct')
  })

  it('keeps the retry details undici users read', () => {
    const err = new errors.RequestRetryError('Request failed', 429, { headers: { 'retry-after': '1' }, data: { count: 3 } })
    assert.equal(err.code, 'LIB_ERR_REQ_RETRY')
    assert.equal(err.statusCode, 429)
    assert.deepEqual(err.headers, { 'retry-after': '1' })
    assert.equal(err.data.count, 3)
  })

  it('keeps the cause and the socket details', () => {
    const cause = new Error('reset')
    const err = new errors.SocketError('other side closed', { remoteAddress: '127.0.0.1', remotePort: 80 }, { cause })
    assert.equal(err.cause, cause)
    assert.equal(err.socket?.remotePort, 80)
    assert.equal(new errors.SocketError().socket, null)
    assert.equal(new errors.SecureProxyConnectionError(cause).cause, cause)
  })

  it('has the error classes undici exports that conduit does not raise itself, shaped as undici\'s', () => {
    const aborted = new errors.RequestAbortedError()
    assert.ok(aborted instanceof errors.AbortError && aborted instanceof errors.LibraryError)
    assert.equal(new errors.AbortError().name, 'AbortError')
    assert.equal(new errors.AbortError().code, 'LIB_ERR_ABORT')
    const socks = new errors.Socks5ProxyError('refused', 'UND_ERR_SOCKS5_AUTH')
    assert.deepEqual([socks.name, socks.code, socks.message], ['Socks5ProxyError', 'UND_ERR_SOCKS5_AUTH', 'refused'])
    assert.equal(new errors.Socks5ProxyError().code, 'LIB_ERR_SOCKS5')
    const size = new errors.MessageSizeExceededError()
    assert.deepEqual([size.name, size.code], ['MessageSizeExceededError', 'LIB_ERR_WS_MESSAGE_SIZE_EXCEEDED'])
    const wasm = new errors.WebAssemblyNotSupportedError('no wasm')
    assert.ok(!(wasm instanceof errors.LibraryError))
    assert.deepEqual([wasm.name, wasm.code, wasm.message], ['Error', 'ERR_WEBASSEMBLY_NOT_SUPPORTED', 'no wasm'])
  })
})
