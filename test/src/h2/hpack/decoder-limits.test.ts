import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { LibraryError } from '../../../../src/errors.js'
import { HpackDecoder } from '../../../../src/h2/hpack/decoder.js'
import { HpackEncoder } from '../../../../src/h2/hpack/encoder.js'
import { HPACK_ERROR_CODE, HpackError } from '../../../../src/h2/hpack/hpack-error.js'
import type { HpackProblem } from '../../../../src/h2/hpack/hpack-error.js'

const SECRET = 'hunter2-secret-token'

function hpackError (problem: HpackProblem): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof HpackError, `expected an HpackError, got ${String(err)}`)
    assert.ok(err instanceof LibraryError)
    assert.equal(err.code, HPACK_ERROR_CODE)
    assert.equal(err.problem, problem, err.message)
    assert.ok(!err.message.includes(SECRET), 'the message must not echo a header value')
    return true
  }
}

const decoder = (maxHeaderListSize = 65536, maxTableSize?: number, maxStringLength?: number): HpackDecoder =>
  new HpackDecoder({ maxHeaderListSize, maxTableSize, maxStringLength })

/** A literal without indexing with a new name: 0x00, then name and value as raw strings (lengths < 127). */
function literal (name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name, 'latin1'), Buffer.from([value.length]), Buffer.from(value, 'latin1')])
}

