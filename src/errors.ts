/**
 * Every error conduit raises on purpose is a {@link LibraryError} with a stable `code`.
 * Class names follow undici's, so code that checks `err.name` or `err.code` moves over unchanged.
 * @module
 */

import type { IncomingHeaders } from './contracts/dispatch-contract.js'

/** Prefix of undici's error codes, which name the same errors as conduit's `LIB_` codes. */
const UNDICI_CODE_PREFIX = 'UND_'

/** Reads an undici error code (`UND_ERR_SOCKET`) as conduit's (`LIB_ERR_SOCKET`); other codes are returned unchanged. */
export function fromUndiciCode (code: string): string {
  return code.startsWith(UNDICI_CODE_PREFIX) ? `LIB_${code.slice(UNDICI_CODE_PREFIX.length)}` : code
}

/** Base class of every error the library raises on purpose; `code` is stable across releases. */
export class LibraryError extends Error {
  /** Stable machine-readable code, `LIB_ERR_*`. */
  code: string
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'LibraryError'
    this.code = 'LIB_ERR'
  }
}

/** An argument (option, header, URL, body) was invalid; the message names the value. */
export class InvalidArgumentError extends LibraryError {
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'Invalid argument', options)
    this.name = 'InvalidArgumentError'
    this.code = 'LIB_ERR_INVALID_ARG'
  }
}

/** A value returned by user code (a handler, a callback) was invalid. */
export class InvalidReturnValueError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Invalid return value')
    this.name = 'InvalidReturnValueError'
    this.code = 'LIB_ERR_INVALID_RETURN_VALUE'
  }
}

/** The TCP or TLS connection could not be set up within `connectTimeout`. */
export class ConnectTimeoutError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Connect Timeout Error')
    this.name = 'ConnectTimeoutError'
    this.code = 'LIB_ERR_CONNECT_TIMEOUT'
  }
}

/** The response head did not arrive within `headersTimeout`. */
export class HeadersTimeoutError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Headers Timeout Error')
    this.name = 'HeadersTimeoutError'
    this.code = 'LIB_ERR_HEADERS_TIMEOUT'
  }
}

/** The response head was larger than `maxHeaderSize`. */
export class HeadersOverflowError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Headers Overflow Error')
    this.name = 'HeadersOverflowError'
    this.code = 'LIB_ERR_HEADERS_OVERFLOW'
  }
}

/** No body bytes arrived for `bodyTimeout` milliseconds. */
export class BodyTimeoutError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Body Timeout Error')
    this.name = 'BodyTimeoutError'
    this.code = 'LIB_ERR_BODY_TIMEOUT'
  }
}

/** Socket details attached to a {@link SocketError}, when known. */
export interface SocketInfo {
  /** Local IP address. */
  localAddress?: string | undefined
  /** Local port. */
  localPort?: number | undefined
  /** Server IP address. */
  remoteAddress?: string | undefined
  /** Server port. */
  remotePort?: number | undefined
  /** `IPv4` or `IPv6`. */
  remoteFamily?: string | undefined
  /** Idle timeout of the socket in milliseconds, if set. */
  timeout?: number | undefined
  /** Bytes written on the socket. */
  bytesWritten?: number | undefined
  /** Bytes read from the socket. */
  bytesRead?: number | undefined
}

/** The socket closed or failed while a request was in flight. */
export class SocketError extends LibraryError {
  /** Addresses and byte counts of the failed socket, when known. */
  socket: SocketInfo | null
  constructor (message?: string, socket?: SocketInfo | null, options?: { cause?: unknown }) {
    super(message ?? 'Socket Error', options)
    this.name = 'SocketError'
    this.code = 'LIB_ERR_SOCKET'
    this.socket = socket ?? null
  }
}

/** The request was aborted, by a signal or by `controller.abort()`. */
export class RequestAbortedError extends LibraryError {
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'Request aborted', options)
    this.name = 'AbortError'
    this.code = 'LIB_ERR_ABORTED'
  }
}

/** The dispatcher was destroyed; requests on it fail with this error. */
export class ClientDestroyedError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'The client is destroyed')
    this.name = 'ClientDestroyedError'
    this.code = 'LIB_ERR_DESTROYED'
  }
}

/** The dispatcher was closed; new requests on it fail with this error. */
export class ClientClosedError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'The client is closed')
    this.name = 'ClientClosedError'
    this.code = 'LIB_ERR_CLOSED'
  }
}

