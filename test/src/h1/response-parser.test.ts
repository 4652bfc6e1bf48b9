import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { HEAD_BODY, HEAD_NO_BODY, HEAD_UPGRADE, ResponseParser } from '../../../src/h1/response-parser.js'
import type { IncomingHeaders } from '../../../src/handler.js'
import { splitAt } from '../../helpers/split-bytes.js'

interface Message { status: number, text: string, headers: IncomingHeaders, body: string, trailers: IncomingHeaders | null }

/** Parses `input` (split into the given pieces) and returns the messages it produced. */
function parse (pieces: Buffer[], opts: { mode?: number, maxHeaderSize?: number, eof?: boolean } = {}): Message[] {
  const messages: Message[] = []
  let current: Message | null = null
  const parser = new ResponseParser({
    onHead (status, headers, text) {
      current = { status, text, headers, body: '', trailers: null }
      messages.push(current)
      return opts.mode ?? HEAD_BODY
    },
    onBody (chunk) { current!.body += chunk.toString('latin1') },
    onEnd (trailers) { current!.trailers = trailers }
  }, opts.maxHeaderSize)
  for (const piece of pieces) parser.execute(piece)
  if (opts.eof === true) parser.finish()
  return messages
}

const b = (s: string): Buffer => Buffer.from(s, 'latin1')

function parseError (input: string, opts: { maxHeaderSize?: number } = {}): { code: string, message: string } {
  try {
    parse([b(input)], opts)
  } catch (err) {
    return err as { code: string, message: string }
  }
  assert.fail(`no error for ${JSON.stringify(input)}`)
}