describe('HPACK decoder limits', () => {
  it('stops with HEADER_LIST_TOO_LARGE part-way through a block, before its last fragment arrives', () => {
    const fields: string[] = []
    for (let i = 0; i < 40; i++) fields.push(`x-field-${i}`, SECRET)
    const block = new HpackEncoder({ huffman: false }).encode(fields)
    const d = decoder(600)
    const fragments = [block.subarray(0, 400), block.subarray(400, 800), block.subarray(800)]
    assert.ok(block.length > 900)
    let fed = 0
    assert.throws(() => { for (const fragment of fragments) { fed++; d.decodeFragment(fragment, fed === fragments.length) } }, hpackError('HEADER_LIST_TOO_LARGE'))
    assert.ok(fed < fragments.length, `decoding stopped at fragment ${fed} of ${fragments.length}`)
  })

  it('refuses a declared string length past the header list size before its octets arrive', () => {
    // A literal whose value says 16383 octets: the first 4 octets of it are enough to refuse it.
    const start = Buffer.from([0x00, 0x01, 0x61, 0x7f, 0x80, 0x7f])
    assert.throws(() => decoder(1000, undefined, 65536).decodeFragment(start, false), hpackError('HEADER_LIST_TOO_LARGE'))
    // The same for a Huffman value: even at the 30 bits a code can take, it decodes to too much.
    const huffman = Buffer.from([0x00, 0x01, 0x61, 0xff, 0x80, 0x7f])
    assert.throws(() => decoder(1000, undefined, 65536).decodeFragment(huffman, false), hpackError('HEADER_LIST_TOO_LARGE'))
  })

  it('counts each field as name + value + 32 (RFC 9113 section 6.5.2), the limit itself allowed', () => {
    const block = literal('a', 'bc')
    assert.deepEqual(decoder(35).decode(block), ['a', 'bc'])
    assert.throws(() => decoder(34).decode(block), hpackError('HEADER_LIST_TOO_LARGE'))
    // Indexed fields count too: `:method GET` is 7 + 3 + 32 = 42 octets.
    assert.deepEqual(decoder(84).decode(Buffer.from([0x82, 0x82])), [':method', 'GET', ':method', 'GET'])
    assert.throws(() => decoder(83).decode(Buffer.from([0x82, 0x82])), hpackError('HEADER_LIST_TOO_LARGE'))
  })

  it('refuses a string longer than maxStringLength, raw or Huffman', () => {
    assert.throws(() => decoder(65536, undefined, 8).decode(literal('a', '123456789')), hpackError('STRING_TOO_LONG'))
    const huffman = new HpackEncoder().encode(['x-a', '0000000000000000'])
    assert.throws(() => decoder(65536, undefined, 12).decode(huffman), hpackError('STRING_TOO_LONG'))
    assert.deepEqual(decoder(65536, undefined, 16).decode(huffman), ['x-a', '0000000000000000'])
  })

  it('refuses an integer with too many continuation octets or past 2^31 - 1 (section 5.1)', () => {
    const tenContinuations = Buffer.from([0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
    assert.throws(() => decoder().decode(tenContinuations), hpackError('INTEGER_OVERFLOW'))
    const huge = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x0f])
    assert.throws(() => decoder().decode(huge), hpackError('INTEGER_OVERFLOW'))
    // Split across fragments, the count of continuation octets carries over.
    const d = decoder()
    assert.equal(d.decodeFragment(tenContinuations.subarray(0, 3), false), null)
    assert.throws(() => d.decodeFragment(tenContinuations.subarray(3), true), hpackError('INTEGER_OVERFLOW'))
  })

  it('refuses index 0 and indexes past the tables (sections 2.3.3, 6.1)', () => {
    assert.throws(() => decoder().decode(Buffer.from([0x80])), hpackError('BAD_INDEX'))
    assert.throws(() => decoder().decode(Buffer.from([0xbe])), hpackError('BAD_INDEX'))
    assert.throws(() => decoder().decode(Buffer.from([0x7e, 0x01, 0x61])), hpackError('BAD_INDEX'))
    const d = decoder()
    d.decode(Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62]))
    assert.deepEqual(d.decode(Buffer.from([0xbe])), ['a', 'b'])
    assert.throws(() => d.decode(Buffer.from([0xbf])), hpackError('BAD_INDEX'))
  })

  it('refuses invalid Huffman: EOS in the string, padding past 7 bits, padding not of ones (section 5.2)', () => {
    // `a` is 00011: 0x1f pads it with ones and is valid.
    assert.deepEqual(decoder().decode(Buffer.from([0x00, 0x01, 0x61, 0x81, 0x1f])), ['a', 'a'])
    assert.throws(() => decoder().decode(Buffer.from([0x00, 0x01, 0x61, 0x84, 0xff, 0xff, 0xff, 0xff])), hpackError('BAD_HUFFMAN'))
    assert.throws(() => decoder().decode(Buffer.from([0x00, 0x01, 0x61, 0x82, 0x1f, 0xff])), hpackError('BAD_HUFFMAN'))
    assert.throws(() => decoder().decode(Buffer.from([0x00, 0x01, 0x61, 0x81, 0x18])), hpackError('BAD_HUFFMAN'))
  })

  it('refuses a block that ends inside a representation (a string past the block end)', () => {
    assert.throws(() => decoder().decode(Buffer.from([0x00, 0x01, 0x61, 0x0a, 0x62, 0x63])), hpackError('TRUNCATED'))
    assert.throws(() => decoder().decode([Buffer.from([0x00, 0x01]), Buffer.from([0x61])]), hpackError('TRUNCATED'))
    assert.throws(() => decoder().decode(Buffer.from([0xff])), hpackError('TRUNCATED'))
  })

  it('refuses a table size update past SETTINGS_HEADER_TABLE_SIZE or after the first field (section 4.2)', () => {
    assert.throws(() => decoder(65536, 4096).decode(Buffer.from([0x3f, 0xe2, 0x1f])), hpackError('TABLE_SIZE_UPDATE'))
    assert.throws(() => decoder().decode(Buffer.from([0x82, 0x20])), hpackError('TABLE_SIZE_UPDATE'))
    // Two updates at the start, the smaller first, are allowed.
    const d = decoder()
    assert.deepEqual(d.decode(Buffer.from([0x20, 0x3f, 0xe1, 0x1f, 0x82])), [':method', 'GET'])
  })

  it('requires a table size update at the next block after the limit was lowered below the table size', () => {
    const d = decoder()
    d.decode(Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62]))
    d.setMaxTableSize(100)
    assert.throws(() => d.decode(Buffer.from([0x82])), hpackError('TABLE_SIZE_UPDATE'))
    const fresh = decoder()
    fresh.setMaxTableSize(100)
    assert.throws(() => fresh.decode(Buffer.from([0x3f, 0x46])), hpackError('TABLE_SIZE_UPDATE'))
    const ok = decoder()
    ok.decode(Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62]))
    ok.setMaxTableSize(0)
    assert.deepEqual(ok.decode(Buffer.from([0x20, 0x82])), [':method', 'GET'])
    assert.equal(ok.tableSize, 0)
    assert.throws(() => ok.decode(Buffer.from([0xbe])), hpackError('BAD_INDEX'))
  })

  it('after a COMPRESSION_ERROR refuses every later block: its table no longer follows the peer', () => {
    const d = decoder()
    assert.throws(() => d.decode(Buffer.from([0x80])), (err: unknown) => err instanceof HpackError && err.h2Code === 0x9 && !err.streamOnly)
    assert.throws(() => d.decode(Buffer.from([0x82])), hpackError('DECODER_FAILED'))
  })

  it('reports a malformed field name or value (RFC 9113 section 8.2.1) after decoding the whole block, keeping the table', () => {
    const d = decoder()
    const bad = Buffer.concat([Buffer.from([0x40, 0x07]), Buffer.from('X-Upper'), Buffer.from([0x01, 0x31]), Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62])])
    assert.throws(() => d.decode(bad), (err: unknown) => hpackError('MALFORMED_FIELD')(err) && (err as HpackError).streamOnly && (err as HpackError).h2Code === 0x1)
    assert.deepEqual(d.tableEntries(), [['a', 'b'], ['X-Upper', '1']])
    assert.deepEqual(d.decode(Buffer.from([0xbe])), ['a', 'b'])
    assert.throws(() => d.decode(Buffer.from([0xbf])), hpackError('MALFORMED_FIELD'))
    for (const name of ['', 'a b', 'a:b', 'caf\u00e9', ':']) {
      assert.throws(() => decoder().decode(literal(name, 'v')), hpackError('MALFORMED_FIELD'), JSON.stringify(name))
    }
    for (const value of [`${SECRET}\r\nx: y`, `a\nb`, 'a\u0000b']) {
      assert.throws(() => decoder().decode(literal('x-v', value)), hpackError('MALFORMED_FIELD'))
    }
    assert.deepEqual(decoder().decode(literal(':status', '200')), [':status', '200'])
  })
})

