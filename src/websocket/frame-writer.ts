/**
 * Builds client frames (RFC 6455 section 5.2). Every client frame is masked with a fresh random
 * key (section 5.3); keys come from a pool refilled by the runtime's CSPRNG a few hundred
 * frames at a time, so a small message does not pay for a random-number call of its own.
 * The header and the masked payload share one buffer: the payload is copied once, while masking;
 * large frames are built in a reused buffer (see `spare-frame-buffer.ts`).
 * @module
 */

import { randomFillSync } from 'node:crypto'
import { takeFrameBuffer } from './spare-frame-buffer.js'

const KEY_POOL_SIZE = 8 * 1024
const keyPool = Buffer.allocUnsafe(KEY_POOL_SIZE)
let keyOffset = KEY_POOL_SIZE

/** Offset of four fresh random bytes in `keyPool`. */
function nextKey (): number {
  if (keyOffset === KEY_POOL_SIZE) {
    randomFillSync(keyPool)
    keyOffset = 0
  }
  const offset = keyOffset
  keyOffset += 4
  return offset
}

function headerSize (length: number): number {
  return length < 126 ? 6 : length < 0x10000 ? 8 : 14
}

/** Writes the header (mask key included) at the start of `out`; returns where the payload goes. */
function writeHeader (out: Buffer, opcode: number, fin: boolean, rsv1: boolean, length: number): number {
  out[0] = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode
  let at: number
  if (length < 126) {
    out[1] = 0x80 | length
    at = 2
  } else if (length < 0x10000) {
    out[1] = 0x80 | 126
    out.writeUInt16BE(length, 2)
    at = 4
  } else {
    out[1] = 0x80 | 127
    out.writeUInt32BE(Math.floor(length / 0x100000000), 2)
    out.writeUInt32BE(length >>> 0, 6)
    at = 10
  }
  // Four single-byte stores: cheaper than a native copy call for four bytes.
  const key = nextKey()
  out[at] = keyPool[key]!
  out[at + 1] = keyPool[key + 1]!
  out[at + 2] = keyPool[key + 2]!
  out[at + 3] = keyPool[key + 3]!
  return at + 4
}

/** Payloads shorter than this are masked byte by byte: a word view would cost more than it saves. */
const WORD_MASK_THRESHOLD = 64
/** The frame's four key bytes, and the same key rotated to the phase of the word-aligned bulk. */
const keyBytes = new Uint8Array(4)
const rotatedBytes = new Uint8Array(4)
const rotatedWord = new Int32Array(rotatedBytes.buffer)

/**
 * XORs every word of `view` (a multiple of four words long) with `key`, four words a step. Not
 * `maskCopyWords(view, view, key)`: with one array on both sides, Node 24 ran 64 KiB text frames
 * 3–7% slower in paired runs.
 */
function maskWords (view: Int32Array, key: number): void {
  for (let w = 0; w < view.length; w += 4) {
    view[w] = view[w]! ^ key
    view[w + 1] = view[w + 1]! ^ key
    view[w + 2] = view[w + 2]! ^ key
    view[w + 3] = view[w + 3]! ^ key
  }
}

/** A small payload, `out[start..end)`, with the key in locals, four bytes a step. */
function maskSmall (out: Buffer, start: number, end: number): void {
  const k0 = out[start - 4]!
  const k1 = out[start - 3]!
  const k2 = out[start - 2]!
  const k3 = out[start - 1]!
  let i = start
  for (; i + 3 < end; i += 4) {
    out[i] = out[i]! ^ k0
    out[i + 1] = out[i + 1]! ^ k1
    out[i + 2] = out[i + 2]! ^ k2
    out[i + 3] = out[i + 3]! ^ k3
  }
  if (i < end) out[i] = out[i]! ^ k0
  if (i + 1 < end) out[i + 1] = out[i + 1]! ^ k1
  if (i + 2 < end) out[i + 2] = out[i + 2]! ^ k2
}

/** Loads the frame's key (the four bytes before `start`) into `keyBytes`. */
function loadKey (out: Buffer, start: number): void {
  keyBytes[0] = out[start - 4]!
  keyBytes[1] = out[start - 3]!
  keyBytes[2] = out[start - 2]!
  keyBytes[3] = out[start - 1]!
}

/** Sets `rotatedWord` to the key as it falls on words that start `head` bytes into the payload. */
function rotateKey (head: number): void {
  for (let b = 0; b < 4; b++) rotatedBytes[b] = keyBytes[(head + b) & 3]!
}

