import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { HpackDecoder } from '../../../../src/h2/hpack/decoder.js'
import { HpackEncoder } from '../../../../src/h2/hpack/encoder.js'

// RFC 7541 Appendix C, one line per header block: the fields, the block's octets and the dynamic
// table after it (newest first) with its size, as the appendix lists them.

interface Block {
  fields: string[]
  hex: string
  table: Array<[string, string]>
  size: number
}

interface Sequence {
  section: string
  huffman: boolean
  tableSize: number
  neverIndexed?: string[]
  blocks: Block[]
}

const AUTHORITY: [string, string] = [':authority', 'www.example.com']
const NO_CACHE: [string, string] = ['cache-control', 'no-cache']
const CUSTOM: [string, string] = ['custom-key', 'custom-value']
const REQUEST_1 = [':method', 'GET', ':scheme', 'http', ':path', '/', ':authority', 'www.example.com']
const REQUEST_2 = [...REQUEST_1, 'cache-control', 'no-cache']
const REQUEST_3 = [':method', 'GET', ':scheme', 'https', ':path', '/index.html', ':authority', 'www.example.com', 'custom-key', 'custom-value']
const REQUEST_TABLES: Array<Pick<Block, 'table' | 'size'>> = [
  { table: [AUTHORITY], size: 57 },
  { table: [NO_CACHE, AUTHORITY], size: 110 },
  { table: [CUSTOM, NO_CACHE, AUTHORITY], size: 164 }
]

const LOCATION: [string, string] = ['location', 'https://www.example.com']
const DATE_21: [string, string] = ['date', 'Mon, 21 Oct 2013 20:13:21 GMT']
const PRIVATE: [string, string] = ['cache-control', 'private']
const COOKIE: [string, string] = ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1']
const RESPONSE_1 = [':status', '302', ...PRIVATE, ...DATE_21, ...LOCATION]
const RESPONSE_2 = [':status', '307', ...PRIVATE, ...DATE_21, ...LOCATION]
const RESPONSE_3 = [':status', '200', ...PRIVATE, 'date', 'Mon, 21 Oct 2013 20:13:22 GMT', ...LOCATION, 'content-encoding', 'gzip', ...COOKIE]
const RESPONSE_TABLES: Array<Pick<Block, 'table' | 'size'>> = [
  { table: [LOCATION, DATE_21, PRIVATE, [':status', '302']], size: 222 },
  { table: [[':status', '307'], LOCATION, DATE_21, PRIVATE], size: 222 },
  { table: [COOKIE, ['content-encoding', 'gzip'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT']], size: 215 }
]

const requests = (hex: string[]): Block[] => [REQUEST_1, REQUEST_2, REQUEST_3].map((fields, i) => ({ fields, hex: hex[i]!, ...REQUEST_TABLES[i]! }))
const responses = (hex: string[]): Block[] => [RESPONSE_1, RESPONSE_2, RESPONSE_3].map((fields, i) => ({ fields, hex: hex[i]!, ...RESPONSE_TABLES[i]! }))

const SEQUENCES: Sequence[] = [
  { section: 'C.2.1 literal with indexing', huffman: false, tableSize: 4096, blocks: [{ fields: ['custom-key', 'custom-header'], hex: '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572', table: [['custom-key', 'custom-header']], size: 55 }] },
  { section: 'C.2.2 literal without indexing', huffman: false, tableSize: 4096, blocks: [{ fields: [':path', '/sample/path'], hex: '040c 2f73 616d 706c 652f 7061 7468', table: [], size: 0 }] },
  { section: 'C.2.3 literal never indexed', huffman: false, tableSize: 4096, neverIndexed: ['password'], blocks: [{ fields: ['password', 'secret'], hex: '1008 7061 7373 776f 7264 0673 6563 7265 74', table: [], size: 0 }] },
  { section: 'C.2.4 indexed field', huffman: false, tableSize: 4096, blocks: [{ fields: [':method', 'GET'], hex: '82', table: [], size: 0 }] },
  {
    section: 'C.3 requests without Huffman',
    huffman: false,
    tableSize: 4096,
    blocks: requests([
      '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '8286 84be 5808 6e6f 2d63 6163 6865',
      '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'
    ])
  },
  {
    section: 'C.4 requests with Huffman',
    huffman: true,
    tableSize: 4096,
    blocks: requests([
      '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
      '8286 84be 5886 a8eb 1064 9cbf',
      '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'
    ])
  },
  {
    section: 'C.5 responses without Huffman',
    huffman: false,
    tableSize: 256,
    blocks: responses([
      '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '4803 3330 37c1 c0bf',
      '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31'
    ])
  },
  {
    section: 'C.6 responses with Huffman',
    huffman: true,
    tableSize: 256,
    blocks: responses([
      '4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
      '4883 640e ffc1 c0bf',
      '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07'
    ])
  }
]

const octets = (hex: string): Buffer => Buffer.from(hex.replace(/ /g, ''), 'hex')

describe('HPACK, RFC 7541 Appendix C', () => {
  for (const sequence of SEQUENCES) {
    it(`${sequence.section}: the encoder writes each block byte for byte, with the appendix's tables`, () => {
      const encoder = new HpackEncoder({
        huffman: sequence.huffman,
        maxTableSize: sequence.tableSize,
        peerMaxTableSize: sequence.tableSize,
        notIndexed: sequence.section.startsWith('C.2') ? undefined : new Set(),
        neverIndexed: new Set(sequence.neverIndexed ?? [])
      })
      for (const block of sequence.blocks) {
        assert.equal(encoder.encode(block.fields).toString('hex'), octets(block.hex).toString('hex'))
        assert.deepEqual(encoder.tableEntries(), block.table)
        assert.equal(encoder.tableSize, block.size)
      }
    })

    it(`${sequence.section}: the decoder reads each block to its fields, with the appendix's tables`, () => {
      const decoder = new HpackDecoder({ maxHeaderListSize: 65536, maxTableSize: sequence.tableSize })
      for (const block of sequence.blocks) {
        assert.deepEqual(decoder.decode(octets(block.hex)), block.fields)
        assert.deepEqual(decoder.tableEntries(), block.table)
        assert.equal(decoder.tableSize, block.size)
      }
    })

    it(`${sequence.section}: the decoder gives the same fields when each block comes one octet a fragment`, () => {
      const decoder = new HpackDecoder({ maxHeaderListSize: 65536, maxTableSize: sequence.tableSize })
      for (const block of sequence.blocks) {
        const bytes = octets(block.hex)
        const fragments = [...bytes].map((octet) => Buffer.from([octet]))
        assert.deepEqual(decoder.decode(fragments), block.fields)
        assert.deepEqual(decoder.tableEntries(), block.table)
      }
    })
  }
})