describe('HPACK decoder table size', () => {
  it('starts its table at 4096 when it advertised more, and grows it on the peer\'s update only', () => {
    const d = new HpackDecoder({ maxHeaderListSize: 1 << 20, maxTableSize: 8192 })
    const value = 'v'.repeat(3000)
    d.decode(Buffer.concat([literalWithIndexing('x-a', value), literalWithIndexing('x-b', value)]))
    assert.deepEqual(d.tableEntries().map(([name]) => name), ['x-b'])
    d.decode(Buffer.concat([Buffer.from([0x3f, 0xe1, 0x3f]), literalWithIndexing('x-c', value)]))
    assert.deepEqual(d.tableEntries().map(([name]) => name), ['x-c', 'x-b'])
  })
})

/** A literal with incremental indexing and a new name, raw strings, the value's length in two octets. */
function literalWithIndexing (name: string, value: string): Buffer {
  const length = value.length - 127
  return Buffer.concat([Buffer.from([0x40, name.length]), Buffer.from(name), Buffer.from([0x7f, (length & 0x7f) | 0x80, length >> 7]), Buffer.from(value)])
}

describe('HPACK decoder past the header list limit', () => {
  /** Feeds `fragments`, noting the overflow notice and going on to the block's end, as a session does. */
  function feedPastOverflow (d: HpackDecoder, fragments: Buffer[]): { fields: string[] | null, thrownAt: number[] } {
    const thrownAt: number[] = []
    let fields: string[] | null = null
    fragments.forEach((fragment, i) => {
      try {
        fields = d.decodeFragment(fragment, i === fragments.length - 1)
      } catch (err) {
        assert.ok(hpackError('HEADER_LIST_TOO_LARGE')(err))
        assert.equal((err as HpackError).streamOnly, true)
        assert.equal((err as HpackError).h2Code, 0x8)
        thrownAt.push(i)
      }
    })
    return { fields, thrownAt }
  }

  it('reports the overflow once, part-way, then reads the rest of the block so the table stays in step with the encoder', () => {
    const encoder = new HpackEncoder({ huffman: false })
    const fields: string[] = []
    for (let i = 0; i < 40; i++) fields.push(`x-field-${i}`, SECRET)
    const block = encoder.encode(fields)
    const d = decoder(600)
    const { fields: decoded, thrownAt } = feedPastOverflow(d, [block.subarray(0, 400), block.subarray(400, 800), block.subarray(800)])
    assert.deepEqual(thrownAt, [0])
    assert.equal(decoded, null)
    assert.deepEqual(d.tableEntries(), encoder.tableEntries())
    const next = ['x-field-39', SECRET, 'x-field-0', SECRET]
    assert.deepEqual(d.decode(encoder.encode(next)), next)
  })

  it('decode() of a block in fragments reads it to its end before reporting the overflow, so the next block decodes', () => {
    const encoder = new HpackEncoder()
    const d = decoder(100)
    const block = encoder.encode(['x-one', 'a'.repeat(40), 'x-two', 'b'.repeat(40), 'x-three', 'c'])
    assert.throws(() => d.decode([block.subarray(0, 5), block.subarray(5, 60), block.subarray(60)]), hpackError('HEADER_LIST_TOO_LARGE'))
    assert.deepEqual(d.tableEntries(), encoder.tableEntries())
    assert.deepEqual(d.decode(encoder.encode(['x-three', 'c'])), ['x-three', 'c'])
  })

  it('reports an overflow in the last fragment at the block\'s end, and decodes the next block', () => {
    const encoder = new HpackEncoder()
    const d = decoder(100)
    const { thrownAt } = feedPastOverflow(d, [encoder.encode(['x-one', 'a'.repeat(40), 'x-two', 'b'.repeat(40)])])
    assert.deepEqual(thrownAt, [0])
    assert.deepEqual(d.tableEntries(), encoder.tableEntries())
    assert.deepEqual(d.decode(encoder.encode(['x-two', 'b'.repeat(40)])), ['x-two', 'b'.repeat(40)])
  })

  it('past the limit, empties the table for an indexed entry too large for it without reading its value', () => {
    const d = decoder(200, undefined, 1 << 20)
    const block = Buffer.concat([literalWithIndexing('x-a', 'a'.repeat(150)), literalWithIndexing('x-b', 'b'.repeat(5000))])
    const { thrownAt } = feedPastOverflow(d, [block.subarray(0, 10), block.subarray(10)])
    assert.deepEqual(thrownAt, [1])
    assert.deepEqual(d.tableEntries(), [])
    const small = Buffer.concat([literalWithIndexing('x-a', 'a'.repeat(150)), literalWithIndexing('x-c', 'c'.repeat(130)), Buffer.from([0xbf])])
    feedPastOverflow(d, [small])
    assert.deepEqual(d.tableEntries().map(([name]) => name), ['x-c', 'x-a'])
  })
})
