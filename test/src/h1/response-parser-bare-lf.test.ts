import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { HEAD_BODY, ResponseParser } from '../../../src/h1/response-parser.js'
import { HTTPParserError } from '../../../src/errors.js'

const RESPONSES = [
  'HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-a: 1\r\n\r\nhello',
  'HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 0\r\n\r\n',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-sum: 5\r\n\r\n',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'
]

/** Offsets of every CRLF in `text` (all of them are framing in the responses above). */
function crlfOffsets (text: string): number[] {
  const offsets: number[] = []
  for (let i = text.indexOf('\r\n'); i !== -1; i = text.indexOf('\r\n', i + 1)) offsets.push(i)
  return offsets
}

/** Feeds `bytes` in the given pieces; returns the error thrown, or null when all was accepted. */
function feed (bytes: Buffer, cuts: number[]): Error | null {
  const parser = new ResponseParser({ onHead: () => HEAD_BODY, onBody: () => {}, onEnd: () => {} })
  let last = 0
  try {
    for (const cut of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
      parser.execute(bytes.subarray(last, cut))
      last = cut
    }
  } catch (err) {
    return err as Error
  }
  return null
}

describe('ResponseParser and bare LF line endings', () => {
  it('accepts every response of the corpus as written, however it is split', () => {
    fc.assert(fc.property(fc.constantFrom(...RESPONSES), fc.array(fc.nat(), { maxLength: 6 }), (response, cuts) => {
      assert.equal(feed(Buffer.from(response, 'latin1'), cuts), null)
    }), { seed: 9112, numRuns: 200 })
  })

  it('rejects a response with any one CRLF turned into a bare LF as soon as the bytes are in, however they are split (seeded fuzz)', () => {
    fc.assert(fc.property(fc.constantFrom(...RESPONSES), fc.nat(), fc.array(fc.nat(), { maxLength: 6 }), (response, which, cuts) => {
      const offsets = crlfOffsets(response)
      const at = offsets[which % offsets.length]!
      const broken = Buffer.from(response.slice(0, at) + response.slice(at + 1), 'latin1')
      const err = feed(broken, cuts)
      assert.ok(err instanceof HTTPParserError, `accepted ${JSON.stringify(broken.toString('latin1'))}`)
      assert.equal(err.code, 'LIB_ERR_HTTP_PARSER')
    }), { seed: 9112, numRuns: 400 })
  })

  it('rejects a bare LF dripped one byte at a time before the head is complete', () => {
    const err = feed(Buffer.from('HTTP/1.1 200 OK\r\nx-a: 1\nx-b: 2\r\n', 'latin1'), Array.from({ length: 40 }, (_, i) => i))
    assert.ok(err instanceof HTTPParserError)
    assert.equal(err.message, 'bare LF line ending in response head: "x-a: 1\\n"')
  })
})