/** The request body sent did not match the declared `content-length`. */
export class RequestContentLengthMismatchError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Request body length does not match content-length header')
    this.name = 'RequestContentLengthMismatchError'
    this.code = 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH'
  }
}

/** The response body received did not match its `content-length`. */
export class ResponseContentLengthMismatchError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Response body length does not match content-length header')
    this.name = 'ResponseContentLengthMismatchError'
    this.code = 'LIB_ERR_RES_CONTENT_LENGTH_MISMATCH'
  }
}

/** The response body exceeded a configured size limit. */
export class ResponseExceededMaxSizeError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Response content exceeded max size')
    this.name = 'ResponseExceededMaxSizeError'
    this.code = 'LIB_ERR_RES_EXCEEDED_MAX_SIZE'
  }
}

/** Retrying failed: retries ran out, or the request cannot be re-sent (a stateful body). */
export class RequestRetryError extends LibraryError {
  /** Status code of the last response, when there was one. */
  statusCode: number
  /** Headers of the last response, when there was one; credential values (`set-cookie`...) show as `[redacted]`. */
  headers: IncomingHeaders | null
  /** Details of the retrying. */
  data: {
    /** How many retries were made. */
    count: number
  }
  constructor (message: string, statusCode: number, options: { headers?: IncomingHeaders | null, data: { count: number }, cause?: unknown }) {
    super(message, { cause: options.cause })
    this.name = 'RequestRetryError'
    this.code = 'LIB_ERR_REQ_RETRY'
    this.statusCode = statusCode
    this.headers = options.headers ?? null
    this.data = options.data
  }
}

/** A response status was treated as an error (for example by `throwOnError`). */
export class ResponseError extends LibraryError {
  /** Status code of the response. */
  statusCode: number
  /** Headers of the response, as the layer that raised the error shows them (conduit's redact credentials such as `set-cookie`). */
  headers: IncomingHeaders | null
  /** The response body, when it was read. */
  body: unknown
  constructor (message: string, statusCode: number, options: { headers?: IncomingHeaders | null, body?: unknown } = {}) {
    super(message)
    this.name = 'ResponseError'
    this.code = 'LIB_ERR_RESPONSE'
    this.statusCode = statusCode
    this.headers = options.headers ?? null
    this.body = options.body
  }
}

/** The operation or option is not supported by this dispatcher. */
export class NotSupportedError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Not supported error')
    this.name = 'NotSupportedError'
    this.code = 'LIB_ERR_NOT_SUPPORTED'
  }
}

/** The server sent an informational condition the client could not accept (e.g. an unexpected 101). */
export class InformationalError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Request information')
    this.name = 'InformationalError'
    this.code = 'LIB_ERR_INFO'
  }
}

/** An Agent already serves its `maxOrigins` origins and was asked for another one. */
export class MaxOriginsReachedError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Maximum allowed origins reached')
    this.name = 'MaxOriginsReachedError'
    this.code = 'LIB_ERR_MAX_ORIGINS_REACHED'
  }
}

/** No connection could be balanced to (all upstreams unavailable). */
export class BalancedPoolMissingUpstreamError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'No upstream has been added to the BalancedPool')
    this.name = 'MissingUpstreamError'
    this.code = 'LIB_ERR_BPL_MISSING_UPSTREAM'
  }
}

/** The response bytes broke HTTP/1.1 framing; `data` holds the offending bytes, when useful. */
export class HTTPParserError extends LibraryError {
  /** Offending bytes or token, as text. */
  data: string | undefined
  constructor (message: string, code = 'LIB_ERR_HTTP_PARSER', data?: string) {
    super(message)
    this.name = 'HTTPParserError'
    this.code = code
    this.data = data
  }
}

/** The TLS connection to an `https:` proxy failed (for example a certificate mismatch). */
export class SecureProxyConnectionError extends LibraryError {
  constructor (cause?: unknown, message?: string) {
    super(message ?? 'Secure Proxy Connection failed', { cause })
    this.name = 'SecureProxyConnectionError'
    this.code = 'LIB_ERR_PRX_TLS'
  }
}

/** The proxy refused a tunnel or a SOCKS handshake; `statusCode` is the proxy's answer when HTTP. */
export class ProxyConnectionError extends LibraryError {
  /** HTTP status of a refused CONNECT, or undefined for SOCKS failures. */
  statusCode: number | undefined
  constructor (message: string, options: { statusCode?: number, cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.name = 'ProxyConnectionError'
    this.code = 'LIB_ERR_PROXY_CONNECT'
    this.statusCode = options.statusCode
  }
}

/** A mock agent found no interceptor for a request and real network access is disabled. */
export class MockNotMatchedError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'The request does not match any registered mock dispatches')
    this.name = 'MockNotMatchedError'
    this.code = 'LIB_MOCK_ERR_MOCK_NOT_MATCHED'
  }
}

