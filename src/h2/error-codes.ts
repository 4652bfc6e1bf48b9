/**
 * Names of HTTP/2 error codes (RFC 9113 section 7), for messages that say why a stream or a
 * session ended.
 * @module
 */

/** RFC 9113 section 7, in code order. */
const NAMES = [
  'NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT',
  'STREAM_CLOSED', 'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR',
  'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'
] as const

/** The error code's name (`REFUSED_STREAM`), or its number in hex for a code the RFC does not define. */
export function rstCodeName (code: number): string {
  return NAMES[code] ?? `0x${code.toString(16)}`
}

/**
 * Codes node:http2 (nghttp2) also sends itself, on the client's behalf, when a response breaks
 * the protocol (an invalid header, a bad frame, a header block it cannot take): a stream closed
 * with one of these was not necessarily reset by the server, and node:http2 does not say which.
 */
const ALSO_LOCAL = new Set([1, 2, 3, 5, 6, 9, 11])

/** Why a stream closed with `code` before its response ended, as an error message says it. */
export function describeStreamReset (code: number): string {
  const name = rstCodeName(code)
  if (code === 0) return 'HTTP/2 stream closed before the response ended'
  if (!ALSO_LOCAL.has(code)) return `HTTP/2 stream reset by the server (RST_STREAM ${name})`
  return `HTTP/2 stream reset (RST_STREAM ${name}) by the server, or by the client's HTTP/2 layer because the response broke the protocol (an invalid or oversized header, a bad frame)`
}
