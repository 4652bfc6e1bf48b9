import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { writeRequestHead } from '../../../src/h1/request-head.js'
import { validatePath } from '../../../src/connection/request-fields.js'
import { ClientRequest } from '../../../src/connection/client-request.js'
import type { RequestTarget } from '../../../src/connection/client-request.js'
import type { DispatchOptions } from '../../../src/handler.js'
import { InvalidArgumentError } from '../../../src/errors.js'

/** What a head is built from, in the shape the request options give it. */
interface HeadInput {
  method: string
  path: string
  upgrade: string | null
  headers: DispatchOptions['headers']
  reset: boolean
  expectContinue: boolean
  /** Bytes of the body, or -1 for a streamed one. */
  bodyLength: number
  strictContentLength: boolean
}

const base: HeadInput = {
  method: 'GET',
  path: '/',
  upgrade: null,
  headers: undefined,
  reset: false,
  expectContinue: false,
  bodyLength: 0,
  strictContentLength: true
}

/** Prepares a request as a Client would (its fields validated and kept structured), then writes its HTTP/1.1 head. */
function buildRequestHead (input: HeadInput): { head: string, reset: boolean, bodyLength: number, prepareError: Error | null } {
  const target: RequestTarget = {
    runner: { abortRequest: () => {}, pauseRequest: () => {}, resumeRequest: () => {} },
    origin: 'http://example.test',
    hostHeader: 'example.test',
    defaults: { headersTimeout: 1000, bodyTimeout: 1000, strictContentLength: input.strictContentLength },
    startContext: undefined
  }
  const body = input.bodyLength === -1 ? (async function * () {})() : input.bodyLength === 0 ? undefined : Buffer.alloc(input.bodyLength)
  const req = new ClientRequest(target, {
    method: input.method,
    path: input.path,
    headers: input.headers,
    body,
    reset: input.reset,
    expectContinue: input.expectContinue,
    ...(input.upgrade === null ? {} : { upgrade: input.upgrade })
  } as DispatchOptions, { onRequestUpgrade: () => {} })
  return { head: writeRequestHead(req), reset: req.reset, bodyLength: req.bodyLength, prepareError: req.prepareError }
}

describe('the HTTP/1.1 request head, written from a prepared request', () => {
  it('returns the head and its decisions, leaving its input as it was', () => {
    const headers = { 'x-a': '1', connection: 'close', host: 'other.test' }
    const input = { ...base, method: 'POST', headers, bodyLength: 3 }
    const snapshot = structuredClone(input)
    const built = buildRequestHead(input)
    assert.equal(built.head, 'POST / HTTP/1.1\r\nhost: other.test\r\nconnection: close\r\nx-a: 1\r\ncontent-length: 3\r\n\r\n')
    assert.equal(built.reset, true)
    assert.equal(built.bodyLength, 3)
    assert.equal(built.prepareError, null)
    assert.deepEqual(input, snapshot)
  })

  it('frames a streamed body by its content-length header, and reports a mismatch without throwing', () => {
    assert.equal(buildRequestHead({ ...base, method: 'PUT', bodyLength: -1, headers: ['content-length', '5'] }).bodyLength, 5)
    const mismatch = buildRequestHead({ ...base, method: 'PUT', bodyLength: 2, headers: { 'content-length': '5' } })
    assert.equal(mismatch.prepareError?.name, 'RequestContentLengthMismatchError')
    assert.equal((mismatch.prepareError as { code?: string }).code, 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH')
    assert.equal(buildRequestHead({ ...base, method: 'PUT', bodyLength: 2, headers: { 'content-length': '5' }, strictContentLength: false }).prepareError, null)
  })

  it('writes upgrade and expect-continue lines and no framing for CONNECT', () => {
    assert.equal(buildRequestHead({ ...base, upgrade: 'websocket' }).head, 'GET / HTTP/1.1\r\nhost: example.test\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n')
    assert.equal(buildRequestHead({ ...base, method: 'CONNECT', path: 'example.test:443' }).head, 'CONNECT example.test:443 HTTP/1.1\r\nhost: example.test\r\n\r\n')
    assert.match(buildRequestHead({ ...base, method: 'POST', bodyLength: 1, expectContinue: true }).head, /\r\nexpect: 100-continue\r\n/)
  })

  it('throws InvalidArgumentError naming a header value with CR or LF', () => {
    assert.throws(() => buildRequestHead({ ...base, headers: { 'x-a': 'a\r\nb' } }), { code: 'LIB_ERR_INVALID_ARG', message: 'invalid value for header x-a: contains CR, LF, NUL or another control character (character U+000D at index 1 of 4; the value is not shown, as it may be a credential)' })
  })

  it('writes every safe header once, as given, and ends the head with one empty line', () => {
    const name = fc.stringMatching(/^x-[a-z0-9]{1,10}$/)
    const value = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/)
    fc.assert(fc.property(fc.dictionary(name, value, { maxKeys: 5 }), (headers) => {
      const { head } = buildRequestHead({ ...base, headers })
      for (const [n, v] of Object.entries(headers)) assert.ok(head.includes(`\r\n${n}: ${v}\r\n`))
      assert.ok(head.endsWith('\r\n\r\n'))
      assert.equal(head.indexOf('\r\n\r\n'), head.length - 4)
    }))
  })

  it('refuses exactly the paths holding a control, space, DEL or non-latin1 character (property)', () => {
    const char = fc.oneof(
      fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0, max: 0x20 }).map((c) => String.fromCharCode(c)),
      fc.constantFrom('\x7f', '\x80', '\xff', '\u0100', '\u2028', '\ud83d\ude00')
    )
    fc.assert(fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
      const path = '/' + chars.join('')
      const bad = /[^\x21-\x7e\x80-\xff]/.test(path)
      if (bad) {
        assert.throws(() => validatePath(path, 'GET'), (err: Error) => err instanceof InvalidArgumentError && err.message.includes('contains a control character, space or non-latin1 character'))
      } else {
        validatePath(path, 'GET')
      }
    }))
  })
})