/** A cache store's backend (e.g. Redis) did not answer within its time bound; the store failed open. */
export class StoreTimeoutError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Cache store operation timed out')
    this.name = 'StoreTimeoutError'
    this.code = 'LIB_ERR_STORE_TIMEOUT'
  }
}

/** A snapshot file could not be read or written (corrupt JSON, a foreign layout, a failed write); the message names the file. */
export class SnapshotFileError extends LibraryError {
  /** The snapshot file concerned. */
  path: string
  /** The entry at fault (its index in the file, or its key in undici's older object layout), when one is. */
  entry: number | string | undefined
  /** The field at fault within the entry (or the file, e.g. `log.version`), when one is. */
  field: string | undefined
  constructor (message: string, path: string, options?: { cause?: unknown, entry?: number | string | undefined, field?: string | undefined }) {
    super(message, options)
    this.name = 'SnapshotFileError'
    this.code = 'LIB_ERR_SNAPSHOT_FILE'
    this.path = path
    this.entry = options?.entry
    this.field = options?.field
  }
}

/** A snapshot agent in playback found no recorded response for a request; the message begins with `No snapshot found`. */
export class SnapshotNotFoundError extends LibraryError {
  /** Fields in which the closest recorded request differs (empty when nothing was recorded). */
  differences: string[]
  constructor (message: string, differences: string[] = []) {
    super(message)
    this.name = 'SnapshotNotFoundError'
    this.code = 'LIB_ERR_SNAPSHOT_NOT_FOUND'
    this.differences = differences
  }
}

/**
 * A snapshot file was not saved because it still holds what looks like a secret (a bearer
 * token, an AWS key...); the message names the file, the entries and the fields, never the value.
 */
export class SnapshotSecretError extends LibraryError {
  /** The file that was not written. */
  path: string
  /** Where each suspected secret is, e.g. `entry 2 (GET https://api.example.org/me) response body: a bearer token`. */
  findings: string[]
  constructor (message: string, path: string, findings: string[]) {
    super(message)
    this.name = 'SnapshotSecretError'
    this.code = 'LIB_ERR_SNAPSHOT_SECRET'
    this.path = path
    this.findings = findings
  }
}

/** A recorded response older than the snapshot agent's `maxAge` was asked for while stale entries fail (`onStale: 'fail'`). */
export class SnapshotStaleError extends LibraryError {
  /** When the entry was recorded (ISO 8601). */
  recordedAt: string
  constructor (message: string, recordedAt: string) {
    super(message)
    this.name = 'SnapshotStaleError'
    this.code = 'LIB_ERR_SNAPSHOT_STALE'
    this.recordedAt = recordedAt
  }
}

/** A redirect could not be followed: too many of them (with `throwOnMaxRedirect`), or a loop. */
export class RedirectError extends LibraryError {
  constructor (message?: string) {
    super(message ?? 'Redirect could not be followed')
    this.name = 'RedirectError'
    this.code = 'LIB_ERR_REDIRECT'
  }
}

/** The WebSocket opening handshake failed: the server's answer was not a valid switch to WebSocket. */
export class WebSocketHandshakeError extends LibraryError {
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'WebSocket handshake failed', options)
    this.name = 'WebSocketHandshakeError'
    this.code = 'LIB_ERR_WEBSOCKET_HANDSHAKE'
  }
}

/** An open WebSocket connection failed: the peer broke RFC 6455/7692, a limit was hit, or the socket failed. */
export class WebSocketProtocolError extends LibraryError {
  /** The close code the client sent or reported for the failure (1002, 1006, 1007, 1009, ...). */
  closeCode: number
  constructor (message: string, closeCode: number, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'WebSocketProtocolError'
    this.code = 'LIB_ERR_WEBSOCKET_PROTOCOL'
    this.closeCode = closeCode
  }
}

/**
 * More redirects than `maxRedirections` with `throwOnMaxRedirect` set; a `RedirectError` with its
 * own code, as undici's `MaxRedirectsError` (`UND_ERR_REDIRECT_MAX`).
 */
export class MaxRedirectsError extends RedirectError {
  constructor (message?: string) {
    super(message ?? 'max redirects')
    this.name = 'MaxRedirectsError'
    this.code = 'LIB_ERR_REDIRECT_MAX'
  }
}