/** XORs `out[start..]` in place with the four-byte key stored just before `start`. */
function maskInPlace (out: Buffer, start: number): void {
  const end = out.length
  if (end - start < WORD_MASK_THRESHOLD) {
    maskSmall(out, start, end)
    return
  }
  loadKey(out, start)
  // Bytes up to the first 4-aligned address, then 16-byte blocks through a word view, then the rest.
  const head = (4 - ((out.byteOffset + start) & 3)) & 3
  // Head and tail are copies onto themselves; the bulk has a loop of its own (below).
  maskCopyBytes(out, start, start + head, out, start, 0)
  const blocks = (end - start - head) >>> 4
  rotateKey(head)
  maskWords(new Int32Array(out.buffer, out.byteOffset + start + head, blocks * 4), rotatedWord[0]!)
  const tail = start + head + blocks * 16
  maskCopyBytes(out, tail, end, out, tail, tail - start)
}

/**
 * Writes `src[from..to)` masked into `out` from `at`, the first byte at key position `phase`: the
 * head and tail of a large payload. Head, tail, bulk and small payloads each have a function of
 * their own, run for every frame of their kind, so a part one workload never reaches cannot keep
 * V8 deoptimizing the masking of the others.
 */
function maskCopyBytes (src: Uint8Array, from: number, to: number, out: Buffer, at: number, phase: number): void {
  for (let i = from; i < to; i++, phase++, at++) out[at] = src[i]! ^ keyBytes[phase & 3]!
}

/** Writes every word of `src` XORed with `key` into `dst` (both a multiple of four words long). */
function maskCopyWords (src: Int32Array, dst: Int32Array, key: number): void {
  for (let w = 0; w < src.length; w += 4) {
    dst[w] = src[w]! ^ key
    dst[w + 1] = src[w + 1]! ^ key
    dst[w + 2] = src[w + 2]! ^ key
    dst[w + 3] = src[w + 3]! ^ key
  }
}

/**
 * Writes `src` masked into `out` from `start` (the key is the four bytes before it) in one pass.
 * Whole words are read and written when the two sides share their alignment within a word, as
 * `encodeFrame` arranges; otherwise the payload is copied, then masked in place.
 */
function maskCopy (src: Uint8Array, out: Buffer, start: number): void {
  const srcAt = src.byteOffset
  const outAt = out.byteOffset + start
  if (((srcAt ^ outAt) & 3) !== 0) {
    out.set(src, start)
    maskInPlace(out, start)
    return
  }
  loadKey(out, start)
  const length = src.length
  const head = (4 - (srcAt & 3)) & 3
  maskCopyBytes(src, 0, head, out, start, 0)
  const blocks = (length - head) >>> 4
  rotateKey(head)
  maskCopyWords(new Int32Array(src.buffer, srcAt + head, blocks * 4), new Int32Array(out.buffer, outAt + head, blocks * 4), rotatedWord[0]!)
  const tail = head + blocks * 16
  maskCopyBytes(src, tail, length, out, start + tail, tail)
}

/** One masked frame carrying `payload`. */
export function encodeFrame (opcode: number, payload: Uint8Array, fin = true, rsv1 = false): Buffer {
  const length = payload.length
  const header = headerSize(length)
  if (length < WORD_MASK_THRESHOLD) {
    const out = Buffer.allocUnsafe(header + length)
    const start = writeHeader(out, opcode, fin, rsv1, length)
    out.set(payload, start)
    maskSmall(out, start, start + length)
    return out
  }
  // New buffers start on a word boundary: shifting the frame by up to three bytes gives its
  // payload the source's place within a word, so masking copies whole words.
  const shift = ((payload.byteOffset & 3) - (header & 3)) & 3
  const memory = takeFrameBuffer(shift + header + length)
  const out = shift === 0 ? memory : memory.subarray(shift)
  const start = writeHeader(out, opcode, fin, rsv1, length)
  maskCopy(payload, out, start)
  return out
}

/** One masked frame carrying `text` as UTF-8, encoded straight into the frame. */
export function encodeTextFrame (opcode: number, text: string): Buffer {
  const length = Buffer.byteLength(text)
  const out = takeFrameBuffer(headerSize(length) + length)
  const start = writeHeader(out, opcode, true, false, length)
  out.write(text, start)
  maskInPlace(out, start)
  return out
}

/** Bytes of payload in a frame built here: its length less the header (mask key included). */
export function framedPayloadLength (frame: Buffer): number {
  const short = frame[1]! & 0x7f
  return frame.length - (short < 126 ? 6 : short === 126 ? 8 : 14)
}

/** A close frame: no body when `code` is undefined, else the code and the UTF-8 reason. */
export function encodeCloseFrame (code: number | undefined, reason: string): Buffer {
  if (code === undefined) return encodeFrame(0x8, Buffer.alloc(0))
  const body = Buffer.allocUnsafe(2 + Buffer.byteLength(reason))
  body.writeUInt16BE(code, 0)
  body.write(reason, 2)
  return encodeFrame(0x8, body)
}
