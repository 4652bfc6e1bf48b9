/** Reading the masked frames a WebSocket client writes, for tests of the frame writer. */

/** Reads a masked client frame back: fin, opcode and the unmasked payload. */
export function readClientFrame (frame: Buffer): { fin: boolean, rsv1: boolean, opcode: number, masked: boolean, payload: Buffer } {
  let length = frame[1]! & 0x7f
  let at = 2
  if (length === 126) { length = frame.readUInt16BE(2); at = 4 } else if (length === 127) { length = Number(frame.readBigUInt64BE(2)); at = 10 }
  const key = frame.subarray(at, at + 4)
  const payload = Buffer.from(frame.subarray(at + 4, at + 4 + length))
  for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ key[i & 3]!
  return { fin: (frame[0]! & 0x80) !== 0, rsv1: (frame[0]! & 0x40) !== 0, opcode: frame[0]! & 0x0f, masked: (frame[1]! & 0x80) !== 0, payload }
}
