/**
 * The Huffman code of RFC 7541 Appendix B, as data. The code is canonical: within a length the
 * codes count up in symbol order, and each length starts where the previous one ended, shifted.
 * So the code lengths alone determine every code, and the table below lists, for each length,
 * the symbols (byte values, 256 = EOS) that have it.
 * @module
 */

/** [code length in bits, symbols with that length in ascending order], shortest first. */
const SYMBOLS_BY_LENGTH: ReadonlyArray<readonly [number, readonly number[]]> = [
  [5, [48, 49, 50, 97, 99, 101, 105, 111, 115, 116]],
  [6, [32, 37, 45, 46, 47, 51, 52, 53, 54, 55, 56, 57, 61, 65, 95, 98, 100, 102, 103, 104, 108, 109, 110, 112, 114, 117]],
  [7, [58, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 89, 106, 107, 113, 118, 119, 120, 121, 122]],
  [8, [38, 42, 44, 59, 88, 90]],
  [10, [33, 34, 40, 41, 63]],
  [11, [39, 43, 124]],
  [12, [35, 62]],
  [13, [0, 36, 64, 91, 93, 126]],
  [14, [94, 125]],
  [15, [60, 96, 123]],
  [19, [92, 195, 208]],
  [20, [128, 130, 131, 162, 184, 194, 224, 226]],
  [21, [153, 161, 167, 172, 176, 177, 179, 209, 216, 217, 227, 229, 230]],
  [22, [129, 132, 133, 134, 136, 146, 154, 156, 160, 163, 164, 169, 170, 173, 178, 181, 185, 186, 187, 189, 190, 196, 198, 228, 232, 233]],
  [23, [1, 135, 137, 138, 139, 140, 141, 143, 147, 149, 150, 151, 152, 155, 157, 158, 165, 166, 168, 174, 175, 180, 182, 183, 188, 191, 197, 231, 239]],
  [24, [9, 142, 144, 145, 148, 159, 171, 206, 215, 225, 236, 237]],
  [25, [199, 207, 234, 235]],
  [26, [192, 193, 200, 201, 202, 205, 210, 213, 218, 219, 238, 240, 242, 243, 255]],
  [27, [203, 204, 211, 212, 214, 221, 222, 223, 241, 244, 245, 246, 247, 248, 250, 251, 252, 253, 254]],
  [28, [2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 127, 220, 249]],
  [30, [10, 13, 22, 256]]
]

/** The end-of-string symbol: its code (30 ones) may never appear inside a string (section 5.2). */
export const EOS = 256

/** Code of each symbol 0..256, right-aligned (`HUFFMAN_LENGTHS` gives how many bits). */
export const HUFFMAN_CODES = new Uint32Array(257)

/** Length in bits of each symbol's code, 5 to 30. */
export const HUFFMAN_LENGTHS = new Uint8Array(257)

let next = 0
let previousLength = SYMBOLS_BY_LENGTH[0]![0]
for (const [length, symbols] of SYMBOLS_BY_LENGTH) {
  next *= 2 ** (length - previousLength)
  previousLength = length
  for (const symbol of symbols) {
    HUFFMAN_CODES[symbol] = next
    HUFFMAN_LENGTHS[symbol] = length
    next++
  }
}
