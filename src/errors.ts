/**
 * Every error conduit raises on purpose is a {@link LibraryError} with a stable `code`.
 * Class names follow undici's, so code that checks `err.name` or `err.code` moves over unchanged.
 * @module
 */

import type { IncomingHeaders } from './contracts/dispatch-contract.js'

import { LIBRARY_ERROR_CODES, UNDICI_ERROR_CODES } from './error-codes.js'
import type { ErrorCodeOf, LibraryErrorName } from './error-codes.js'
import { onErrorCodeStyle } from './error-code-style.js'

export { fromUndiciCode } from './error-codes.js'

let undiciStyle = false

/** The code of error class `name` in the style in force (src/error-code-style.ts). */
function styledCode<N extends LibraryErrorName> (name: N): ErrorCodeOf<N> {
  if (undiciStyle) return ((UNDICI_ERROR_CODES as Partial<Record<LibraryErrorName, string>>)[name] ?? LIBRARY_ERROR_CODES[name]) as ErrorCodeOf<N>
  return LIBRARY_ERROR_CODES[name]
}

/** Base class of every error the library raises on purpose; `code` is stable across releases. */
export class LibraryError extends Error {
  /** Stable machine-readable code, `LIB_ERR_*`. */
  code: string
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'LibraryError'
    this.code = styledCode('LibraryError')
  }
}

/** An argument (option, header, URL, body) was invalid; the message names the value. */
export class InvalidArgumentError extends LibraryError {
  /** Always `'InvalidArgumentError'`. */
  declare name: 'InvalidArgumentError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'InvalidArgumentError'>
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'Invalid argument', options)
    this.name = 'InvalidArgumentError'
    this.code = styledCode('InvalidArgumentError')
  }
}

/** A value returned by user code (a handler, a callback) was invalid. */
export class InvalidReturnValueError extends LibraryError {
  /** Always `'InvalidReturnValueError'`. */
  declare name: 'InvalidReturnValueError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'InvalidReturnValueError'>
  constructor (message?: string) {
    super(message ?? 'Invalid return value')
    this.name = 'InvalidReturnValueError'
    this.code = styledCode('InvalidReturnValueError')
  }
}

/** The TCP or TLS connection could not be set up within `connectTimeout`. */
export class ConnectTimeoutError extends LibraryError {
  /** Always `'ConnectTimeoutError'`. */
  declare name: 'ConnectTimeoutError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ConnectTimeoutError'>
  constructor (message?: string) {
    super(message ?? 'Connect Timeout Error')
    this.name = 'ConnectTimeoutError'
    this.code = styledCode('ConnectTimeoutError')
  }
}

/** The response head did not arrive within `headersTimeout`. */
export class HeadersTimeoutError extends LibraryError {
  /** Always `'HeadersTimeoutError'`. */
  declare name: 'HeadersTimeoutError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'HeadersTimeoutError'>
  constructor (message?: string) {
    super(message ?? 'Headers Timeout Error')
    this.name = 'HeadersTimeoutError'
    this.code = styledCode('HeadersTimeoutError')
  }
}

/** The response head was larger than `maxHeaderSize`. */
export class HeadersOverflowError extends LibraryError {
  /** Always `'HeadersOverflowError'`. */
  declare name: 'HeadersOverflowError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'HeadersOverflowError'>
  constructor (message?: string) {
    super(message ?? 'Headers Overflow Error')
    this.name = 'HeadersOverflowError'
    this.code = styledCode('HeadersOverflowError')
  }
}

/** No body bytes arrived for `bodyTimeout` milliseconds. */
export class BodyTimeoutError extends LibraryError {
  /** Always `'BodyTimeoutError'`. */
  declare name: 'BodyTimeoutError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'BodyTimeoutError'>
  constructor (message?: string) {
    super(message ?? 'Body Timeout Error')
    this.name = 'BodyTimeoutError'
    this.code = styledCode('BodyTimeoutError')
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
  /** Always `'SocketError'`. */
  declare name: 'SocketError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'SocketError'>
  /** Addresses and byte counts of the failed socket, when known. */
  socket: SocketInfo | null
  constructor (message?: string, socket?: SocketInfo | null, options?: { cause?: unknown }) {
    super(message ?? 'Socket Error', options)
    this.name = 'SocketError'
    this.code = styledCode('SocketError')
    this.socket = socket ?? null
  }
}

/**
 * undici's base class of abort errors: {@link RequestAbortedError}, what conduit raises when a
 * request is aborted, extends it, as undici's does.
 */
export class AbortError extends LibraryError {
  /** Always `'AbortError'`. */
  declare name: 'AbortError'
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'The operation was aborted', options)
    this.name = 'AbortError'
    this.code = styledCode('AbortError')
  }
}

