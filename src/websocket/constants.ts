/**
 * Numbers of the WebSocket protocol (RFC 6455) and of the WebSocket API's states, shared by the
 * frame codec, the connection and the public classes.
 * @module
 */

/** Continuation frame of a fragmented message. */
export const OP_CONTINUATION = 0x0
/** Text message frame. */
export const OP_TEXT = 0x1
/** Binary message frame. */
export const OP_BINARY = 0x2
/** Close control frame. */
export const OP_CLOSE = 0x8
/** Ping control frame. */
export const OP_PING = 0x9
/** Pong control frame. */
export const OP_PONG = 0xa

/** Appended to `Sec-WebSocket-Key` before hashing it into `Sec-WebSocket-Accept` (RFC 6455 section 1.3). */
export const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** `readyState`: the handshake is under way. */
export const CONNECTING = 0
/** `readyState`: messages flow. */
export const OPEN = 1
/** `readyState`: the close handshake started. */
export const CLOSING = 2
/** `readyState`: the connection is gone. */
export const CLOSED = 3

/** Control frames carry at most this many payload bytes (RFC 6455 section 5.5). */
export const MAX_CONTROL_PAYLOAD = 125

/** Close codes with a meaning of their own (RFC 6455 section 7.4.1). */
export const CLOSE_NORMAL = 1000
/** The endpoint goes away. */
export const CLOSE_GOING_AWAY = 1001
/** The peer broke the protocol. */
export const CLOSE_PROTOCOL_ERROR = 1002
/** A message of a type the endpoint cannot take. */
export const CLOSE_UNSUPPORTED_DATA = 1003
/** Reported (never sent): the close frame had no code. */
export const CLOSE_NO_STATUS = 1005
/** Reported (never sent): the connection ended without a close frame. */
export const CLOSE_ABNORMAL = 1006
/** A text message was not UTF-8. */
export const CLOSE_INVALID_PAYLOAD = 1007
/** A message broke the endpoint's policy (too many fragments). */
export const CLOSE_POLICY_VIOLATION = 1008
/** A message larger than the limit. */
export const CLOSE_TOO_BIG = 1009
/** The endpoint hit an unexpected condition. */
export const CLOSE_INTERNAL_ERROR = 1011

/**
 * Default limit of one message, in bytes, counted after decompression: large enough for any
 * ordinary payload, small enough that a hostile peer cannot exhaust memory with one message.
 */
export const DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024

/**
 * Default limit of frames one message may arrive in (undici's default). Each fragment is kept
 * until the message ends, so without a count a stream of empty continuation frames grows memory
 * while `maxMessageSize`, which counts bytes, never trips.
 */
export const DEFAULT_MAX_FRAGMENTS = 131_072

/** Default wait for the server's side of the close handshake before the socket is dropped. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000

/**
 * True for a code a peer may put in a close frame (RFC 6455 section 7.4): the registered codes
 * an endpoint sends (1005, 1006 and 1015 are reserved for reporting) and the 3000-4999 ranges.
 */
export function isValidReceivedCloseCode (code: number): boolean {
  if (code >= 3000 && code <= 4999) return true
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014)
}
