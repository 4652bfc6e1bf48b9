/**
 * Frames written byte by byte for the frame-layer tests, independent of the writer under test.
 */

/** One frame's bytes: a 9-byte head and `payload`. */
export function rawFrame (type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9)
  head.writeUIntBE(payload.length, 0, 3)
  head[3] = type
  head[4] = flags
  head.writeUInt32BE(streamId, 5)
  return Buffer.concat([head, payload])
}

/** A 32-bit big-endian integer's bytes. */
export function u32 (value: number): Buffer {
  const out = Buffer.alloc(4)
  out.writeUInt32BE(value >>> 0)
  return out
}

/** A SETTINGS payload of (identifier, value) pairs. */
export function settingsPayload (settings: Array<[number, number]>): Buffer {
  const out = Buffer.alloc(settings.length * 6)
  settings.forEach(([id, value], i) => {
    out.writeUInt16BE(id, i * 6)
    out.writeUInt32BE(value, i * 6 + 2)
  })
  return out
}

/** `data` padded with `padLength` zero bytes behind a Pad Length field (RFC 9113 section 6.1). */
export function padded (data: Buffer, padLength: number): Buffer {
  return Buffer.concat([Buffer.from([padLength]), data, Buffer.alloc(padLength)])
}