/** The request was aborted, by a signal or by `controller.abort()`. */
export class RequestAbortedError extends AbortError {
  /** Always `'AbortError'`. */
  declare name: 'AbortError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'RequestAbortedError'>
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'Request aborted', options)
    this.name = 'AbortError'
    this.code = styledCode('RequestAbortedError')
  }
}

/** The dispatcher was destroyed; requests on it fail with this error. */
export class ClientDestroyedError extends LibraryError {
  /** Always `'ClientDestroyedError'`. */
  declare name: 'ClientDestroyedError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ClientDestroyedError'>
  constructor (message?: string) {
    super(message ?? 'The client is destroyed')
    this.name = 'ClientDestroyedError'
    this.code = styledCode('ClientDestroyedError')
  }
}

/** The dispatcher was closed; new requests on it fail with this error. */
export class ClientClosedError extends LibraryError {
  /** Always `'ClientClosedError'`. */
  declare name: 'ClientClosedError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ClientClosedError'>
  constructor (message?: string) {
    super(message ?? 'The client is closed')
    this.name = 'ClientClosedError'
    this.code = styledCode('ClientClosedError')
  }
}

/** The request body sent did not match the declared `content-length`. */
export class RequestContentLengthMismatchError extends LibraryError {
  /** Always `'RequestContentLengthMismatchError'`. */
  declare name: 'RequestContentLengthMismatchError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'RequestContentLengthMismatchError'>
  constructor (message?: string) {
    super(message ?? 'Request body length does not match content-length header')
    this.name = 'RequestContentLengthMismatchError'
    this.code = styledCode('RequestContentLengthMismatchError')
  }
}

/** The response body received did not match its `content-length`. */
export class ResponseContentLengthMismatchError extends LibraryError {
  /** Always `'ResponseContentLengthMismatchError'`. */
  declare name: 'ResponseContentLengthMismatchError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ResponseContentLengthMismatchError'>
  constructor (message?: string) {
    super(message ?? 'Response body length does not match content-length header')
    this.name = 'ResponseContentLengthMismatchError'
    this.code = styledCode('ResponseContentLengthMismatchError')
  }
}

/** The response body exceeded a configured size limit. */
export class ResponseExceededMaxSizeError extends LibraryError {
  /** Always `'ResponseExceededMaxSizeError'`. */
  declare name: 'ResponseExceededMaxSizeError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ResponseExceededMaxSizeError'>
  constructor (message?: string) {
    super(message ?? 'Response content exceeded max size')
    this.name = 'ResponseExceededMaxSizeError'
    this.code = styledCode('ResponseExceededMaxSizeError')
  }
}

/** Retrying failed: retries ran out, or the request cannot be re-sent (a stateful body). */
export class RequestRetryError extends LibraryError {
  /** Always `'RequestRetryError'`. */
  declare name: 'RequestRetryError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'RequestRetryError'>
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
    this.code = styledCode('RequestRetryError')
    this.statusCode = statusCode
    this.headers = options.headers ?? null
    this.data = options.data
  }
}

/** A response status was treated as an error (for example by `throwOnError`). */
export class ResponseError extends LibraryError {
  /** Always `'ResponseError'`. */
  declare name: 'ResponseError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ResponseError'>
  /** Status code of the response. */
  statusCode: number
  /** Headers of the response, as the layer that raised the error shows them (conduit's redact credentials such as `set-cookie`). */
  headers: IncomingHeaders | null
  /** The response body, when it was read. */
  body: unknown
  constructor (message: string, statusCode: number, options: { headers?: IncomingHeaders | null, body?: unknown } = {}) {
    super(message)
    this.name = 'ResponseError'
    this.code = styledCode('ResponseError')
    this.statusCode = statusCode
    this.headers = options.headers ?? null
    this.body = options.body
  }
}

/** The operation or option is not supported by this dispatcher. */
export class NotSupportedError extends LibraryError {
  /** Always `'NotSupportedError'`. */
  declare name: 'NotSupportedError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'NotSupportedError'>
  constructor (message?: string) {
    super(message ?? 'Not supported error')
    this.name = 'NotSupportedError'
    this.code = styledCode('NotSupportedError')
  }
}

