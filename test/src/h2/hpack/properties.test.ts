import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { HpackDecoder } from '../../../../src/h2/hpack/decoder.js'
import { HpackEncoder } from '../../../../src/h2/hpack/encoder.js'
import { HpackError } from '../../../../src/h2/hpack/hpack-error.js'
import { huffmanDecode, huffmanEncode, huffmanLength, huffmanMaxDecodedLength } from '../../../../src/h2/hpack/huffman.js'
import { STATIC_TABLE } from '../../../../src/h2/hpack/static-table.js'
import { fieldList, splitAt } from './field-arbitraries.js'

const latin1Bytes = fc.uint8Array({ maxLength: 300 })

describe('HPACK properties', () => {
  it('Huffman-decodes what it encoded, for any octets, in the length it announced', () => {
    fc.assert(fc.property(latin1Bytes, (bytes) => {
      const text = Buffer.from(bytes).toString('latin1')
      const length = huffmanLength(text)
      const out = Buffer.alloc(length + 1)
      assert.equal(huffmanEncode(text, out, 1), length + 1)
      const scratch = Buffer.alloc(huffmanMaxDecodedLength(length))
      const decoded = huffmanDecode(out, 1, length + 1, scratch)
      assert.deepEqual(scratch.subarray(0, decoded), Buffer.from(bytes))
    }), { seed: 7541, numRuns: 500 })
  })

  it('round-trips random header lists through encoder and decoder, fragment split and table size changes included', () => {
    const step = fc.record({
      fields: fieldList,
      cuts: fc.array(fc.nat(), { maxLength: 4 }),
      sizes: fc.array(fc.constantFrom(0, 64, 256, 1024, 4096, 8192), { maxLength: 2 }),
      huffman: fc.boolean()
    })
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), fc.constantFrom(256, 4096), (steps, ownLimit) => {
      const encoders = [new HpackEncoder({ maxTableSize: ownLimit, huffman: true }), new HpackEncoder({ maxTableSize: ownLimit, huffman: false })]
      const decoders = [new HpackDecoder({ maxHeaderListSize: 1 << 20 }), new HpackDecoder({ maxHeaderListSize: 1 << 20 })]
      for (const { fields, cuts, sizes, huffman } of steps) {
        const which = huffman ? 0 : 1
        for (const size of sizes) {
          // The client's SETTINGS reaches the peer's encoder, and its ACK makes the decoder apply it.
          encoders[which]!.setPeerMaxTableSize(size)
          decoders[which]!.setMaxTableSize(size)
        }
        const block = encoders[which]!.encode(fields)
        assert.deepEqual(decoders[which]!.decode(splitAt(block, cuts)), fields)
        assert.deepEqual(decoders[which]!.tableEntries(), encoders[which]!.tableEntries())
        assert.equal(decoders[which]!.tableSize, encoders[which]!.tableSize)
      }
    }), { seed: 9113, numRuns: 300 })
  })

  it('keeps the tables in step when lists outgrow the decoder\'s limit and their blocks are read past the overflow', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fieldList, fc.array(fc.nat(), { maxLength: 4 })), { minLength: 1, maxLength: 8 }), fc.integer({ min: 40, max: 800 }), (blocks, limit) => {
      const encoder = new HpackEncoder()
      const decoder = new HpackDecoder({ maxHeaderListSize: limit, maxStringLength: 1 << 20 })
      for (const [fields, cuts] of blocks) {
        const fragments = splitAt(encoder.encode(fields), cuts)
        let decoded: string[] | null = null
        let overflows = 0
        fragments.forEach((fragment, i) => {
          try {
            decoded = decoder.decodeFragment(fragment, i === fragments.length - 1)
          } catch (err) {
            if (!(err instanceof HpackError) || err.problem !== 'HEADER_LIST_TOO_LARGE') throw err
            overflows++
          }
        })
        let size = 0
        for (let i = 0; i < fields.length; i += 2) size += fields[i]!.length + fields[i + 1]!.length + 32
        if (size > limit) assert.equal(overflows, 1)
        else assert.deepEqual(decoded, fields)
        assert.deepEqual(decoder.tableEntries(), encoder.tableEntries())
      }
    }), { seed: 6552, numRuns: 300 })
  })

  it('decodes random octets only to a list or an HpackError, never another error, and never hangs', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 3 }), (bytes, cuts) => {
      const decoder = new HpackDecoder({ maxHeaderListSize: 4096, maxTableSize: 256 })
      try {
        const fields = decoder.decode(splitAt(Buffer.from(bytes), cuts))
        assert.equal(fields.length % 2, 0)
      } catch (err) {
        if (!(err instanceof HpackError)) throw err
      }
    }), { seed: 44, numRuns: 2000 })
  })

  it('decodes random octets after valid blocks filled the table, only to a list or an HpackError', () => {
    const prefix = new HpackEncoder().encode(STATIC_TABLE.flatMap(([name]) => [name, 'v']).slice(0, 40))
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
      const decoder = new HpackDecoder({ maxHeaderListSize: 4096 })
      decoder.decode(prefix)
      try { decoder.decode(Buffer.from(bytes)) } catch (err) { if (!(err instanceof HpackError)) throw err }
    }), { seed: 45, numRuns: 1000 })
  })
})
