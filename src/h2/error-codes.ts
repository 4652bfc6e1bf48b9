/**
 * HTTP/2 error codes (RFC 9113 section 7): their numbers and names, the one table the frame
 * layer, the HPACK codec and the client's messages all read.
 * @module
 */

/** Error codes (RFC 9113 section 7). */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
  HTTP_1_1_REQUIRED: 0xd
} as const

/** The names of {@link ErrorCode}, indexed by code. */
const NAMES: readonly string[] = Object.entries(ErrorCode).reduce<string[]>((names, [name, code]) => {
  names[code] = name
  return names
}, [])

/** The error code's name (`REFUSED_STREAM`), or its number in hex for a code the RFC does not define. */
export function rstCodeName (code: number): string {
  return NAMES[code] ?? `0x${code.toString(16)}`
}

/** Why the server's RST_STREAM with `code` ended a stream before its response did, as an error message says it. */
export function describeStreamReset (code: number): string {
  if (code === ErrorCode.NO_ERROR) return 'HTTP/2 stream closed before the response ended'
  return `HTTP/2 stream reset by the server (RST_STREAM ${rstCodeName(code)})`
}