/** The server sent an informational condition the client could not accept (e.g. an unexpected 101). */
export class InformationalError extends LibraryError {
  /** Always `'InformationalError'`. */
  declare name: 'InformationalError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'InformationalError'>
  constructor (message?: string) {
    super(message ?? 'Request information')
    this.name = 'InformationalError'
    this.code = styledCode('InformationalError')
  }
}

/** An Agent already serves its `maxOrigins` origins and was asked for another one. */
export class MaxOriginsReachedError extends LibraryError {
  /** Always `'MaxOriginsReachedError'`. */
  declare name: 'MaxOriginsReachedError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'MaxOriginsReachedError'>
  constructor (message?: string) {
    super(message ?? 'Maximum allowed origins reached')
    this.name = 'MaxOriginsReachedError'
    this.code = styledCode('MaxOriginsReachedError')
  }
}

/** No connection could be balanced to (all upstreams unavailable). */
export class BalancedPoolMissingUpstreamError extends LibraryError {
  /** Always `'MissingUpstreamError'`. */
  declare name: 'MissingUpstreamError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'BalancedPoolMissingUpstreamError'>
  constructor (message?: string) {
    super(message ?? 'No upstream has been added to the BalancedPool')
    this.name = 'MissingUpstreamError'
    this.code = styledCode('BalancedPoolMissingUpstreamError')
  }
}

/** The response bytes broke HTTP/1.1 framing; `data` holds the offending bytes, when useful. */
export class HTTPParserError extends LibraryError {
  /** Always `'HTTPParserError'`. */
  declare name: 'HTTPParserError'
  /** Offending bytes or token, as text. */
  data: string | undefined
  constructor (message?: string, code: string = LIBRARY_ERROR_CODES.HTTPParserError, data?: string) {
    super(message ?? 'HTTP parser error')
    this.name = 'HTTPParserError'
    this.code = code
    this.data = data
  }
}

/** The TLS connection to an `https:` proxy failed (for example a certificate mismatch). */
export class SecureProxyConnectionError extends LibraryError {
  /** Always `'SecureProxyConnectionError'`. */
  declare name: 'SecureProxyConnectionError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'SecureProxyConnectionError'>
  constructor (cause?: unknown, message?: string) {
    super(message ?? 'Secure Proxy Connection failed', { cause })
    this.name = 'SecureProxyConnectionError'
    this.code = styledCode('SecureProxyConnectionError')
  }
}

