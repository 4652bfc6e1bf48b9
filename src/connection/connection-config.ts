/**
 * What a connection of any wire protocol reads from its Client's options, once validated, and
 * the transport defaults the connection layer owns.
 * @module
 */

/** Default limit for a response head (status line + headers) and for a trailer section, in bytes. */
export const DEFAULT_MAX_HEADER_SIZE = 16 * 1024

/** The validated options a connection and its requests read (the Client adds how it connects). */
export interface ConnectionConfig {
  /** Requests in flight at once on one HTTP/1.1 connection. */
  pipelining: number
  keepAliveTimeout: number
  keepAliveMaxTimeout: number
  keepAliveTimeoutThreshold: number
  /** Default for requests that set none. */
  headersTimeout: number
  /** Default for requests that set none. */
  bodyTimeout: number
  maxHeaderSize: number
  maxInformationalResponses: number
  /** Bytes, or -1 for no limit. */
  maxResponseSize: number
  /** Requests one connection serves before it is closed; 0 for no limit. */
  maxRequestsPerClient: number
  /** Whether a body whose size differs from its content-length header is an error. */
  strictContentLength: boolean
  maxConcurrentStreams: number
  initialWindowSize: number
  connectionWindowSize: number
  pingInterval: number
}

/**
 * The context a Client passes to `onRequestStart` when `maxResponseSize` is set (otherwise it
 * passes none), so layers that grow the body, such as a content decoder above it, apply the same limit.
 */
export interface ResponseSizeContext {
  /** The Client's `maxResponseSize`, in bytes. */
  readonly maxResponseSize: number
}

/** The `maxResponseSize` a handler's `onRequestStart` context carries, or -1 when it carries none. */
export function maxResponseSizeOf (context: unknown): number {
  const value = (context as Partial<ResponseSizeContext> | null | undefined)?.maxResponseSize
  return typeof value === 'number' && value >= 0 ? value : -1
}
