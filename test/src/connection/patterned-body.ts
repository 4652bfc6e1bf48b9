/** Bodies whose bytes say which response and which offset they belong to. */

/** The bytes of response `tag`: each depends on the tag and its offset. */
export function patterned (tag: number, length: number): Buffer {
  const body = Buffer.allocUnsafe(length)
  for (let i = 0; i < length; i++) body[i] = (tag * 31 + i * 7 + (i >> 8)) & 0xff
  return body
}

/** Sizes from a few bytes to 200 KiB, so heads, bodies and reads fall at every boundary. */
export function patternedSize (tag: number): number {
  return [0, 17, 1024, 16_383, 65_536, 200_000][tag % 6]! + tag
}
