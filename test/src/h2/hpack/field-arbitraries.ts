// Random header lists for the HPACK property tests: names from the static table (so indexes and
// name references are hit) or random valid HTTP/2 names, values of any octet a field may hold,
// often repeated so the dynamic table is used.
import fc from 'fast-check'
import { STATIC_TABLE } from '../../../../src/h2/hpack/static-table.js'

const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-_.!#$%&\'*+^`|~'.split('')

/** A valid lowercase HTTP/2 field name (RFC 9113 section 8.2.1). */
export const fieldName = fc.oneof(
  fc.constantFrom(...STATIC_TABLE.map(([name]) => name).filter((name) => !name.startsWith(':'))),
  fc.constantFrom('x-trace', 'x-request-id', 'accept'),
  fc.array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 20 }).map((chars) => chars.join(''))
)

/** A field value: any octet but NUL, CR and LF, as latin1. */
export const fieldValue = fc.oneof(
  fc.constantFrom('', 'gzip, deflate', 'text/html', '*/*', '0'),
  fc.array(fc.integer({ min: 1, max: 255 }).filter((c) => c !== 0x0a && c !== 0x0d), { maxLength: 60 }).map((codes) => String.fromCharCode(...codes)),
  fc.string({ maxLength: 40 }).map((text) => text.replace(/[\0\r\n\u0080-\uffff]/g, 'x'))
)

/** A flat [name, value...] list of up to `maxLength` fields from `name` and `value`, some of them repeated. */
export function repeatingList (name: fc.Arbitrary<string>, value: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string[]> {
  return fc.array(fc.tuple(name, value), { maxLength })
    .chain((pairs) => fc.array(fc.nat(Math.max(pairs.length - 1, 0)), { maxLength: pairs.length === 0 ? 0 : 6 })
      .map((repeats) => [...pairs, ...repeats.map((i) => pairs[i]!)].flat()))
}

/** A flat [name, value...] list, with its fields often repeated. */
export const fieldList = repeatingList(fieldName, fieldValue, 20)

/** `block` cut at the given points (taken modulo its length) into fragments. */
export function splitAt (block: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => block.length === 0 ? 0 : cut % block.length))].sort((a, b) => a - b)
  const fragments: Buffer[] = []
  let from = 0
  for (const point of points) { fragments.push(block.subarray(from, point)); from = point }
  fragments.push(block.subarray(from))
  return fragments
}
