/**
 * The numbers of RFC 9113 a frame layer speaks in: frame types, flags, error codes, setting
 * identifiers and the protocol's fixed sizes. Error codes and their names live in `../error-codes.ts`.
 * @module
 */

/** Frame types (RFC 9113 section 6). */
export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9
} as const

/** Frame flags (RFC 9113 section 6); END_STREAM and ACK share a bit on different frame types. */
export const Flag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20
} as const

/** Error codes (RFC 9113 section 7), from their one table. */
export { ErrorCode } from '../error-codes.js'

/** Setting identifiers (RFC 9113 section 6.5.2; ENABLE_CONNECT_PROTOCOL from RFC 8441). */
export const SettingId = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
  ENABLE_CONNECT_PROTOCOL: 0x8
} as const

/** Bytes of a frame header (section 4.1). */
export const FRAME_HEAD_LENGTH = 9
/** The SETTINGS_MAX_FRAME_SIZE every endpoint starts with, and the least it may be (section 6.5.2). */
export const DEFAULT_MAX_FRAME_SIZE = 16_384
/** The largest SETTINGS_MAX_FRAME_SIZE allowed (section 6.5.2): 2^24 - 1. */
export const MAX_ALLOWED_FRAME_SIZE = 16_777_215
/** The window every stream and the connection start with (section 6.9.2). */
export const DEFAULT_WINDOW_SIZE = 65_535
/** The largest flow-control window (section 6.9.1): 2^31 - 1. */
export const MAX_WINDOW_SIZE = 2_147_483_647
/** The largest stream identifier (section 5.1.1): 2^31 - 1. */
export const MAX_STREAM_ID = 2_147_483_647
/** The client connection preface (section 3.4), sent before the client's first SETTINGS. */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1')
