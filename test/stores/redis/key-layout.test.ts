import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { keyLayout, urlKey, variantKey } from '../../../stores/redis/key-layout.js'

const layout = keyLayout('p:')

/** Reads a variant key back into its suffix and url tail, as the length prefix allows. */
function parseVariantKey (key: string): { suffix: string, tail: string } {
  const bytes = Buffer.from(key.slice(layout.variantPrefix.length))
  const colon = bytes.indexOf(':')
  const length = Number(bytes.subarray(0, colon).toString())
  return {
    suffix: bytes.subarray(colon + 1, colon + 1 + length).toString(),
    tail: bytes.subarray(colon + 1 + length).toString()
  }
}

describe('Redis key layout', () => {
  it('names each variant of each URL with a key that gives back exactly its suffix and URL', () => {
    fc.assert(fc.property(fc.string(), fc.string(), fc.string({ unit: 'grapheme' }), (origin, path, suffix) => {
      const key = variantKey(layout, origin, path, suffix)
      assert.ok(key.startsWith(layout.variantPrefix))
      assert.deepEqual(parseVariantKey(key), { suffix, tail: origin + path })
    }))
  })

  it('never gives two different variants the same key, whatever characters the method or path hold', () => {
    const pair = fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }))
    fc.assert(fc.property(pair, pair, ([tailA, suffixA], [tailB, suffixB]) => {
      fc.pre(tailA !== tailB || suffixA !== suffixB)
      assert.notEqual(variantKey(layout, tailA, '', suffixA), variantKey(layout, tailB, '', suffixB))
    }))
  })

  it('keeps url index keys, variant keys and tag keys under prefixes that do not overlap', () => {
    const { urlPrefix, variantPrefix, tagPrefix } = layout
    for (const [a, b] of [[urlPrefix, variantPrefix], [urlPrefix, tagPrefix], [variantPrefix, tagPrefix]] as const) {
      assert.ok(!a.startsWith(b) && !b.startsWith(a), `${a} / ${b}`)
    }
    assert.equal(urlKey(layout, 'http://a', '/x'), 'p:u:http://a/x')
  })
})
