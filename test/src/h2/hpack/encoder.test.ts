import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { InvalidArgumentError } from '../../../../src/errors.js'
import { HpackDecoder } from '../../../../src/h2/hpack/decoder.js'
import { DynamicTable } from '../../../../src/h2/hpack/dynamic-table.js'
import { HpackEncoder } from '../../../../src/h2/hpack/encoder.js'

const REQUEST = [
  ':method', 'GET', ':scheme', 'https', ':authority', 'api.example.com',
  'user-agent', 'conduit/1.0', 'accept', 'application/json', 'accept-encoding', 'gzip, br', 'x-request-source', 'batch'
]

describe('HPACK encoder', () => {
  it('makes each repeated field of a hot path one octet from the second block on', () => {
    const encoder = new HpackEncoder()
    const first = encoder.encode(REQUEST)
    const second = encoder.encode(REQUEST)
    assert.ok(first.length > REQUEST.length)
    assert.equal(second.length, REQUEST.length / 2)
    const decoder = new HpackDecoder({ maxHeaderListSize: 65536 })
    assert.deepEqual(decoder.decode(first), REQUEST)
    assert.deepEqual(decoder.decode(second), REQUEST)
  })

  it('does not index fields whose values change per message, but does reuse their names', () => {
    const encoder = new HpackEncoder()
    encoder.encode([':path', '/items/1', 'content-length', '12'])
    assert.deepEqual(encoder.tableEntries(), [])
    const block = encoder.encode([':path', '/items/2'])
    assert.equal(block[0], 0x04)
  })

  it('sends authorization, proxy-authorization and cookie as never-indexed literals (section 6.2.3), indexing none of them', () => {
    const encoder = new HpackEncoder({ huffman: false })
    const decoder = new HpackDecoder({ maxHeaderListSize: 65536 })
    for (const [name, index] of [['authorization', 23], ['proxy-authorization', 49], ['cookie', 32]] as const) {
      for (let round = 0; round < 2; round++) {
        const block = encoder.encode([name, 'Bearer abc'])
        assert.equal(block[0], 0x1f, name)
        assert.equal(block[1], index - 15, name)
        assert.deepEqual(decoder.decode(block), [name, 'Bearer abc'])
      }
    }
    assert.deepEqual(encoder.tableEntries(), [])
    assert.deepEqual(decoder.tableEntries(), [])
  })

  it('announces a lowered SETTINGS_HEADER_TABLE_SIZE at the next block start, the smaller of two changes first (section 4.2)', () => {
    const encoder = new HpackEncoder()
    const decoder = new HpackDecoder({ maxHeaderListSize: 65536 })
    decoder.decode(encoder.encode(REQUEST))
    encoder.setPeerMaxTableSize(0)
    encoder.setPeerMaxTableSize(4096)
    decoder.setMaxTableSize(0)
    decoder.setMaxTableSize(4096)
    const block = encoder.encode([':method', 'GET'])
    assert.deepEqual([...block], [0x20, 0x3f, 0xe1, 0x1f, 0x82])
    assert.deepEqual(decoder.decode(block), [':method', 'GET'])
    assert.equal(decoder.tableSize, 0)
    assert.equal(encoder.tableSize, 0)
    // Nothing to announce after that, and a peer allowing more than the own limit changes nothing.
    encoder.setPeerMaxTableSize(65536)
    assert.deepEqual([...encoder.encode([':method', 'GET'])], [0x82])
  })

  it('announces an own table limit smaller than the peer\'s at the first block', () => {
    const encoder = new HpackEncoder({ maxTableSize: 100 })
    const block = encoder.encode([':method', 'GET'])
    assert.deepEqual([...block], [0x3f, 0x45, 0x82])
  })

  it('does not insert an entry larger than the table, and the decoder agrees', () => {
    const encoder = new HpackEncoder({ maxTableSize: 64 })
    const decoder = new HpackDecoder({ maxHeaderListSize: 65536, maxTableSize: 64 })
    const fields = ['x-small', 'v', 'x-large', 'v'.repeat(40)]
    assert.deepEqual(decoder.decode(encoder.encode(fields)), fields)
    assert.deepEqual(encoder.tableEntries(), [['x-small', 'v']])
    assert.deepEqual(decoder.tableEntries(), encoder.tableEntries())
  })

  it('writes into a caller\'s buffer at an offset, and refuses one without room before changing its table', () => {
    const encoder = new HpackEncoder()
    const out = Buffer.alloc(HpackEncoder.maxEncodedLength(REQUEST) + 9)
    const end = encoder.encodeInto(REQUEST, out, 9)
    assert.deepEqual(new HpackDecoder({ maxHeaderListSize: 65536 }).decode(out.subarray(9, end)), REQUEST)
    assert.throws(() => encoder.encodeInto(['x-new', 'value'], Buffer.alloc(4), 0), InvalidArgumentError)
    assert.ok(!encoder.tableEntries().some(([name]) => name === 'x-new'))
  })

  it('refuses a list without a value for each name, and a character past 0xff naming the field, not the value', () => {
    const encoder = new HpackEncoder()
    assert.throws(() => encoder.encode(['x-a']), InvalidArgumentError)
    assert.throws(() => encoder.encode(['x-a', 'secret\u20ac']), (err: unknown) => err instanceof InvalidArgumentError && err.message.includes('x-a') && !err.message.includes('secret'))
  })
})

describe('HPACK dynamic table', () => {
  it('evicts from the oldest end until the new entry fits, and empties itself for an entry larger than it (section 4.4)', () => {
    const evicted: string[] = []
    const table = new DynamicTable(100, (name) => evicted.push(name))
    table.add('a', '1'.repeat(10)) // 43
    table.add('b', '2'.repeat(10)) // 43
    assert.equal(table.size, 86)
    table.add('c', '') // 33: evicts a
    assert.deepEqual(evicted, ['a'])
    assert.deepEqual(table.entries(), [['c', ''], ['b', '2222222222']])
    assert.equal(table.size, 76)
    assert.equal(table.add('d', 'x'.repeat(68)), false) // 101 > 100
    assert.deepEqual(table.entries(), [])
    assert.equal(table.size, 0)
    assert.equal(table.add('e', 'x'.repeat(67)), true) // exactly 100
    table.resize(99)
    assert.equal(table.length, 0)
  })

  it('keeps its entries in order across many insertions (ring growth and wrap)', () => {
    const table = new DynamicTable(33 * 50)
    for (let i = 0; i < 500; i++) table.add(String(i % 10), '')
    assert.equal(table.length, 50)
    assert.equal(table.nameAt(0), '9')
    assert.equal(table.nameAt(49), '0')
  })
})