/** The proxy refused a tunnel or a SOCKS handshake; `statusCode` is the proxy's answer when HTTP. */
export class ProxyConnectionError extends LibraryError {
  /** Always `'ProxyConnectionError'`. */
  declare name: 'ProxyConnectionError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'ProxyConnectionError'>
  /** HTTP status of a refused CONNECT, or undefined for SOCKS failures. */
  statusCode: number | undefined
  constructor (message: string, options: { statusCode?: number, cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.name = 'ProxyConnectionError'
    this.code = styledCode('ProxyConnectionError')
    this.statusCode = options.statusCode
  }
}

/**
 * undici's error for a failed SOCKS5 handshake. conduit reports SOCKS failures as
 * {@link ProxyConnectionError}; the class is here for code written against undici's errors.
 */
export class Socks5ProxyError extends LibraryError {
  /** Always `'Socks5ProxyError'`. */
  declare name: 'Socks5ProxyError'
  constructor (message?: string, code?: string) {
    super(message ?? 'SOCKS5 proxy error')
    this.name = 'Socks5ProxyError'
    // undici's second argument is the code to report; anything but a string keeps the class's own.
    this.code = typeof code === 'string' ? code : styledCode('Socks5ProxyError')
  }
}

/**
 * undici's error for a WebSocket message that inflates past its size limit. conduit closes such
 * a connection with code 1009 instead; the class is here for code written against undici's errors.
 */
export class MessageSizeExceededError extends LibraryError {
  /** Always `'MessageSizeExceededError'`. */
  declare name: 'MessageSizeExceededError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'MessageSizeExceededError'>
  constructor (message?: string) {
    super(message ?? 'Max decompressed message size exceeded')
    this.name = 'MessageSizeExceededError'
    this.code = styledCode('MessageSizeExceededError')
  }
}

/**
 * undici's error for a runtime without WebAssembly (its HTTP/1 parser needs it). conduit's
 * parser needs none and never raises it; like undici's, it is a plain `Error`.
 */
export class WebAssemblyNotSupportedError extends Error {
  /** Always `'Error'`, as undici's. */
  declare name: 'Error'
  /** Always `'ERR_WEBASSEMBLY_NOT_SUPPORTED'`. */
  readonly code = 'ERR_WEBASSEMBLY_NOT_SUPPORTED'
  constructor (message?: string) {
    super(message ?? 'WebAssembly is not supported')
    this.name = 'Error'
  }
}

/** A mock agent found no interceptor for a request and real network access is disabled. */
export class MockNotMatchedError extends LibraryError {
  /** Always `'MockNotMatchedError'`. */
  declare name: 'MockNotMatchedError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'MockNotMatchedError'>
  constructor (message?: string) {
    super(message ?? 'The request does not match any registered mock dispatches')
    this.name = 'MockNotMatchedError'
    this.code = styledCode('MockNotMatchedError')
  }
}

/** A cache store's backend (e.g. Redis) did not answer within its time bound; the store failed open. */
export class StoreTimeoutError extends LibraryError {
  /** Always `'StoreTimeoutError'`. */
  declare name: 'StoreTimeoutError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'StoreTimeoutError'>
  constructor (message?: string) {
    super(message ?? 'Cache store operation timed out')
    this.name = 'StoreTimeoutError'
    this.code = styledCode('StoreTimeoutError')
  }
}

/** A snapshot file could not be read or written (corrupt JSON, a foreign layout, a failed write); the message names the file. */
export class SnapshotFileError extends LibraryError {
  /** Always `'SnapshotFileError'`. */
  declare name: 'SnapshotFileError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'SnapshotFileError'>
  /** The snapshot file concerned. */
  path: string
  /** The entry at fault (its index in the file, or its key in undici's older object layout), when one is. */
  entry: number | string | undefined
  /** The field at fault within the entry (or the file, e.g. `log.version`), when one is. */
  field: string | undefined
  constructor (message: string, path: string, options?: { cause?: unknown, entry?: number | string | undefined, field?: string | undefined }) {
    super(message, options)
    this.name = 'SnapshotFileError'
    this.code = styledCode('SnapshotFileError')
    this.path = path
    this.entry = options?.entry
    this.field = options?.field
  }
}

/** A snapshot agent in playback found no recorded response for a request; the message begins with `No snapshot found`. */
export class SnapshotNotFoundError extends LibraryError {
  /** Always `'SnapshotNotFoundError'`. */
  declare name: 'SnapshotNotFoundError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'SnapshotNotFoundError'>
  /** Fields in which the closest recorded request differs (empty when nothing was recorded). */
  differences: string[]
  constructor (message: string, differences: string[] = []) {
    super(message)
    this.name = 'SnapshotNotFoundError'
    this.code = styledCode('SnapshotNotFoundError')
    this.differences = differences
  }
}

/**
 * A snapshot file was not saved because it still holds what looks like a secret (a bearer
 * token, an AWS key...); the message names the file, the entries and the fields, never the value.
 */
export class SnapshotSecretError extends LibraryError {
  /** Always `'SnapshotSecretError'`. */
  declare name: 'SnapshotSecretError'
  /** This error's code, in the style in force. */
  declare code: 'LIB_ERR_SNAPSHOT_SECRET'
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
  /** Always `'SnapshotStaleError'`. */
  declare name: 'SnapshotStaleError'
  /** This error's code, in the style in force. */
  declare code: 'LIB_ERR_SNAPSHOT_STALE'
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
    this.code = styledCode('RedirectError')
  }
}

/** The WebSocket opening handshake failed: the server's answer was not a valid switch to WebSocket. */
export class WebSocketHandshakeError extends LibraryError {
  /** Always `'WebSocketHandshakeError'`. */
  declare name: 'WebSocketHandshakeError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'WebSocketHandshakeError'>
  constructor (message?: string, options?: { cause?: unknown }) {
    super(message ?? 'WebSocket handshake failed', options)
    this.name = 'WebSocketHandshakeError'
    this.code = styledCode('WebSocketHandshakeError')
  }
}

/** An open WebSocket connection failed: the peer broke RFC 6455/7692, a limit was hit, or the socket failed. */
export class WebSocketProtocolError extends LibraryError {
  /** Always `'WebSocketProtocolError'`. */
  declare name: 'WebSocketProtocolError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'WebSocketProtocolError'>
  /** The close code the client sent or reported for the failure (1002, 1006, 1007, 1009, ...). */
  closeCode: number
  constructor (message: string, closeCode: number, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'WebSocketProtocolError'
    this.code = styledCode('WebSocketProtocolError')
    this.closeCode = closeCode
  }
}

