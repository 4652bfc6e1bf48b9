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
