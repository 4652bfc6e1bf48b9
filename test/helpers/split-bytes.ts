/** Splits bytes at cut points, for tests that feed a parser the same bytes in every chunking. */

/** `bytes` cut at `points` (each taken modulo the length + 1, duplicates ignored). */
export function splitAt (bytes: Buffer, points: number[]): Buffer[] {
  const cuts = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((x, y) => x - y)
  const pieces: Buffer[] = []
  let last = 0
  for (const cut of cuts) {
    pieces.push(bytes.subarray(last, cut))
    last = cut
  }
  pieces.push(bytes.subarray(last))
  return pieces
}