/**
 * More redirects than `maxRedirections` with `throwOnMaxRedirect` set; a `RedirectError` with its
 * own code, as undici's `MaxRedirectsError` (`UND_ERR_REDIRECT_MAX`).
 */
export class MaxRedirectsError extends RedirectError {
  /** Always `'MaxRedirectsError'`. */
  declare name: 'MaxRedirectsError'
  /** This error's code, in the style in force. */
  declare code: ErrorCodeOf<'MaxRedirectsError'>
  constructor (message?: string) {
    super(message ?? 'max redirects')
    this.name = 'MaxRedirectsError'
    this.code = styledCode('MaxRedirectsError')
  }
}

/** Where a request's deadline ran out: waiting for a connection, connecting, waiting for the head, reading the body, or between retries. */
export type DeadlinePhase = 'queue' | 'connect' | 'headers' | 'body' | 'retry-wait'

/**
 * A request's whole-exchange budget (`interceptors.deadline()`, the `deadlineMs` request option)
 * ran out, or a retry could not be waited for and sent within it; names the budget and the phase.
 */
export class DeadlineExceededError extends LibraryError {
  /** The budget of the whole exchange, in milliseconds. */
  timeoutMs: number
  /** What the request was doing when the budget ran out. */
  phase: DeadlinePhase
  constructor (message: string, timeoutMs: number, phase: DeadlinePhase, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'DeadlineExceededError'
    this.code = styledCode('DeadlineExceededError')
    this.timeoutMs = timeoutMs
    this.phase = phase
  }
}

/** A circuit breaker (`interceptors.circuitBreaker()`) is open for the request's origin: it failed fast, unsent. */
export class CircuitOpenError extends LibraryError {
  /** The key of the open circuit (the origin, unless a key function chose another). */
  key: string
  /** Milliseconds until the circuit lets a probe through. */
  retryAfterMs: number
  constructor (message: string, key: string, retryAfterMs: number) {
    super(message)
    this.name = 'CircuitOpenError'
    this.code = styledCode('CircuitOpenError')
    this.key = key
    this.retryAfterMs = retryAfterMs
  }
}

/** The rate limiter (`interceptors.rateLimit()`) already holds `maxQueued` requests for the key: this one is refused, unsent. */
export class RateLimitQueueFullError extends LibraryError {
  /** The key whose queue is full (the origin, unless a key function chose another). */
  key: string
  constructor (message: string, key: string) {
    super(message)
    this.name = 'RateLimitQueueFullError'
    this.code = styledCode('RateLimitQueueFullError')
    this.key = key
  }
}

/**
 * `errors.UndiciError` under undici's code style: an alias of {@link LibraryError}, the base class
 * of every error conduit raises, for code that checks `err instanceof errors.UndiciError`;
 * `undefined` in conduit's own style.
 */
export let UndiciError: typeof LibraryError | undefined
/** undici's name for the type of every error conduit raises: {@link LibraryError}. */
export type UndiciError = LibraryError

const classes: Record<string, { prototype: object }> = {
  LibraryError, InvalidArgumentError, InvalidReturnValueError, ConnectTimeoutError, HeadersTimeoutError, HeadersOverflowError,
  BodyTimeoutError, SocketError, RequestAbortedError, ClientDestroyedError, ClientClosedError, RequestContentLengthMismatchError,
  ResponseContentLengthMismatchError, ResponseExceededMaxSizeError, RequestRetryError, ResponseError, NotSupportedError,
  InformationalError, MaxOriginsReachedError, BalancedPoolMissingUpstreamError, SecureProxyConnectionError, ProxyConnectionError,
  MockNotMatchedError, MaxRedirectsError, AbortError, Socks5ProxyError, MessageSizeExceededError
}

// undici's classes recognise their errors by a branded getter (`instanceof` reads
// Symbol.for('undici.error.<code>')); under undici's style conduit's errors answer to it too, so
// code holding undici's own `errors` classes still recognises them.
const brandOf = (code: string): symbol => Symbol.for(`undici.error.${code}`)
function brand (target: { prototype: object }, code: string): void {
  Object.defineProperty(target.prototype, brandOf(code), { get: () => undiciStyle, configurable: true })
}
for (const [name, code] of Object.entries(UNDICI_ERROR_CODES)) brand(classes[name]!, code)
brand(HTTPParserError, 'UND_ERR_HTTP_PARSER')

onErrorCodeStyle((style) => {
  undiciStyle = style === 'undici'
  UndiciError = undiciStyle ? LibraryError : undefined
})