describe('ResponseParser', () => {
  it('parses a content-length response with its status text and lower-cased headers', () => {
    const [m] = parse([b('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello')])
    assert.equal(m!.status, 200)
    assert.equal(m!.text, 'OK')
    assert.deepEqual(m!.headers, { 'content-length': '5', 'x-a': ['1', '2'] })
    assert.equal(m!.body, 'hello')
    assert.deepEqual(m!.trailers, {})
  })

  it('parses a chunked body with extensions and trailers', () => {
    const [m] = parse([b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-sum: 5\r\n\r\n')])
    assert.equal(m!.body, 'abcde')
    assert.deepEqual(m!.trailers, { 'x-sum': '5' })
  })

  it('reads a body without framing headers until the connection ends', () => {
    const messages = parse([b('HTTP/1.1 200 OK\r\n\r\npart one '), b('part two')], { eof: true })
    assert.equal(messages[0]!.body, 'part one part two')
    assert.deepEqual(messages[0]!.trailers, {})
  })

  it('gives 204, 304 and answers to HEAD no body', () => {
    const input = 'HTTP/1.1 204 No Content\r\ncontent-length: 10\r\n\r\nHTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n'
    const messages = parse([b(input)])
    assert.deepEqual(messages.map((m) => [m.status, m.body, m.trailers !== null]), [[204, '', true], [304, '', true]])
    const head = parse([b('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n')], { mode: HEAD_NO_BODY })
    assert.equal(head[0]!.body, '')
    assert.deepEqual(head[0]!.trailers, {})
  })

  it('reports 1xx heads and then the final response', () => {
    const messages = parse([b('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')])
    assert.deepEqual(messages.map((m) => m.status), [100, 103, 200])
    assert.equal(messages[2]!.body, 'ok')
  })

  it('stops at an upgrade head and keeps the following bytes for the new protocol', () => {
    const messages: number[] = []
    const parser = new ResponseParser({ onHead: (s) => { messages.push(s); return HEAD_UPGRADE }, onBody: () => {}, onEnd: () => {} })
    parser.execute(b('HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\nraw bytes'))
    parser.execute(b(' and more'))
    assert.deepEqual(messages, [101])
    assert.equal(parser.takeRest()?.toString(), 'raw bytes and more')
  })

  it('holds data while paused and delivers it on resume', () => {
    const bodies: string[] = []
    let ended = false
    const parser = new ResponseParser({
      onHead: () => HEAD_BODY,
      onBody: (chunk) => { bodies.push(chunk.toString()); parser.pause() },
      onEnd: () => { ended = true }
    })
    parser.execute(b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n'))
    assert.deepEqual(bodies, ['a'])
    parser.resume()
    assert.deepEqual(bodies, ['a', 'b'])
    assert.equal(ended, false)
    parser.resume()
    assert.equal(ended, true)
  })

  it('rejects conflicting content-length values', () => {
    const err = parseError('HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\n')
    assert.equal(err.code, 'LIB_ERR_HTTP_PARSER')
    assert.match(err.message, /conflicting content-length/)
  })

  it('accepts repeated identical content-length values', () => {
    const [m] = parse([b('HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 2, 2\r\n\r\nok')])
    assert.equal(m!.body, 'ok')
  })

  it('rejects transfer-encoding together with content-length', () => {
    const err = parseError('HTTP/1.1 200 OK\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n')
    assert.match(err.message, /both transfer-encoding and content-length/)
  })

  it('rejects bad chunk sizes, naming the size line', () => {
    const err = parseError('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n')
    assert.equal(err.code, 'LIB_ERR_HTTP_PARSER')
    assert.match(err.message, /invalid chunk size: "zz"/)
  })

  it('rejects whitespace after a chunk size, with or without an extension after it', () => {
    for (const line of ['2 ', '2\t', '2 ;a=b', '2\t;a=b']) {
      const err = parseError(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${line}\r\nok\r\n0\r\n\r\n`)
      assert.equal(err.code, 'LIB_ERR_HTTP_PARSER')
      assert.equal(err.message, `invalid chunk size: ${JSON.stringify(line)}`)
    }
  })

  it('rejects invalid header names and values and bad status lines', () => {
    assert.match(parseError('HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n').message, /invalid header name: "bad name"/)
    assert.equal(parseError('HTTP/1.1 200 OK\r\nx: a\x00b\r\n\r\n').message, 'invalid byte in value of header x: character U+0000 at index 1 of 3; the value is not shown, as it may be a credential')
    const cookie = parseError('HTTP/1.1 200 OK\r\nset-cookie: sid=Zk3Secret\x7f\r\n\r\n') as unknown as Record<string, unknown>
    assert.equal(JSON.stringify(Object.getOwnPropertyNames(cookie).map((key) => cookie[key])).includes('Zk3Secret'), false)
    assert.match(parseError('HTTP/2.0 200 OK\r\n\r\n').message, /invalid status line/)
    assert.match(parseError('HTTP/1.1 20x OK\r\n\r\n').message, /invalid status code/)
    assert.match(parseError('HTTP/1.1 200 OK\r\nx: 1\r\n folded\r\n\r\n').message, /obsolete line folding/)
  })

  it('rejects a head larger than maxHeaderSize with HeadersOverflowError', () => {
    const err = parseError(`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(200)}\r\n\r\n`, { maxHeaderSize: 100 })
    assert.equal(err.code, 'LIB_ERR_HEADERS_OVERFLOW')
    assert.match(err.message, /maxHeaderSize \(100 bytes\)/)
    const partial = parseError(`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(200)}`, { maxHeaderSize: 100 })
    assert.equal(partial.code, 'LIB_ERR_HEADERS_OVERFLOW')
  })

  it('rejects an unrequested 101', () => {
    assert.match(parseError('HTTP/1.1 101 Switching Protocols\r\n\r\n').message, /unexpected 101/)
  })

  it('reports a content-length body cut short when the connection ends', () => {
    assert.throws(() => parse([b('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc')], { eof: true }), { code: 'LIB_ERR_RES_CONTENT_LENGTH_MISMATCH' })
    assert.throws(() => parse([b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc')], { eof: true }), { code: 'LIB_ERR_HTTP_PARSER' })
  })
})

const tokenArb = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/).filter((n) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(n))
const valueArb = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/)
const responseArb = fc.record({
  status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
  headers: fc.array(fc.tuple(tokenArb, valueArb), { maxLength: 6 }),
  body: fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { maxLength: 4 }),
  chunked: fc.boolean(),
  trailers: fc.array(fc.tuple(tokenArb, valueArb), { maxLength: 2 })
})

type Response = typeof responseArb extends fc.Arbitrary<infer T> ? T : never

function encode (r: Response): Buffer {
  let head = `HTTP/1.1 ${r.status} Reason\r\n`
  for (const [n, v] of r.headers) head += `${n}: ${v}\r\n`
  const body = Buffer.concat(r.body.map((c) => Buffer.from(c)))
  if (!r.chunked) return Buffer.concat([b(`${head}content-length: ${body.length}\r\n\r\n`), body])
  const parts = [b(`${head}transfer-encoding: chunked\r\n\r\n`)]
  for (const c of r.body) parts.push(b(`${c.length.toString(16)}\r\n`), Buffer.from(c), b('\r\n'))
  let trailer = '0\r\n'
  for (const [n, v] of r.trailers) trailer += `${n}: ${v}\r\n`
  parts.push(b(`${trailer}\r\n`))
  return Buffer.concat(parts)
}


function isParserError (err: unknown): boolean {
  const code = (err as { code?: string }).code
  return code === 'LIB_ERR_HTTP_PARSER' || code === 'LIB_ERR_HEADERS_OVERFLOW'
}

describe('ResponseParser properties', () => {
  it('parses a valid response split at random points the same as whole', () => {
    fc.assert(fc.property(fc.array(responseArb, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 8 }), (responses, points) => {
      const input = Buffer.concat(responses.map(encode))
      const whole = parse([input])
      const split = parse(splitAt(input, points))
      assert.equal(whole.length, responses.length)
      assert.deepEqual(split, whole)
      for (let i = 0; i < responses.length; i++) {
        assert.equal(whole[i]!.status, responses[i]!.status)
        assert.equal(whole[i]!.body, Buffer.concat(responses[i]!.body.map((c) => Buffer.from(c))).toString('latin1'))
      }
    }), { numRuns: 300 })
  })

  it('fails random bytes with a parser error or parses them, never another kind of throw', () => {
    const prefixes = ['', 'HTTP/1.1 200 OK\r\n', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', 'HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n']
    fc.assert(fc.property(fc.constantFrom(...prefixes), fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 4 }), (prefix, bytes, points) => {
      try {
        parse(splitAt(Buffer.concat([b(prefix), Buffer.from(bytes)]), points), { maxHeaderSize: 256 })
      } catch (err) {
        assert.ok(isParserError(err), `unexpected ${String(err)}`)
      }
    }), { numRuns: 500 })
  })

  it('fails mutated valid responses with a parser error or parses them, never another kind of throw', () => {
    fc.assert(fc.property(responseArb, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (response, mutations) => {
      const input = Buffer.from(encode(response))
      for (const [at, byte] of mutations) input[at % input.length] = byte
      try {
        parse([input])
      } catch (err) {
        assert.ok(isParserError(err), `unexpected ${String(err)}`)
      }
    }), { numRuns: 500 })
  })
})

/**
 * Parses `pieces` as reads into one reused buffer: each read is copied into the same scratch
 * memory, parsed with `reused`, and the memory is overwritten before the next read. Body chunks
 * are kept as the Buffers the sink received and read only at the end; with `pauses`, the sink
 * pauses the parser on those body chunks and resumes it after the scratch memory was overwritten.
 */
function parseReused (pieces: Buffer[], pauses: Set<number>): Message[] {
  const scratch = Buffer.alloc(Math.max(1, ...pieces.map((p) => p.length)))
  const messages: Array<Message & { chunks: Buffer[] }> = []
  let current: (Message & { chunks: Buffer[] }) | null = null
  let bodyCalls = 0
  const parser: ResponseParser = new ResponseParser({
    onHead (status, headers, text) {
      current = { status, text, headers, body: '', trailers: null, chunks: [] }
      messages.push(current)
      return HEAD_BODY
    },
    onBody (chunk) {
      current!.chunks.push(chunk)
      if (pauses.has(bodyCalls++)) parser.pause()
    },
    onEnd (trailers) { current!.trailers = trailers }
  })
  for (const piece of pieces) {
    piece.copy(scratch)
    parser.execute(scratch.subarray(0, piece.length), true)
    scratch.fill(0xaa)
    while (parser.paused) parser.resume()
  }
  return messages.map(({ chunks, ...m }) => ({ ...m, body: Buffer.concat(chunks).toString('latin1') }))
}

describe('ResponseParser on a reused input buffer', () => {
  it('keeps no view of the input: body chunks and kept bytes survive the reuse of its memory', () => {
    fc.assert(fc.property(fc.array(responseArb, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 8 }), fc.array(fc.nat({ max: 12 }), { maxLength: 4 }), (responses, points, pauseAt) => {
      const input = Buffer.concat(responses.map(encode))
      assert.deepEqual(parseReused(splitAt(input, points), new Set(pauseAt)), parse([input]))
    }), { numRuns: 300 })
  })

  it('keeps the bytes after an upgrade head as a copy of their own', () => {
    const parser = new ResponseParser({ onHead: () => HEAD_UPGRADE, onBody () {}, onEnd () {} })
    const read = b('HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\nframe')
    parser.execute(read, true)
    read.fill(0)
    assert.equal(parser.takeRest()!.toString('latin1'), 'frame')
  })
})
